package io.trellara.source.pg;

import io.trellara.protocol.Lsn;
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
 *
 * <p>The lag in seconds is how long ago the server's WAL was where the slot is: the sampler keeps
 * the server's position of the last hour of samples, and the lag is the age of the newest sample
 * whose position the slot has reached (at least the age of the oldest kept, when it reached none).
 * Above {@code slot.lag.warn.bytes} it warns once, and says so when the lag is below again; the
 * first sample reports {@code max_slot_wal_keep_size} and what it means for this slot.
 */
public final class SlotLagSampler implements AutoCloseable {
  static final String QUERY =
      """
            SELECT pg_current_wal_lsn()::text, confirmed_flush_lsn::text,
                   pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint, wal_status,
                   coalesce(safe_wal_size, -1), pg_catalog.current_setting('max_slot_wal_keep_size')
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
   * invalidates the slot (-1: no limit); {@code lagSeconds} how long ago the server's WAL was where
   * the slot is (-1 unknown), {@code maxSlotWalKeepSize} the server's setting as it shows it.
   */
  public record Sample(
      long lagBytes,
      String currentWalLsn,
      String confirmedFlushLsn,
      long sampledAtMs,
      String walStatus,
      long safeWalBytes,
      long lagSeconds,
      String maxSlotWalKeepSize) {
    /** What the attributes read before the first sample: -1 and null. */
    public static final Sample UNKNOWN = new Sample(-1, null, null, -1, null, -1, -1, null);
  }

  /** Samples of the server's position kept for the lag in seconds: an hour at one per 5 s. */
  static final int POSITIONS_KEPT = 720;

  private final PgEndpoint endpoint;
  private final String slotName;
  private final long warnBytes;
  private final long[] positionAt = new long[POSITIONS_KEPT]; // ring: sample time, ms
  private final long[] position = new long[POSITIONS_KEPT]; // ring: server WAL position
  private int positions; // how many of the ring hold a sample
  private int next; // where the next sample goes
  private Connection connection;
  private volatile Sample last;
  private volatile String lastError;
  private String lastWarning;

  public SlotLagSampler(PgEndpoint endpoint, String slotName) {
    this(endpoint, slotName, WalGuard.DEFAULT_SLOT_LAG_WARN_BYTES);
  }

  /** Warning above {@code warnBytes} of retained WAL (slot.lag.warn.bytes; 0: never). */
  public SlotLagSampler(PgEndpoint endpoint, String slotName, long warnBytes) {
    this.endpoint = endpoint;
    this.slotName = slotName;
    this.warnBytes = warnBytes;
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
          long now = System.currentTimeMillis();
          Sample s;
          if (rs.next()) {
            long lagSeconds = lagSeconds(now, rs.getString(1), rs.getString(2), rs.getLong(3));
            s =
                new Sample(
                    rs.getLong(3),
                    rs.getString(1),
                    rs.getString(2),
                    now,
                    rs.getString(4),
                    rs.getLong(5),
                    lagSeconds,
                    rs.getString(6));
          } else {
            s = new Sample(-1, null, null, now, null, -1, -1, null);
          }
          if (last == null && s.maxSlotWalKeepSize() != null) {
            LOG.info(limitReport(slotName, s, warnBytes));
          }
          String warning = warning(slotName, s, warnBytes);
          if (warning != null && !warning.equals(lastWarning)) {
            LOG.warn(warning);
          } else if (warning == null && lastWarning != null) {
            LOG.info(
                "Replication slot {} is within its bounds again (retained WAL {} MiB, wal_status {})",
                slotName,
                s.lagBytes() >> 20,
                s.walStatus());
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
   * Seconds since the server's WAL was at {@code confirmed}: the age of the newest kept sample of
   * the server's position at or before it. Records {@code current} for the samples to come.
   */
  private long lagSeconds(long now, String current, String confirmed, long lagBytes) {
    if (current == null) {
      return -1;
    }
    long cur = Lsn.parse(current).value();
    positionAt[next] = now;
    position[next] = cur;
    next = (next + 1) % POSITIONS_KEPT;
    positions = Math.min(positions + 1, POSITIONS_KEPT);
    if (lagBytes <= 0 || confirmed == null) {
      return 0;
    }
    long reached = Lsn.parse(confirmed).value();
    long oldest = now;
    for (int i = 1; i <= positions; i++) { // newest first
      int at = Math.floorMod(next - i, POSITIONS_KEPT);
      if (Long.compareUnsigned(position[at], reached) <= 0) {
        return (now - positionAt[at]) / 1000;
      }
      oldest = positionAt[at];
    }
    return (now - oldest) / 1000; // behind every sample kept: at least this
  }

  /** What the first sample says of the limit PostgreSQL puts on the WAL this slot retains. */
  static String limitReport(String slot, Sample s, long warnBytes) {
    String warn =
        warnBytes > 0
            ? "; slot.lag.warn.bytes warns above " + (warnBytes >> 20) + " MiB"
            : "; slot.lag.warn.bytes=0: no warning";
    if ("-1".equals(s.maxSlotWalKeepSize())) {
      return "Replication slot "
          + slot
          + ": max_slot_wal_keep_size is -1, so the WAL it retains (now "
          + (s.lagBytes() >> 20)
          + " MiB) is bounded only by the source's disk"
          + warn;
    }
    return "Replication slot "
        + slot
        + ": max_slot_wal_keep_size is "
        + s.maxSlotWalKeepSize()
        + " (retained WAL now "
        + (s.lagBytes() >> 20)
        + " MiB, wal_status "
        + s.walStatus()
        + "): past it PostgreSQL invalidates the slot and removes WAL not yet captured; the task"
        + " then fails, and at its next start snapshot.mode=when_needed snapshots again (named in"
        + " the log) where the other modes refuse to start"
        + warn;
  }

  /**
   * What an operator must hear about the slot's retained WAL, or null: a slot whose WAL is no
   * longer reserved (the next checkpoint may remove WAL it needs), one that lost WAL (it must be
   * re-created; changes in between are gone), or one close to {@code max_slot_wal_keep_size}.
   */
  static String warning(String slot, Sample s, long warnBytes) {
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
              : warnBytes > 0 && s.lagBytes() > warnBytes
                  ? "Replication slot "
                      + slot
                      + " retains "
                      + (s.lagBytes() >> 20)
                      + " MiB of WAL (about "
                      + s.lagSeconds()
                      + " s behind the server), above slot.lag.warn.bytes ("
                      + (warnBytes >> 20)
                      + " MiB; max_slot_wal_keep_size "
                      + s.maxSlotWalKeepSize()
                      + "): capture or Kafka is behind, and the WAL cannot be removed until it"
                      + " catches up"
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
