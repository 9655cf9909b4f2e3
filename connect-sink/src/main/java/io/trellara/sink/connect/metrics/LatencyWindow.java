package io.trellara.sink.connect.metrics;

import java.util.Arrays;

/**
 * The last {@code capacity} latency samples in a ring; percentiles are computed on read by sorting
 * a copy (nearest-rank), so recording stays one array store.
 */
final class LatencyWindow {
  private final long[] samples;
  private int next;
  private int size;
  private long last = -1;

  LatencyWindow(int capacity) {
    samples = new long[capacity];
  }

  synchronized void record(long value) {
    samples[next] = value;
    next = (next + 1) % samples.length;
    size = Math.min(size + 1, samples.length);
    last = value;
  }

  synchronized long last() {
    return last;
  }

  synchronized int size() {
    return size;
  }

  /**
   * Nearest-rank percentile ({@code p} in (0, 100]) of the samples in the window; -1 when empty.
   */
  long percentile(double p) {
    long[] copy;
    synchronized (this) {
      if (size == 0) {
        return -1;
      }
      copy = Arrays.copyOf(samples, size);
    }
    Arrays.sort(copy);
    int rank = (int) Math.ceil(p / 100.0 * copy.length);
    return copy[Math.max(0, Math.min(copy.length - 1, rank - 1))];
  }
}
