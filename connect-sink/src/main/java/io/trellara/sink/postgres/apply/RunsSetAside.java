package io.trellara.sink.postgres.apply;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.schema.TargetTable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs of rows set aside ({@link PendingRuns}), at most one per target table, oldest first. Rows of
 * self-contained tables ({@link TargetTable#selfContained}) commute with each other's, so a group
 * of transactions that alternates between such tables (two updates of one, two inserts into
 * another, and again in the next transaction) is written as one batch per table and shape instead
 * of one round trip per change of table. The writer takes a table's run back at that table's next
 * rows, and takes them all before anything else (another kind of table, DDL, a truncate, the dedup
 * and progress records). Bounded: {@value #MAX_RUNS} tables and {@link ChangeWriter#MAX_RUN_BYTES}
 * bytes.
 */
final class RunsSetAside {
  /** At most this many tables' runs are set aside at once. */
  static final int MAX_RUNS = 64;

  /**
   * A run: its shape, the schema version its rows were prepared for, the rows and their footprint.
   */
  record Run(RowShape shape, SchemaVersion version, List<ChangeRecord> rows, long bytes) {}

  private final Map<QualifiedName, Run> runs = new LinkedHashMap<>();
  private long bytes;

  /**
   * Sets {@code run} aside; false when that would pass the bound (the caller then writes
   * everything).
   */
  boolean offer(Run run) {
    if (runs.size() >= MAX_RUNS || bytes + run.bytes() > ChangeWriter.MAX_RUN_BYTES) {
      return false;
    }
    add(run);
    return true;
  }

  /** Sets {@code run} aside whatever the bound: it is about to be written with all the others. */
  void add(Run run) {
    runs.put(run.shape().target, run);
    bytes += run.bytes();
  }

  /** The run set aside for {@code target}, taken back; null when there is none. */
  Run take(QualifiedName target) {
    Run r = runs.remove(target);
    if (r != null) {
      bytes -= r.bytes();
    }
    return r;
  }

  /** Every run set aside, taken back in the order they were set aside. */
  List<Run> takeAll() {
    List<Run> all = new ArrayList<>(runs.values());
    runs.clear();
    bytes = 0;
    return all;
  }

  boolean isEmpty() {
    return runs.isEmpty();
  }
}
