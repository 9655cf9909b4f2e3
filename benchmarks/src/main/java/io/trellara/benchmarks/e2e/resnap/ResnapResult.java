package io.trellara.benchmarks.e2e.resnap;

import java.util.List;
import java.util.Locale;

/**
 * One leg's figures, from its {@link TargetWatch}'s series cut at three moments: the load asked for
 * ({@code signal}), complete on the target ({@code applied}), and the end of the watch (W1 caught
 * up again and a few seconds more). "Before" is the baseline window of W1 alone before the signal.
 */
record ResnapResult(
    String leg,
    long rows,
    double loadSeconds,
    double workerCpuSeconds,
    String workerThreads,
    List<long[]> lagBefore,
    List<long[]> lagDuring,
    double caughtUpSeconds,
    List<long[]> pointReads,
    List<long[]> countReads,
    int partialReads,
    String partialCounts,
    List<long[]> lockWaiters,
    int transfers,
    String details) {

  private static final long SECOND = 1_000_000_000L;

  double rowsPerSecond() {
    return rows / loadSeconds;
  }

  private static double s(long nanos) {
    return nanos / 1e9;
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  /** The leg's lines of the report. */
  String describe() {
    long[] above = Series.timeAbove(lagDuring, SECOND);
    long lockSamples = lockWaiters.stream().filter(x -> x[1] > 0).count();
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "[%s] load of %,d rows: %.1f s from the request to complete on the target (%,.0f rows/s)"
                + ", worker CPU %s%n",
            leg,
            rows,
            loadSeconds,
            rowsPerSecond(),
            workerCpuSeconds < 0
                ? "not known (worker in this JVM)"
                : String.format(Locale.ROOT, "%.1f s", workerCpuSeconds)));
    if (!workerThreads.isEmpty()) {
      b.append(
          String.format(Locale.ROOT, "[%s]   worker threads, CPU s: %s%n", leg, workerThreads));
    }
    b.append(
        String.format(
            Locale.ROOT,
            "[%s] W1 lag before: p50 %.3f s, p99 %.3f s, max %.3f s (%d samples); from the request"
                + " until caught up: p50 %.2f s, p99 %.2f s, max %.2f s (%d samples), above 1 s for"
                + " %.1f s (longest %.1f s), back under 1 s %.1f s after the load completed%n",
            leg,
            s(Series.percentile(lagBefore, 50)),
            s(Series.percentile(lagBefore, 99)),
            s(Series.max(lagBefore)),
            lagBefore.size(),
            s(Series.percentile(lagDuring, 50)),
            s(Series.percentile(lagDuring, 99)),
            s(Series.max(lagDuring)),
            lagDuring.size(),
            s(above[0]),
            s(above[1]),
            caughtUpSeconds));
    b.append(
        String.format(
            Locale.ROOT,
            "[%s] readers of the big table from the request until caught up: %d point reads, p99"
                + " %.1f ms, max %.1f ms, %d over 1 s; %d counting reads (max %.2f s), %d saw the"
                + " table half loaded %s; lock waiters seen on the target in %d of %d samples%n",
            leg,
            pointReads.size(),
            ms(Series.percentile(pointReads, 99)),
            ms(Series.max(pointReads)),
            Series.countAbove(pointReads, SECOND),
            countReads.size(),
            s(Series.max(countReads)),
            partialReads,
            partialReads == 0 ? "" : partialCounts,
            lockSamples,
            lockWaiters.size()));
    if (!details.isEmpty()) {
      b.append(String.format(Locale.ROOT, "[%s] %s%n", leg, details));
    }
    return b.toString();
  }

  /** The summary table: one row per leg. */
  static String summary(List<ResnapResult> results) {
    StringBuilder b =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%n%-9s %9s %10s %11s %11s %11s %9s %12s %9s %8s%n",
                "leg",
                "load s",
                "rows/s",
                "lag p99 s",
                "lag max s",
                "lag>1s s",
                "W1 tx",
                "read max ms",
                "partial",
                "cpu s"));
    for (ResnapResult r : results) {
      b.append(
          String.format(
              Locale.ROOT,
              "%-9s %9.1f %,10.0f %11.2f %11.2f %11.1f %9d %12.1f %9d %8.1f%n",
              r.leg,
              r.loadSeconds,
              r.rowsPerSecond(),
              s(Series.percentile(r.lagDuring, 99)),
              s(Series.max(r.lagDuring)),
              s(Series.timeAbove(r.lagDuring, SECOND)[0]),
              r.transfers,
              ms(Series.max(r.pointReads)),
              r.partialReads,
              r.workerCpuSeconds));
    }
    return b.toString();
  }
}
