package io.trellara.source.pg;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Measures how far the replication slot trails the server's WAL: {@code pg_current_wal_lsn() -
 * confirmed_flush_lsn} of the slot, on an ordinary (non-replication) connection kept open between
 * samples. Meant to be called every few seconds from one scheduler thread, never per record. A
 * failed sample closes the connection (the next sample reconnects) and leaves the previous values
 * in place; it never affects capture.
 */
public final class SlotLagSampler implements AutoCloseable {
  static final String QUERY =
      """
            SELECT pg_current_wal_lsn()::text, confirmed_flush_lsn::text,
                   pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint, wal_status,
                   coalesce(safe_wal_size, -1)
              FROM pg_replication_slots WHERE slot_name = ?""";

  /**
   * Below this much WAL left before max_slot_wal_keep_size invalidates the slot, a warning is
   * logged.
   */
  static final long SAFE_WAL_WARNING_BYTES = 256L << 20;

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(SlotLagSampler.class);

  /**
   * One successful sample; {@code lagBytes} is -1 when the slot does not exist (yet). {@code
   * walStatus} is the slot's {@code wal_status} (reserved, extended, unreserved, lost) and {@code
   * safeWalBytes} how much more WAL may be written before {@code max_slot_wal_keep_size}
   * invalidates the slot (-1: no limit).
   */
  public record Sample(
      long lagBytes,
      String currentWalLsn,
      String confirmedFlushLsn,
      long sampledAtMs,
      String walStatus,
      long safeWalBytes) {}

  private final PgEndpoint endpoint;
  private final String slotName;
  private Connection connection;
  private volatile Sample last;
  private volatile String lastError;
  private String lastWarning;

  public SlotLagSampler(PgEndpoint endpoint, String slotName) {
    this.endpoint = endpoint;
    this.slotName = slotName;
  }

  /** Takes one sample; returns it, or null when the query failed (see {@link #lastError()}). */
  public synchronized Sample sample() {
    try {
      if (connection == null || connection.isClosed()) {
        connection = endpoint.connect();
      }
      try (PreparedStatement ps = connection.prepareStatement(QUERY)) {
        ps.setQueryTimeout(10);
        ps.setString(1, slotName);
        try (ResultSet rs = ps.executeQuery()) {
          Sample s =
              rs.next()
                  ? new Sample(
                      rs.getLong(3),
                      rs.getString(1),
                      rs.getString(2),
                      System.currentTimeMillis(),
                      rs.getString(4),
                      rs.getLong(5))
                  : new Sample(-1, null, null, System.currentTimeMillis(), null, -1);
          String warning = warning(slotName, s);
          if (warning != null && !warning.equals(lastWarning)) {
            LOG.warn(warning);
          }
          lastWarning = warning;
          last = s;
          lastError = null;
          return s;
        }
      }
    } catch (SQLException | RuntimeException e) {
      lastError = e.getMessage();
      closeQuietly();
      return null;
    }
  }

  /**
   * What an operator must hear about the slot's retained WAL, or null: a slot whose WAL is no
   * longer reserved (the next checkpoint may remove WAL it needs), one that lost WAL (it must be
   * re-created; changes in between are gone), or one close to {@code max_slot_wal_keep_size}.
   */
  static String warning(String slot, Sample s) {
    if (s.walStatus() == null) {
      return null;
    }
    String retained = " (retained WAL " + s.lagBytes() / (1 << 20) + " MiB)";
    return switch (s.walStatus()) {
      case "lost" ->
          "Replication slot "
              + slot
              + " has lost WAL it needed"
              + retained
              + ": max_slot_wal_keep_size"
              + " was exceeded and changes were removed before capture; re-create the slot and resynchronise";
      case "unreserved" ->
          "Replication slot "
              + slot
              + " retains more WAL than max_slot_wal_keep_size"
              + retained
              + ": the next checkpoint may remove WAL it still needs; find out why capture is behind";
      default ->
          s.safeWalBytes() >= 0 && s.safeWalBytes() < SAFE_WAL_WARNING_BYTES
              ? "Replication slot "
                  + slot
                  + " is "
                  + s.safeWalBytes() / (1 << 20)
                  + " MiB from"
                  + " max_slot_wal_keep_size"
                  + retained
                  + "; capture is behind"
              : null;
    };
  }

  /** The last successful sample, or null before the first. */
  public Sample last() {
    return last;
  }

  /** Why the last sample failed, or null when it succeeded. */
  public String lastError() {
    return lastError;
  }

  private void closeQuietly() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // the connection is being discarded; nothing to tell anyone
      }
      connection = null;
    }
  }

  @Override
  public synchronized void close() {
    closeQuietly();
  }
}
