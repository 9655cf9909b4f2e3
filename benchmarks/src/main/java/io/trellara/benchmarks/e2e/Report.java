package io.trellara.benchmarks.e2e;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The run's final table: every leg's figures and, next to each, its ratio to native replication's
 * and, when the Debezium leg ran, to Debezium's.
 */
final class Report {
  private record Column(String heading, String unit, ToDoubleFunction<LegResult> value) {}

  private static final List<Column> COLUMNS =
      List.of(
          new Column("bulk COMMIT → applied", "s", LegResult::bulkCommitToApplied),
          new Column("bulk start → equal", "s", LegResult::bulkStartToEqual),
          new Column("transfers converged", "s", LegResult::transfersConverged),
          new Column("transfers on the source", "s", LegResult::transfersSource),
          new Column("single-row p50", "ms", LegResult::latencyP50Millis),
          new Column("single-row p99", "ms", LegResult::latencyP99Millis),
          new Column("transfers JVM CPU", "s", r -> r.transfersCpuMillis() / 1000));

  private Report() {}

  private static LegResult find(List<LegResult> results, String mode) {
    return results.stream().filter(r -> r.mode().equals(mode)).findFirst().orElse(null);
  }

  /**
   * A markdown table; the ratio columns are empty when native did not run, the "× dbz" ones are
   * there only when Debezium's leg ran.
   */
  static void print(List<LegResult> results, int bulkRows, int transfers) {
    LegResult nativeResult = find(results, "native");
    LegResult dbz = find(results, DebeziumLeg.MODE);
    System.out.printf(
        "%nsummary: %,d-row bulk transaction, %,d transfers; × = the leg's time / native's time%s%n",
        bulkRows, transfers, dbz == null ? "" : "; × dbz = the leg's / Debezium's");
    StringBuilder heading = new StringBuilder("| mode |");
    StringBuilder rule = new StringBuilder("|---|");
    for (Column column : COLUMNS) {
      heading
          .append(' ')
          .append(column.heading())
          .append(' ')
          .append(column.unit())
          .append(" | × |")
          .append(dbz == null ? "" : " × dbz |");
      rule.append(dbz == null ? "---|---|" : "---|---|---|");
    }
    System.out.println(heading);
    System.out.println(rule);
    for (LegResult result : results) {
      StringBuilder row = new StringBuilder("| ").append(result.mode()).append(" |");
      for (Column column : COLUMNS) {
        double value = column.value().applyAsDouble(result);
        row.append(
            String.format(Locale.ROOT, column.unit().equals("s") ? " %.2f |" : " %.1f |", value));
        row.append(
            nativeResult == null
                ? " |"
                : String.format(
                    Locale.ROOT, " %.2f |", value / column.value().applyAsDouble(nativeResult)));
        if (dbz != null) {
          row.append(
              String.format(Locale.ROOT, " %.2f |", value / column.value().applyAsDouble(dbz)));
        }
      }
      System.out.println(row);
    }
    if (nativeResult != null) {
      System.out.println(
          "\nCPU the pipeline added per replicated row (this JVM's CPU during the transfers, less"
              + " native's, which is the broker, the idle worker and the workload's client):");
      for (LegResult result : results) {
        if (result != nativeResult) {
          System.out.printf(
              Locale.ROOT,
              "  %s: %.1f µs per row (%,d rows)%n",
              result.mode(),
              (result.transfersCpuMillis() - nativeResult.transfersCpuMillis())
                  * 1000.0
                  / (4.0 * transfers),
              4L * transfers);
        }
      }
    }
    if (nativeResult != null && nativeResult.workerCpuMillis() >= 0) {
      System.out.println(
          "\nThe Connect worker's own JVM (its connectors, converters, producer and consumers; the"
              + " broker and the workload are in another) during the transfers, per replicated row; native's"
              + " leg is the worker idle:");
      for (LegResult result : results) {
        System.out.printf(
            Locale.ROOT,
            "  %s: %.1f µs per row (%.0f CPU-ms)%s%s%s%n",
            result.mode(),
            result.workerCpuMillis() * 1000.0 / (4.0 * transfers),
            result.workerCpuMillis(),
            result == nativeResult
                ? ""
                : String.format(
                    Locale.ROOT,
                    ", %.1f µs over idle",
                    (result.workerCpuMillis() - nativeResult.workerCpuMillis())
                        * 1000.0
                        / (4.0 * transfers)),
            dbz == null || result == nativeResult || result == dbz
                ? ""
                : String.format(
                    Locale.ROOT,
                    ", %.2f× Debezium's over idle",
                    (result.workerCpuMillis() - nativeResult.workerCpuMillis())
                        / (dbz.workerCpuMillis() - nativeResult.workerCpuMillis())),
            result.workerJitMillis() < 0
                ? ""
                : String.format(
                    Locale.ROOT,
                    "; without the worker's JIT"
                        + " (still compiling: %.0f CPU-ms) %.1f µs per row",
                    result.workerJitMillis(),
                    (result.workerCpuMillis() - result.workerJitMillis())
                        * 1000.0
                        / (4.0 * transfers)));
      }
    }
  }
}
