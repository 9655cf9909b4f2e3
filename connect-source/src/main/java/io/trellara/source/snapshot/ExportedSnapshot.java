package io.trellara.source.snapshot;

import io.trellara.protocol.Lsn;
import io.trellara.source.pg.FailoverSlots;
import io.trellara.source.pg.PgEndpoint;
import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.PGConnection;
import org.postgresql.replication.ReplicationSlotInfo;

/**
 * The replication slot created together with an exported snapshot (CREATE_REPLICATION_SLOT ...
 * LOGICAL pgoutput, which exports one by default): the snapshot shows the database exactly as of
 * the slot's consistent point, from where the slot streams every later commit. The snapshot can be
 * imported only while this replication connection stays open and idle, so it is closed once the
 * reader has imported it.
 */
public final class ExportedSnapshot implements AutoCloseable {
  private final Connection connection;
  private final String snapshotName;
  private final long consistentPoint;
  private final String slotName;

  private ExportedSnapshot(Connection connection, ReplicationSlotInfo slot) {
    this.connection = connection;
    this.snapshotName = slot.getSnapshotName();
    this.consistentPoint = slot.getConsistentPoint().asLong();
    this.slotName = slot.getSlotName();
  }

  /**
   * Creates {@code slotName}; a temporary slot (initial_only) disappears when this connection
   * closes. With a failover endpoint ({@code slot.failover}) a permanent slot is a failover slot.
   */
  public static ExportedSnapshot create(PgEndpoint endpoint, String slotName, boolean temporary)
      throws SQLException {
    Connection c = endpoint.connectForReplication();
    try {
      if (endpoint.failover() && !temporary) {
        ReplicationSlotInfo slot = FailoverSlots.createWithSnapshot(c, slotName);
        if (slot.getSnapshotName() == null || slot.getSnapshotName().isBlank()) {
          throw new SQLException("CREATE_REPLICATION_SLOT " + slotName + " exported no snapshot");
        }
        return new ExportedSnapshot(c, slot);
      }
      var builder =
          c.unwrap(PGConnection.class)
              .getReplicationAPI()
              .createReplicationSlot()
              .logical()
              .withSlotName(slotName)
              .withOutputPlugin("pgoutput");
      if (temporary) {
        builder.withTemporaryOption();
      }
      ReplicationSlotInfo slot = builder.make();
      if (slot.getSnapshotName() == null || slot.getSnapshotName().isBlank()) {
        throw new SQLException("CREATE_REPLICATION_SLOT " + slotName + " exported no snapshot");
      }
      return new ExportedSnapshot(c, slot);
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  public String snapshotName() {
    return snapshotName;
  }

  /** The slot's consistent point: the snapshot's commit LSN, where streaming starts. */
  public long consistentPoint() {
    return consistentPoint;
  }

  public String slotName() {
    return slotName;
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }

  @Override
  public String toString() {
    return "slot "
        + slotName
        + " at consistent point "
        + Lsn.format(consistentPoint)
        + " (snapshot "
        + snapshotName
        + ")";
  }
}
