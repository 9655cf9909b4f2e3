package io.trellara.source.snapshot;

import io.trellara.protocol.Lsn;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What the online snapshots of one source task are doing, readable from any thread (JMX, the
 * capture thread's logs): the snapshot a signal asked for while it waits for its consistent point
 * (queued), while its tables are read (running: the table, rows, bytes, chunks, rows/s and the ETA
 * of the {@link SnapshotProgress} it reads with), the last one that ended (completed, failed or
 * cancelled) and the last signal refused.
 *
 * <p>One online snapshot at a time: a second snapshot signal while one is queued is refused (see
 * the signal package), so there is at most one queued or running. There is no paused state: an
 * online snapshot is read in one pass, so a pause-snapshot signal is refused and shows here as the
 * last refusal, never as a paused snapshot.
 *
 * <p>Transitions come from the capture thread only; readers see each one whole (immutable values
 * behind volatile fields).
 */
public final class OnlineSnapshotProgress {

  /** What the task's online snapshot is doing now. */
  public enum State {
    /** No online snapshot signalled, or the last one ended. */
    IDLE,
    /** Signalled, its slot created: waiting for the stream to reach its consistent point. */
    QUEUED,
    /** Its tables are being read and published. */
    RUNNING
  }

  /** How an online snapshot ended. */
  public enum Outcome {
    COMPLETED,
    FAILED,
    /** Stopped by a stop-snapshot signal, or by the task stopping, before it was read. */
    CANCELLED
  }

  /** What a signal asked for: its id, its tables and the consistent point of its snapshot. */
  public record Request(
      String signalId, List<String> tables, long consistentPoint, long queuedAtMs) {
    public Request {
      tables = List.copyOf(tables);
    }

    public String tablesText() {
      return String.join(", ", tables);
    }
  }

  /** An online snapshot that ended; {@code reason} null when it completed. */
  public record Finished(
      Request request,
      Outcome outcome,
      long rows,
      long bytes,
      long elapsedMs,
      long endedAtMs,
      String reason) {

    /**
     * One line: "reload-1 COMPLETED public.ledger at 0/1A2B3C: 20,000 rows, 1,234 bytes in 830 ms".
     */
    public String summary() {
      return String.format(
          Locale.ROOT,
          "%s %s %s at %s: %,d rows, %,d bytes in %d ms%s",
          request.signalId(),
          outcome,
          request.tablesText(),
          Lsn.format(request.consistentPoint()),
          rows,
          bytes,
          elapsedMs,
          reason == null ? "" : " (" + reason + ")");
    }
  }

  /** A signal refused: the action it asked for and why it was not carried out. */
  public record Refusal(String signalId, String action, String tables, String reason, long atMs) {
    public String summary() {
      return signalId + " " + action + (tables.isEmpty() ? "" : " " + tables) + ": " + reason;
    }
  }

  private record Current(State state, Request request, SnapshotProgress reading, long startedMs) {}

  private static final Current IDLE = new Current(State.IDLE, null, null, 0);

  private final LongSupplier clock;
  private volatile Current current = IDLE;
  private volatile Finished last;
  private volatile Refusal lastRefusal;
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong cancelled = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();

  public OnlineSnapshotProgress() {
    this(System::currentTimeMillis);
  }

  /** {@code clock}: epoch milliseconds (tests: a manual one). */
  public OnlineSnapshotProgress(LongSupplier clock) {
    this.clock = clock;
  }

  /** The signal {@code signalId} asked for a snapshot of {@code tables}, taken at {@code point}. */
  public void queued(String signalId, List<String> tables, long point) {
    current =
        new Current(State.QUEUED, new Request(signalId, tables, point, clock.getAsLong()), null, 0);
  }

  /**
   * The queued snapshot's tables begin to be read: the progress to read them with (its log lines
   * name the signal).
   */
  public SnapshotProgress started() {
    Current c = current;
    if (c.state() != State.QUEUED) {
      throw new IllegalStateException("no online snapshot is queued (" + c.state() + ")");
    }
    SnapshotProgress reading =
        new SnapshotProgress("Online snapshot of signal " + c.request().signalId());
    current = new Current(State.RUNNING, c.request(), reading, clock.getAsLong());
    return reading;
  }

  /** The running snapshot was published (committed to the pipeline). */
  public void completed() {
    end(Outcome.COMPLETED, null);
    completed.incrementAndGet();
  }

  /** The queued or running snapshot failed: {@code reason} says why. */
  public void failed(String reason) {
    end(Outcome.FAILED, reason);
    failed.incrementAndGet();
  }

  /** The queued snapshot will not be read: {@code reason} says why (stop-snapshot, task stop). */
  public void cancelled(String reason) {
    end(Outcome.CANCELLED, reason);
    cancelled.incrementAndGet();
  }

  /** The snapshot failed unless it ended already (a read that threw, the task stopping). */
  public void failedIfUnfinished(String reason) {
    if (current.state() != State.IDLE) {
      failed(reason);
    }
  }

  /** A signal was refused (never carried out). */
  public void refused(String signalId, String action, String tables, String reason) {
    lastRefusal = new Refusal(signalId, action, tables, reason, clock.getAsLong());
    refused.incrementAndGet();
  }

  private void end(Outcome outcome, String reason) {
    Current c = current;
    if (c.request() == null) {
      return;
    }
    long now = clock.getAsLong();
    SnapshotProgress r = c.reading();
    last =
        new Finished(
            c.request(),
            outcome,
            r == null ? 0 : r.rows(),
            r == null ? 0 : r.bytes(),
            c.startedMs() == 0 ? 0 : now - c.startedMs(),
            now,
            reason);
    current = IDLE;
  }

  public State state() {
    return current.state();
  }

  /** The queued or running snapshot's request; null when idle. */
  public Request request() {
    return current.request();
  }

  /** How long the queued or running snapshot has waited since its signal was taken; 0 idle. */
  public long sinceSignalMs() {
    Request r = current.request();
    return r == null ? 0 : clock.getAsLong() - r.queuedAtMs();
  }

  /** The running snapshot's reads; null when none runs. */
  public SnapshotProgress reading() {
    return current.reading();
  }

  /**
   * Tables of the queued or running snapshot not yet begun: every one while queued; while running,
   * those after the one being read.
   */
  public long tablesQueued() {
    Current c = current;
    if (c.state() == State.QUEUED) {
      return c.request().tables().size();
    }
    if (c.state() != State.RUNNING) {
      return 0;
    }
    SnapshotProgress r = c.reading();
    long total = r.tablesTotal() == 0 ? c.request().tables().size() : r.tablesTotal();
    return Math.max(0, total - r.tablesDone() - (r.currentTable().isEmpty() ? 0 : 1));
  }

  /** Seconds left of the running snapshot's reads, from pg_class.reltuples; -1 unknown or none. */
  public long etaSeconds() {
    SnapshotProgress r = current.reading();
    return r == null ? -1 : r.etaSeconds(clock.getAsLong());
  }

  public double rowsPerSecond() {
    SnapshotProgress r = current.reading();
    return r == null ? 0 : r.rowsPerSecond(clock.getAsLong());
  }

  /** The last online snapshot that ended; null none yet. */
  public Finished last() {
    return last;
  }

  /** The last signal refused; null none yet. */
  public Refusal lastRefusal() {
    return lastRefusal;
  }

  public long completedCount() {
    return completed.get();
  }

  public long failedCount() {
    return failed.get();
  }

  public long cancelledCount() {
    return cancelled.get();
  }

  public long refusedCount() {
    return refused.get();
  }
}
