package io.trellara.sink.postgres.apply;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.sink.postgres.names.QualifiedName;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows the {@link ChangeWriter} holds and has not written yet: the run in hand (consecutive
 * changes of one table, schema version and shape) and the runs set aside ({@link RunsSetAside}). It
 * decides where a run ends and in which order runs reach the {@link RunWriter}: each table's runs
 * in that table's order, and every run before anything that is not a row of a self-contained table.
 * A run is written once it holds {@link ChangeWriter#MAX_RUN_ROWS} rows or about {@link
 * ChangeWriter#MAX_RUN_BYTES} bytes of row images, so what is held stays bounded.
 */
final class PendingRuns {
  private final RunWriter writer;

  /** Runs of self-contained tables set aside while other tables' rows come. */
  private final RunsSetAside aside = new RunsSetAside();

  private List<ChangeRecord> run = new ArrayList<>();
  private long runBytes;
  private RowShape shape;

  /** The schema version the current run's rows were prepared for. */
  private SchemaVersion shapeVersion;

  /** The longest run written (rows), for tests of the memory bound. */
  int longestRun;

  PendingRuns(RunWriter writer) {
    this.writer = writer;
  }

  /**
   * Adds {@code c} to the run in hand when it continues it: the same target, schema version and
   * shape. False when it does not (nothing changed then).
   */
  boolean continueRun(QualifiedName target, SchemaVersion version, ChangeRecord c)
      throws SQLException {
    if (shape != null
        && shape.target.equals(target)
        && sameVersion(version, shapeVersion)
        && shape.matches(c)) {
      addToRun(c);
      return true;
    }
    return false;
  }

  /**
   * The run in hand ends before {@code c}, a change of {@code target} ({@code selfContained}: as
   * the target is described): the run is set aside when its table and the target are both
   * self-contained, else every run is written. A run of {@code target} set aside earlier is taken
   * back: true when {@code c} continues it, else it is written first (each table's own order is
   * kept) and the caller starts a new run ({@link #startRun}).
   */
  boolean endRunBefore(
      QualifiedName target, boolean selfContained, SchemaVersion version, ChangeRecord c)
      throws SQLException {
    if (!selfContained || shape != null && !(shape.selfContained && setAside())) {
      writeAll();
    }
    RunsSetAside.Run earlier = aside.take(target);
    if (earlier != null) {
      takeBack(earlier);
      if (sameVersion(version, shapeVersion) && shape.matches(c)) {
        addToRun(c);
        return true;
      }
      writeRun(); // the table's earlier rows go first: each table's own order is kept
    }
    return false;
  }

  /**
   * Starts a run of {@code s} (its rows prepared for {@code version}) with {@code c}, after {@link
   * #endRunBefore} left no run in hand.
   */
  void startRun(RowShape s, SchemaVersion version, ChangeRecord c) {
    shape = s;
    shapeVersion = version;
    add(c);
  }

  /**
   * Takes {@code c} (the very instance) back out of the run in hand when it is the run's last row,
   * so it is not written: true then. False when it is not there (written already, or never added).
   */
  boolean takeBackLast(ChangeRecord c) {
    if (c == null || run.isEmpty() || run.get(run.size() - 1) != c) {
      return false;
    }
    run.remove(run.size() - 1);
    runBytes -= footprint(c);
    if (run.isEmpty()) {
      clearRun();
    }
    return true;
  }

  /** Writes every run set aside, in the order they were set aside, and then the run in hand. */
  void writeAll() throws SQLException {
    if (shape != null && !aside.isEmpty()) {
      aside.add(new RunsSetAside.Run(shape, shapeVersion, run, runBytes)); // the latest goes last
      clearRun();
    }
    for (RunsSetAside.Run r : aside.takeAll()) {
      takeBack(r);
      writeRun();
    }
    writeRun();
  }

  /**
   * Adds {@code c} to the run in hand, writing the run first when it is full (the same shape
   * continues).
   */
  private void addToRun(ChangeRecord c) throws SQLException {
    if (run.size() >= ChangeWriter.MAX_RUN_ROWS || runBytes >= ChangeWriter.MAX_RUN_BYTES) {
      RowShape same = shape;
      SchemaVersion sameVersion = shapeVersion;
      writeRun(); // the run is full: write it (a COPY stays open) and continue with the same shape
      shape = same;
      shapeVersion = sameVersion;
    }
    add(c);
  }

  /** Sets the run in hand aside ({@link RunsSetAside}); false when the runs set aside are full. */
  private boolean setAside() {
    if (!aside.offer(new RunsSetAside.Run(shape, shapeVersion, run, runBytes))) {
      return false;
    }
    clearRun();
    return true;
  }

  private void takeBack(RunsSetAside.Run r) {
    run = r.rows();
    runBytes = r.bytes();
    shape = r.shape();
    shapeVersion = r.version();
  }

  /** The run in hand now belongs elsewhere: start a new one. */
  private void clearRun() {
    run = new ArrayList<>();
    runBytes = 0;
    shape = null;
    shapeVersion = null;
  }

  /** Writes the run in hand, if any ({@link RunWriter#write}). */
  private void writeRun() throws SQLException {
    if (run.isEmpty()) {
      return;
    }
    try {
      writer.write(shape, run);
    } finally {
      longestRun = Math.max(longestRun, run.size());
      run.clear();
      runBytes = 0;
      shape = null;
      shapeVersion = null;
    }
  }

  /**
   * The same schema version: usually the very same message (one per envelope or chunk), else equal
   * fingerprints.
   */
  private static boolean sameVersion(SchemaVersion a, SchemaVersion b) {
    return a == b || (a != null && b != null && a.getFingerprint().equals(b.getFingerprint()));
  }

  private void add(ChangeRecord c) {
    run.add(c);
    runBytes += footprint(c);
  }

  /**
   * About the bytes a change holds: its values and a little per column. Bounds a run as well as the
   * serialized size would, without walking every string field of every change to encode its length.
   */
  private static long footprint(ChangeRecord c) {
    return 64 + imageBytes(c.getAfter()) + imageBytes(c.getBefore());
  }

  private static long imageBytes(RowImage image) {
    long bytes = 0;
    for (int i = 0, n = image.getColumnsCount(); i < n; i++) {
      ColumnValue v = image.getColumns(i);
      bytes += 4 + v.getTextBytes().size() + v.getBinary().size();
    }
    return bytes;
  }
}
