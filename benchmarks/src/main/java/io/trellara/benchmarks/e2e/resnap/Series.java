package io.trellara.benchmarks.e2e.resnap;

import java.util.ArrayList;
import java.util.List;

/**
 * Timed samples of one quantity (W1's lag, a reader's query time), in nanoseconds, appended in time
 * order by one thread and summarised over a window afterwards: percentile, maximum, how long the
 * value stayed above a threshold. A sample stands for the time until the next one.
 */
final class Series {
  private final List<long[]> samples = new ArrayList<>(); // {at, value}

  synchronized void add(long atNanos, long valueNanos) {
    samples.add(new long[] {atNanos, valueNanos});
  }

  /** The samples taken in {@code [from, to]}. */
  synchronized List<long[]> window(long from, long to) {
    List<long[]> out = new ArrayList<>();
    for (long[] s : samples) {
      if (s[0] >= from && s[0] <= to) {
        out.add(s);
      }
    }
    return out;
  }

  /** The nearest-rank percentile ({@code p} in 0..100) of the values, or 0 when there are none. */
  static long percentile(List<long[]> window, double p) {
    if (window.isEmpty()) {
      return 0;
    }
    long[] values = window.stream().mapToLong(s -> s[1]).sorted().toArray();
    int rank = (int) Math.ceil(p / 100.0 * values.length);
    return values[Math.min(values.length - 1, Math.max(0, rank - 1))];
  }

  static long max(List<long[]> window) {
    return window.stream().mapToLong(s -> s[1]).max().orElse(0);
  }

  static int countAbove(List<long[]> window, long threshold) {
    return (int) window.stream().filter(s -> s[1] > threshold).count();
  }

  /**
   * Total and longest time the value stayed above {@code threshold}: each sample above it counts
   * until the next sample (the last one counts nothing: its end is unknown). {@code [total,
   * longest]} in nanoseconds.
   */
  static long[] timeAbove(List<long[]> window, long threshold) {
    long total = 0;
    long longest = 0;
    long stretch = 0;
    for (int i = 0; i + 1 < window.size(); i++) {
      if (window.get(i)[1] > threshold) {
        long d = window.get(i + 1)[0] - window.get(i)[0];
        total += d;
        stretch += d;
        longest = Math.max(longest, stretch);
      } else {
        stretch = 0;
      }
    }
    return new long[] {total, longest};
  }

  /** What {@link #firstAtOrBelow} returns when no sample is (a nanoTime may be negative). */
  static final long NONE = Long.MIN_VALUE;

  /**
   * The time of the first sample at or after {@code from} whose value is at most {@code limit}, or
   * {@link #NONE}.
   */
  synchronized long firstAtOrBelow(long from, long limit) {
    for (long[] s : samples) {
      if (s[0] >= from && s[1] <= limit) {
        return s[0];
      }
    }
    return NONE;
  }
}
