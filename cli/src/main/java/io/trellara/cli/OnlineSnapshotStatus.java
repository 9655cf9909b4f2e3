package io.trellara.cli;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The online (signalled) snapshots in {@code trellara status}, from where each fact is true and
 * cheap to read:
 *
 * <ul>
 *   <li>the source task's JMX bean ({@code --jmx}): the whole picture, queued or running (signal,
 *       tables, consistent point, table, rows, bytes, chunks, rows/s, ETA), the last one that
 *       ended, the signals refused;
 *   <li>the source database ({@code --source-jdbc}), without JMX: an online snapshot's temporary
 *       slot {@code <slot>_resnap} exists while it waits for its consistent point (its
 *       confirmed_flush_lsn is that point), and the table it copies is in pg_stat_progress_copy
 *       under the application_name {@code trellara-snapshot:<slot>_resnap};
 *   <li>the target database ({@code --target-jdbc}): each snapshot transaction the sink applied
 *       (initial or online) is a row of trellara_sink.applied_transactions with transaction_id
 *       {@code snapshot}: the last one's commit LSN, rows and time are the end of the load as the
 *       target saw it.
 * </ul>
 */
final class OnlineSnapshotStatus {
  /** The suffix of an online snapshot's temporary slot (the source's OnlineSnapshots). */
  static final String SLOT_SUFFIX = "_resnap";

  private static final int MAX_NAME_BYTES = 63;

  static final String QUEUED_SLOT =
      """
            SELECT confirmed_flush_lsn::text FROM pg_replication_slots
             WHERE slot_name = ? AND temporary""";

  static final String SNAPSHOTS_APPLIED =
      """
            SELECT DISTINCT ON (sink_name, source_id) sink_name, source_id, commit_lsn::text,
                   change_count, applied_at::text,
                   count(*) OVER (PARTITION BY sink_name, source_id)
              FROM trellara_sink.applied_transactions WHERE transaction_id = 'snapshot'
             ORDER BY sink_name, source_id, commit_lsn_value DESC, applied_at DESC""";

  private OnlineSnapshotStatus() {}

  /** The temporary slot of {@code slot}'s online snapshots: its name and the suffix, within 63. */
  static String slotName(String slot) {
    String base =
        slot.length() + SLOT_SUFFIX.length() > MAX_NAME_BYTES
            ? slot.substring(0, MAX_NAME_BYTES - SLOT_SUFFIX.length())
            : slot;
    return base + SLOT_SUFFIX;
  }

