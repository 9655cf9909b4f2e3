package io.trellara.source.pg;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replication connection's PostgreSQL side: starting a pgoutput stream on a slot, and ending a
 * walsender that still holds the slot after its connection was aborted.
 */
public final class ReplicationStreams {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicationStreams.class);

  static final String TERMINATE_SQL =
      "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
          + " WHERE slot_name = ? AND active_pid = ?";

  /**
   * PostgreSQL 14+: waits (up to 5 s) for the walsender to exit, so the slot is free when close
   * returns.
   */
  static final String TERMINATE_AND_WAIT_SQL =
      "SELECT pg_terminate_backend(active_pid, 5000)"
          + " FROM pg_replication_slots WHERE slot_name = ? AND active_pid = ?";

  private ReplicationStreams() {}

  /**
   * Starts streaming {@code slot} (pgoutput protocol {@code protocolVersion}, logical messages on,
   * in-progress transactions streamed when asked and protocol 2) at {@code from} (0: the slot's
   * position), reporting status every {@code statusIntervalMs}.
   */
  public static PGReplicationStream open(
      Connection connection,
      String slot,
      String publication,
      int protocolVersion,
      boolean streaming,
      long statusIntervalMs,
      long from)
      throws SQLException {
    var builder =
        connection
            .unwrap(PGConnection.class)
            .getReplicationAPI()
            .replicationStream()
            .logical()
            .withSlotName(slot)
            .withSlotOption("proto_version", Integer.toString(protocolVersion))
            .withSlotOption("publication_names", PgNames.publicationNamesOption(publication))
            .withSlotOption("messages", "true")
            .withStatusInterval((int) statusIntervalMs, TimeUnit.MILLISECONDS);
    if (protocolVersion >= 2 && streaming) {
      builder.withSlotOption("streaming", "on");
    }
    if (from != 0) {
      builder.withStartPosition(LogSequenceNumber.valueOf(from));
    }
    return builder.start();
  }

  /**
   * Aborts {@code c} (from another thread): closes its socket, so a read or write blocked on it
   * ends; nothing when null, failures logged at DEBUG.
   */
  public static void abort(Connection c, String slot) {
    if (c == null) {
      return;
    }
    try {
      c.abort(Runnable::run);
    } catch (SQLException | RuntimeException e) {
      LOG.debug("Aborting the replication connection of slot {}: {}", slot, e.toString());
    }
  }

  /**
   * Ends the walsender {@code pid} if it still holds {@code slot} (only that one: a slot taken over
   * by another walsender is left alone). A role may terminate its own backends. Failure is logged,
   * not thrown: then the slot is released by wal_sender_timeout, and a task started meanwhile
   * retries (SQLSTATE 55006 is a connection loss to it).
   */
  public static void terminateWalsender(PgEndpoint endpoint, String slot, int pid) {
    try (Connection c = endpoint.connect()) {
      String sql =
          c.getMetaData().getDatabaseMajorVersion() >= 14 ? TERMINATE_AND_WAIT_SQL : TERMINATE_SQL;
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setQueryTimeout(10);
        ps.setString(1, slot);
        ps.setInt(2, pid);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            LOG.info(
                "Terminated walsender {} that still held slot {} after its connection was aborted"
                    + " ({})",
                pid,
                slot,
                rs.getBoolean(1) ? "it exited" : "not yet exited");
          } else {
            LOG.debug("Walsender {} no longer holds slot {}", pid, slot);
          }
        }
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "Could not terminate walsender {} of slot {} after aborting its connection: {}; the slot"
              + " stays active until PostgreSQL notices the lost connection (wal_sender_timeout)",
          pid,
          slot,
          e.toString());
    }
  }
}
