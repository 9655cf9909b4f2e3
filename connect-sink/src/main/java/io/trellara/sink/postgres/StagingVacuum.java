package io.trellara.sink.postgres;

import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@code trellara_sink.staged_chunks} small. Cross-task barriers use it as a queue: a lane
 * task inserts chunks, the task holding the barrier reads them back and deletes them with its
 * apply, hundreds of times a second. Autovacuum visits a database at most once per {@code
 * autovacuum_naptime} (a minute by default), and until it does every look, staged-bytes sum and
 * sweep of a flow walks the dead row versions the earlier sweeps left: in a 2-task W1 run the table
 * held 15,000 dead rows against a few hundred live ones, and the target spent 1.1 ms of CPU per
 * transaction, against 0.68 ms with the table vacuumed every second (docs/benchmarks.md).
 *
 * <p>So once this task's applies have deleted {@link #AFTER_CHUNKS} staged chunks, and at most once
 * a second, it runs {@code VACUUM (SKIP_LOCKED)} on the table between two target transactions, on
 * its own session: a few milliseconds for a table of a few hundred live rows, never waiting for a
 * lock (another task's vacuum of it is simply skipped), bounded by the apply watchdog like any
 * target statement. Housekeeping never fails apply: a role that may not vacuum the table (it does
 * not own it) is told once and stops trying; any other failure is logged and tried again later.
 */
final class StagingVacuum {
  private static final Logger LOG = LoggerFactory.getLogger(StagingVacuum.class);

  static final String VACUUM = "VACUUM (SKIP_LOCKED) trellara_sink.staged_chunks";

  /** Staged chunks deleted before a vacuum is worth its pass over the table. */
  static final long AFTER_CHUNKS = 1_000;

  private static final long EVERY_NANOS = 1_000_000_000L;

  private final String sinkName;
  private final AtomicLong runs;
  private final LongSupplier nanoClock;
  private long afterChunks = AFTER_CHUNKS;
  private long deleted;
  private long last;
  private boolean refused;

  /** {@code runs}: counts the vacuums run (JMX StagingVacuums). */
  StagingVacuum(String sinkName, AtomicLong runs, LongSupplier nanoClock) {
    this.sinkName = sinkName;
    this.runs = runs;
    this.nanoClock = nanoClock;
    this.last = nanoClock.getAsLong() - EVERY_NANOS;
  }

  /**
   * For tests: vacuum after {@code chunks} deleted staged chunks instead of {@link #AFTER_CHUNKS}.
   */
  void after(long chunks) {
    afterChunks = chunks;
  }

  /** A committed target transaction of this task deleted {@code chunks} staged chunks. */
  void deleted(long chunks) {
    deleted += chunks;
  }

  /** True when enough chunks were deleted since the last vacuum, and a second has passed. */
  boolean due() {
    return !refused && deleted >= afterChunks && nanoClock.getAsLong() - last >= EVERY_NANOS;
  }

  /** Vacuums the table when {@link #due}; returns true when it did. */
  boolean runIfDue(RetryingExecutor executor) {
    if (!due()) {
      return false;
    }
    last = nanoClock.getAsLong();
    try {
      List<String> warnings =
          executor
              .maintain(
                  "vacuum of trellara_sink.staged_chunks", s -> s.executeOutsideTransaction(VACUUM))
              .orElse(null);
      if (warnings == null) {
        return false; // no session open: the next apply opens one, and the vacuum follows it
      }
      deleted = 0;
      for (String w : warnings) {
        String m = w.toLowerCase(Locale.ROOT);
        if (m.contains("permission denied") || m.contains("only table or database owner")) {
          refused = true;
          LOG.info(
              "Sink {} may not vacuum trellara_sink.staged_chunks ({}): it is left to autovacuum;"
                  + " cross-task barriers read through more dead rows until autovacuum visits"
                  + " (own the table, or GRANT MAINTAIN on PostgreSQL 17+)",
              sinkName,
              w);
          return false;
        }
      }
      runs.incrementAndGet();
      return true;
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "Sink {}: vacuum of trellara_sink.staged_chunks failed (tried again after {} more"
              + " deleted chunks): {}",
          sinkName,
          afterChunks,
          e.getMessage());
      deleted = 0;
      return false;
    }
  }

  /** True once the role was found unable to vacuum the table. */
  boolean refused() {
    return refused;
  }
}
