package io.trellara.cli;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The read-only SQL of {@code trellara status}: a source slot's lag and the target's checkpoint
 * tables.
 */
final class StatusQueries {
  static final String SLOT =
      """
            SELECT active, confirmed_flush_lsn::text, pg_current_wal_lsn()::text,
                   pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint, wal_status,
                   coalesce(safe_wal_size, -1)
              FROM pg_replication_slots WHERE slot_name = ?""";
  static final String PROGRESS =
      """
            SELECT sink_name, topic, kafka_partition, next_offset, updated_at::text
              FROM trellara_sink.progress ORDER BY sink_name, topic, kafka_partition""";
  static final String OWNERS =
      """
            SELECT sink_name, topic, kafka_partition, owner, claimed_at::text FROM trellara_sink.partition_owners""";
  static final String APPLIED =
      """
            SELECT sink_name, source_id, count(*), max(commit_lsn)::text, max(commit_timestamp)::text,
                   max(applied_at)::text
              FROM trellara_sink.applied_transactions GROUP BY sink_name, source_id ORDER BY sink_name, source_id""";

  /**
   * The snapshot a source task is reading right now (PostgreSQL 14+: pg_stat_progress_copy), found
   * by the application_name its snapshot connection carries, {@code trellara-snapshot:<slot>}.
   */
  static final String SNAPSHOT_COPY =
      """
            SELECT p.relid::regclass::text, p.tuples_processed, p.bytes_processed,
                   (extract(epoch FROM now() - a.xact_start) * 1000)::bigint
              FROM pg_stat_progress_copy p JOIN pg_stat_activity a ON a.pid = p.pid
             WHERE a.application_name = ?""";

  record SnapshotCopy(String table, long rows, long bytes, long transactionMs) {
    /** The status line of this copy under {@code label} ("snapshot", "online_snapshot"). */
    String line(String label) {
      return "  "
          + label
          + "  reading="
          + table
          + "  rows_copied="
          + rows
          + "  bytes_copied="
          + bytes
          + "  running_for_ms="
          + transactionMs;
    }
  }

  /** The table the slot's snapshot is copying, or null when none is (or the server predates 14). */
  static SnapshotCopy snapshotCopy(Connection c, String slotName) throws SQLException {
    if (c.getMetaData().getDatabaseMajorVersion() < 14) {
      return null;
    }
    try (PreparedStatement ps = c.prepareStatement(SNAPSHOT_COPY)) {
      ps.setString(1, "trellara-snapshot:" + slotName);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? new SnapshotCopy(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4))
            : null;
      }
    }
  }

  /**
   * The slot's position; {@code lagBytes} is the WAL it retains, {@code safeWalBytes} -1 when
   * unlimited.
   */
  record SlotLag(
      boolean active,
      String confirmedFlushLsn,
      String currentWalLsn,
      long lagBytes,
      String walStatus,
      long safeWalBytes) {}

  record Progress(
      String sinkName, String topic, int partition, long nextOffset, String updatedAt) {}

  record Applied(
      String sinkName,
      String sourceId,
      long transactions,
      String newestCommitLsn,
      String newestCommit,
      String lastAppliedAt) {}

  private StatusQueries() {}

  static Connection connect(String url, String user, String password) throws SQLException {
    Properties p = new Properties();
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    p.setProperty("ApplicationName", "trellara-cli");
    p.setProperty("connectTimeout", "10");
    Connection c = DriverManager.getConnection(url, p);
    try (var st = c.createStatement()) {
      st.execute("SET TimeZone = 'UTC'"); // timestamps print the same wherever the tool runs
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** The slot's lag, or null when no slot has that name. */
  static SlotLag slot(Connection c, String slotName) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SLOT)) {
      ps.setString(1, slotName);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? new SlotLag(
                rs.getBoolean(1),
                rs.getString(2),
                rs.getString(3),
                rs.getLong(4),
                rs.getString(5),
                rs.getLong(6))
            : null;
      }
    }
  }

  static List<Progress> progress(Connection c) throws SQLException {
    List<Progress> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(PROGRESS);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(
            new Progress(
                rs.getString(1), rs.getString(2), rs.getInt(3), rs.getLong(4), rs.getString(5)));
      }
    }
    return out;
  }

  /**
   * Which sink task owns each partition ({@code owner since claimed_at}), keyed {@code
   * sink/topic/partition}; empty for a target whose sink predates fencing (no table).
   */
  static java.util.Map<String, String> owners(Connection c) throws SQLException {
    java.util.Map<String, String> out = new java.util.HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(OWNERS);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(
            rs.getString(1) + '/' + rs.getString(2) + '/' + rs.getInt(3),
            rs.getString(4) + " since " + rs.getString(5));
      }
    } catch (SQLException e) {
      if (!"42P01".equals(e.getSQLState())) {
        throw e;
      }
    }
    return out;
  }

  static List<Applied> applied(Connection c) throws SQLException {
    List<Applied> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(APPLIED);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(
            new Applied(
                rs.getString(1),
                rs.getString(2),
                rs.getLong(3),
                rs.getString(4),
                rs.getString(5),
                rs.getString(6)));
      }
    }
    return out;
  }
}