  /**
   * A source task's online snapshot lines from its JMX attributes; none when the bean has no online
   * snapshot attributes (a sink task, or a worker older than them).
   */
  static List<String> fromJmx(String task, Map<String, Object> a) {
    List<String> out = new ArrayList<>();
    Object state = a.get("OnlineSnapshotState");
    if (state == null) {
      return out;
    }
    String prefix = "  task " + task + "  online_snapshot  ";
    if ("QUEUED".equals(state)) {
      out.add(
          prefix
              + "state=QUEUED  signal="
              + a.get("OnlineSnapshotSignalId")
              + "  tables="
              + a.get("OnlineSnapshotTables")
              + "  consistent_point="
              + a.get("OnlineSnapshotConsistentPoint")
              + "  waiting_ms="
              + a.get("OnlineSnapshotSinceSignalMs"));
    } else if ("RUNNING".equals(state)) {
      out.add(
          prefix
              + "state=RUNNING  signal="
              + a.get("OnlineSnapshotSignalId")
              + "  tables="
              + a.get("OnlineSnapshotTables")
              + "  consistent_point="
              + a.get("OnlineSnapshotConsistentPoint")
              + "  tables_done="
              + a.get("OnlineSnapshotTablesDone")
              + "/"
              + a.get("OnlineSnapshotTablesTotal")
              + "  tables_queued="
              + a.get("OnlineSnapshotTablesQueued")
              + "  table="
              + a.get("OnlineSnapshotCurrentTable")
              + "  table_rows="
              + a.get("OnlineSnapshotCurrentTableRows")
              + "  chunks="
              + a.get("OnlineSnapshotChunksDone")
              + "/"
              + unknown(a.get("OnlineSnapshotChunksTotal"))
              + "  rows="
              + a.get("OnlineSnapshotRows")
              + "  bytes="
              + a.get("OnlineSnapshotBytes")
              + "  rows_per_s="
              + rate(a.get("OnlineSnapshotRowsPerSecond"))
              + "  eta_s="
              + unknown(a.get("OnlineSnapshotEtaSeconds")));
    } else {
      out.add(prefix + "state=" + state);
    }
    Object outcome = a.get("OnlineSnapshotLastOutcome");
    if (outcome != null) {
      out.add(
          "  task "
              + task
              + "  online_snapshot_last  outcome="
              + outcome
              + "  signal="
              + a.get("OnlineSnapshotLastSignalId")
              + "  tables="
              + a.get("OnlineSnapshotLastTables")
              + "  rows="
              + a.get("OnlineSnapshotLastRows")
              + "  bytes="
              + a.get("OnlineSnapshotLastBytes")
              + "  elapsed_ms="
              + a.get("OnlineSnapshotLastElapsedMs")
              + "  ended_at="
              + instant(a.get("OnlineSnapshotLastEndedAtMs")));
    }
    out.add(
        "  task "
            + task
            + "  online_snapshot_counts  completed="
            + a.get("OnlineSnapshotsCompleted")
            + "  failed="
            + a.get("OnlineSnapshotsFailed")
            + "  cancelled="
            + a.get("OnlineSnapshotsCancelled")
            + "  signals_refused="
            + a.get("OnlineSnapshotSignalsRefused")
            + (a.get("OnlineSnapshotLastRefusal") == null
                ? ""
                : "  last_refusal=" + oneLine(a.get("OnlineSnapshotLastRefusal"))));
    return out;
  }

  /**
   * The source database's view of {@code slot}'s online snapshot: queued (its temporary slot
   * exists) or copying a table (pg_stat_progress_copy, PostgreSQL 14+); nothing when neither.
   */
  static List<String> fromSource(Connection source, String slot) throws SQLException {
    List<String> out = new ArrayList<>();
    String online = slotName(slot);
    StatusQueries.SnapshotCopy copy = StatusQueries.snapshotCopy(source, online);
    if (copy != null) {
      out.add(copy.line("online_snapshot"));
      return out;
    }
    try (PreparedStatement ps = source.prepareStatement(QUEUED_SLOT)) {
      ps.setString(1, online);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          out.add(
              "  online_snapshot  queued  slot="
                  + online
                  + "  consistent_point="
                  + rs.getString(1)
                  + " (waiting for the stream to reach it)");
        }
      }
    }
    return out;
  }

  /**
   * The last snapshot transaction each sink applied, per source (initial or online); {@code
   * onlySinks} null: every sink.
   */
  static List<String> fromTarget(Connection target, Set<String> onlySinks) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = target.prepareStatement(SNAPSHOTS_APPLIED);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (onlySinks == null || onlySinks.contains(rs.getString(1))) {
          out.add(
              "  snapshot_applied  sink="
                  + rs.getString(1)
                  + "  source="
                  + rs.getString(2)
                  + "  snapshots="
                  + rs.getLong(6)
                  + "  last_commit_lsn="
                  + rs.getString(3)
                  + "  last_rows="
                  + rs.getLong(4)
                  + "  last_applied_at="
                  + rs.getString(5));
        }
      }
    }
    return out;
  }

  private static String unknown(Object v) {
    return v instanceof Number n && n.longValue() < 0 ? "?" : String.valueOf(v);
  }

  private static String rate(Object v) {
    return v instanceof Number n ? Long.toString(Math.round(n.doubleValue())) : String.valueOf(v);
  }

  private static String instant(Object ms) {
    return ms instanceof Number n && n.longValue() > 0
        ? Instant.ofEpochMilli(n.longValue()).toString()
        : "?";
  }

  private static String oneLine(Object v) {
    return String.valueOf(v).replace('\n', ' ').replace('\r', ' ');
  }
}
