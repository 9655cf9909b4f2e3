package io.trellara.source.signal;

import io.trellara.protocol.LogText;
import io.trellara.protocol.Lsn;
import io.trellara.source.replication.SourceSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes an online snapshot's watermark: a non-transactional logical message after its consistent
 * point, so the stream passes the point even when nothing else commits. Not needed for correctness:
 * without it the snapshot is published before the first transaction committing at or after the
 * point. A read-only source cannot write it, and that is how one is recognised: the write fails
 * with {@code insufficient_privilege} (42501: no EXECUTE on {@code pg_logical_emit_message}) or
 * {@code read_only_sql_transaction} (25006: {@code default_transaction_read_only}); on a hot
 * standby PostgreSQL 17 answers {@code internal_error} (XX000, "cannot make new WAL entries during
 * recovery"), so after any other failure the source asks {@code pg_is_in_recovery()}. Asking only
 * first would miss the read-only role and race a promotion: the write's own answer counts.
 */
final class Watermarks {
  private static final Logger LOG = LoggerFactory.getLogger(Watermarks.class);

  static final String INSUFFICIENT_PRIVILEGE = "42501";
  static final String READ_ONLY_TRANSACTION = "25006";

  private Watermarks() {}

  /** Writes the watermark of signal {@code id} (its consistent point for the log); never throws. */
  static void write(SourceSettings settings, String id, long consistentPoint) {
    try (Connection c = settings.endpoint().connect();
        PreparedStatement ps = c.prepareStatement("SELECT pg_logical_emit_message(false, ?, ?)")) {
      ps.setString(1, OnlineSnapshots.WATERMARK_PREFIX);
      ps.setString(2, id);
      ps.execute();
    } catch (SQLException e) {
      if (readOnly(e) || inRecovery(settings)) {
        LOG.info(
            "Signal {}: the source is read-only here ({}): no watermark is written; the snapshot at"
                + " {} is published before the first transaction committing at or after it (on an"
                + " idle source it waits for the next commit)",
            LogText.escape(id),
            LogText.escape(e.getMessage()),
            Lsn.format(consistentPoint));
      } else {
        LOG.warn(
            "Signal {}: the watermark message could not be written ({}); the snapshot at {} is"
                + " published before the next transaction committed on the source",
            LogText.escape(id),
            LogText.escape(e.getMessage()),
            Lsn.format(consistentPoint));
      }
    }
  }

  /** True when the source is a standby (asked after a failed write; false when it cannot say). */
  private static boolean inRecovery(SourceSettings settings) {
    try (Connection c = settings.endpoint().connect();
        PreparedStatement ps = c.prepareStatement("SELECT pg_is_in_recovery()");
        java.sql.ResultSet rs = ps.executeQuery()) {
      return rs.next() && rs.getBoolean(1);
    } catch (SQLException e) {
      return false;
    }
  }

  static boolean readOnly(SQLException e) {
    return INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())
        || READ_ONLY_TRANSACTION.equals(e.getSQLState());
  }
}
