package io.trellara.sink.postgres.snapshot;

import io.trellara.protocol.LogText;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code snapshot.apply=per_table}: a snapshot streamed as its chunks arrive commits each table on
 * its own. The source reads the tables one after the other, so a table is whole when the next one
 * begins: the rows written so far are committed then, with a row in {@code
 * trellara_sink.snapshot_tables} saying through which {@code total_order} the snapshot is
 * committed. Delivered again (a restarted sink), the snapshot skips every change up to there: it
 * resumes after the last table it committed. The last table commits with the snapshot's dedup
 * record at its commit marker, which also removes the flow's rows here.
 *
 * <p>A table that begins again after it was committed cannot be made whole in one transaction any
 * more: refused ({@link ApplyException.Reason#SNAPSHOT_TABLE_INTERLEAVED}), nothing further
 * applied.
 */
public final class SnapshotTableCommits {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotTableCommits.class);
  private static final String THROUGH =
      "SELECT coalesce(max(through_total_order), 0), count(*)"
          + " FROM trellara_sink.snapshot_tables WHERE source_id = ? AND dataset_id = ? AND commit_lsn = ?::pg_lsn";
  private static final String RECORD =
      "INSERT INTO trellara_sink.snapshot_tables (source_id, dataset_id,"
          + " commit_lsn, source_schema, source_table, through_total_order, row_count, sink_name)"
          + " VALUES (?, ?, ?::pg_lsn, ?, ?, ?, ?, ?)";
  private static final String CLEAR =
      "DELETE FROM trellara_sink.snapshot_tables WHERE source_id = ?" + " AND dataset_id = ?";

  private final TargetSession session;
  private final FlowKey key;
  private final String sinkName;

  /** Changes up to here were committed by an earlier delivery of this snapshot. */
  private final long resumeAfter;

  private final Set<String> committed = new HashSet<>();
  private RelationId current;
  private long currentRows;
  private long lastOrder;
  private int tablesCommitted;

  private SnapshotTableCommits(
      TargetSession session, FlowKey key, String sinkName, long resumeAfter) {
    this.session = session;
    this.key = key;
    this.sinkName = sinkName;
    this.resumeAfter = resumeAfter;
  }

  /** Reads how far an earlier delivery of this snapshot got. */
  public static SnapshotTableCommits open(TargetSession session, FlowKey key, String sinkName)
      throws SQLException {
    PreparedStatement ps = session.prepare(THROUGH);
    ps.setString(1, key.transaction().sourceId());
    ps.setString(2, key.datasetId());
    ps.setString(3, key.transaction().commitLsn());
    long through;
    long tables;
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      through = rs.getLong(1);
      tables = rs.getLong(2);
    }
    if (through > 0) {
      LOG.info(
          "Snapshot {}: {} table(s) committed by an earlier delivery (through total_order {}); resuming"
              + " after them",
          LogText.escape(key.display()),
          tables,
          through);
    }
    return new SnapshotTableCommits(session, key, sinkName, through);
  }

  /**
   * Writes one chunk's changes through {@code writer}: those an earlier delivery committed are
   * skipped, and where a new table begins the table before it is committed first.
   */
  public void write(RowWriter writer, List<SchemaVersion> schemas, List<ChangeRecord> changes)
      throws SQLException {
    int from = 0;
    while (from < changes.size() && changes.get(from).getTotalOrder() <= resumeAfter) {
      from++;
    }
    for (int i = from; i < changes.size(); i++) {
      RelationId r = changes.get(i).getRelation();
      if (current == null || !sameTable(current, r)) {
        if (committed.contains(name(r))) { // before committing the table in progress: it rolls back
          throw new ApplyException(
              ApplyException.Reason.SNAPSHOT_TABLE_INTERLEAVED,
              name(r),
              changes.get(i).getIdempotencyKey(),
              "snapshot.apply=per_table: rows of "
                  + name(r)
                  + " follow rows of another table after "
                  + name(r)
                  + " was committed; a snapshot"
                  + " carries each table's rows together, so this one cannot be applied table by"
                  + " table (snapshot.apply=atomic applies it whole)");
        }
        if (i > from) {
          writer.write(schemas, changes.subList(from, i), List.of());
          from = i;
        }
        if (current != null) {
          commitTable(writer);
        }
        current = r;
        currentRows = 0;
      }
      currentRows++;
      lastOrder = changes.get(i).getTotalOrder();
    }
    if (from < changes.size()) {
      writer.write(schemas, changes.subList(from, changes.size()), List.of());
    }
  }

  /**
   * At the commit marker, in the snapshot's last target transaction: the flow's per-table rows go.
   */
  public void finish() throws SQLException {
    PreparedStatement ps = session.prepare(CLEAR);
    ps.setString(1, key.transaction().sourceId());
    ps.setString(2, key.datasetId());
    ps.executeUpdate();
    if (tablesCommitted > 0 || resumeAfter > 0) {
      LOG.info(
          "Snapshot {}: the last table commits with the snapshot ({} committed one by one before it)",
          LogText.escape(key.display()),
          tablesCommitted);
    }
  }

  int tablesCommitted() {
    return tablesCommitted;
  }

  private void commitTable(RowWriter writer) throws SQLException {
    writer.flush();
    session.at(name(current), key.display());
    PreparedStatement ps = session.prepare(RECORD);
    ps.setString(1, key.transaction().sourceId());
    ps.setString(2, key.datasetId());
    ps.setString(3, key.transaction().commitLsn());
    ps.setString(4, current.getSchema());
    ps.setString(5, current.getTable());
    ps.setLong(6, lastOrder);
    ps.setLong(7, currentRows);
    ps.setString(8, sinkName);
    ps.executeUpdate();
    session.commit();
    committed.add(name(current));
    tablesCommitted++;
    LOG.info(
        "Snapshot {}: table {} committed ({} rows; snapshot.apply=per_table)",
        LogText.escape(key.display()),
        LogText.escape(String.valueOf(name(current))),
        currentRows);
  }

  private static boolean sameTable(RelationId a, RelationId b) {
    return a.getTable().equals(b.getTable()) && a.getSchema().equals(b.getSchema());
  }

  private static String name(RelationId r) {
    return r.getSchema() + '.' + r.getTable();
  }
}
