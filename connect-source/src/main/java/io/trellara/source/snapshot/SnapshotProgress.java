package io.trellara.source.snapshot;

import io.trellara.connect.common.liveness.Stage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How far the snapshot is, readable from any thread (JMX, logs): tables done of total, rows and
 * bytes read, the rate since it began and an estimate of the time left from the tables'
 * pg_class.reltuples.
 */
public final class SnapshotProgress {
  public enum State {
    NOT_NEEDED,
    RUNNING,
    COMPLETED,
    FAILED
  }

  private final AtomicReference<State> state = new AtomicReference<>(State.NOT_NEEDED);
  private final AtomicLong tablesTotal = new AtomicLong();
  private final AtomicLong tablesDone = new AtomicLong();
  private final AtomicLong rows = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong estimatedRows = new AtomicLong();
  private final AtomicLong startedMs = new AtomicLong();
  private final AtomicLong endedMs = new AtomicLong();
  private final AtomicReference<String> currentTable = new AtomicReference<>("");
  private final AtomicLong tableRows = new AtomicLong();
  private final AtomicLong tableEstimate = new AtomicLong(-1);
  private final AtomicLong chunkRows = new AtomicLong();
  private final String label;

  /** The initial snapshot's. */
  public SnapshotProgress() {
    this("Snapshot");
  }

  /** {@code label} begins its log lines, e.g. "Online snapshot of signal reload-1". */
  public SnapshotProgress(String label) {
    this.label = label;
  }

  /** What begins its log lines: "Snapshot", or the online snapshot and its signal. */
  public String label() {
    return label;
  }

  /** The snapshot's liveness stage: rows flowing are its progress; null when not watched. */
  private volatile Stage stage;

  /**
   * Reports the snapshot's progress to {@code snapshotStage} (rows read are progress; it waits
   * while a table is read and is idle once the snapshot ended).
   */
  public void watch(Stage snapshotStage) {
    this.stage = snapshotStage;
  }

  void started(int tables, long estimated, long nowMs) {
    tablesTotal.set(tables);
    estimatedRows.set(Math.max(estimated, 0));
    startedMs.set(nowMs);
    state.set(State.RUNNING);
  }

  /** The table read now, its chunks not counted (one replayed from a read-ahead file). */
  void table(String name) {
    tableRows.set(0);
    tableEstimate.set(-1);
    chunkRows.set(0);
    enter(name);
  }

  private void enter(String name) {
    currentTable.set(name);
    Stage s = stage;
    if (s != null) {
      s.waiting("rows of table " + name + " from the snapshot's COPY");
      s.progress();
    }
  }

  /**
   * The table read now, with what its chunks are counted by: its pg_class.reltuples ({@code
   * estimated}, negative unknown) and its key ranges of {@code rangeRows} rows (0: read in one
   * COPY, one chunk).
   */
  void table(SnapshotTable t, long rangeRows) {
    tableRows.set(0);
    tableEstimate.set(t.estimatedRows());
    chunkRows.set(rangeRows > 0 && !t.orderKey().isEmpty() ? rangeRows : 0);
    enter(t.display());
  }

  /** Rows of the current table read so far (set every so many rows, not per row). */
  void tableRows(long n) {
    tableRows.set(n);
  }

  void row(int length) {
    rows.incrementAndGet();
    bytes.addAndGet(length);
    moved();
  }

  /** Something moved without a new row read (a row replayed from a read-ahead file). */
  void moved() {
    Stage s = stage;
    if (s != null) {
      s.progress();
    }
  }

  void tableDone() {
    tablesDone.incrementAndGet();
  }

  void ended(boolean completed, long nowMs) {
    endedMs.set(nowMs);
    currentTable.set("");
    state.set(completed ? State.COMPLETED : State.FAILED);
    Stage s = stage;
    if (s != null) {
      s.idle();
    }
  }

  public State state() {
    return state.get();
  }

  public long tablesTotal() {
    return tablesTotal.get();
  }

  public long tablesDone() {
    return tablesDone.get();
  }

  public long rows() {
    return rows.get();
  }

  public long bytes() {
    return bytes.get();
  }

  public String currentTable() {
    return currentTable.get();
  }

  /** Rows of the table being read; 0 when none is. */
  public long tableRows() {
    return currentTable.get().isEmpty() ? 0 : tableRows.get();
  }

  /** Chunks (key ranges) of the table being read that are complete. */
  public long chunksDone() {
    long per = chunkRows.get();
    return per == 0 || currentTable.get().isEmpty() ? 0 : tableRows.get() / per;
  }

  /**
   * Chunks of the table being read in all, from its pg_class.reltuples (at least one more than
   * done); 1 for a table read in one COPY; -1 unknown (never analysed) or no table read.
   */
  public long chunksTotal() {
    if (currentTable.get().isEmpty()) {
      return -1;
    }
    long per = chunkRows.get();
    if (per == 0) {
      return 1;
    }
    long estimate = tableEstimate.get();
    if (estimate < 0) {
      return -1;
    }
    return Math.max(chunksDone() + 1, (estimate + per - 1) / per);
  }

  public long elapsedMs(long nowMs) {
    long start = startedMs.get();
    if (start == 0) {
      return 0;
    }
    long end = endedMs.get();
    return (end != 0 ? end : nowMs) - start;
  }

  public double rowsPerSecond(long nowMs) {
    long elapsed = elapsedMs(nowMs);
    return elapsed <= 0 ? 0 : rows.get() * 1000.0 / elapsed;
  }

  /**
   * Seconds left at the current rate by the tables' row estimates; -1 unknown (no estimate, no rate
   * yet).
   */
  public long etaSeconds(long nowMs) {
    if (state.get() != State.RUNNING) {
      return state.get() == State.COMPLETED ? 0 : -1;
    }
    double rate = rowsPerSecond(nowMs);
    long left = estimatedRows.get() - rows.get();
    if (rate <= 0 || estimatedRows.get() == 0) {
      return -1;
    }
    return Math.max(0, Math.round(left / rate));
  }

  public String summary(long nowMs) {
    long eta = etaSeconds(nowMs);
    return String.format(
        "%d of %d tables, %,d rows, %,d bytes, %,.0f rows/s%s%s%s",
        tablesDone(),
        tablesTotal(),
        rows(),
        bytes(),
        rowsPerSecond(nowMs),
        eta >= 0 && state() == State.RUNNING ? ", about " + eta + " s left" : "",
        currentTable().isEmpty() ? "" : ", reading " + currentTable(),
        chunks());
  }

  private String chunks() {
    long total = chunksTotal();
    if (currentTable().isEmpty() || chunkRows.get() == 0) {
      return "";
    }
    return " (" + chunksDone() + " of " + (total < 0 ? "?" : Long.toString(total)) + " chunks)";
  }
}
