package io.trellara.connect.common;

/**
 * Per-second rate of a monotonic total over a sliding window: a ring of (time, total) samples taken
 * once a second by the metrics ticker; the rate is the growth from the oldest sample still in the
 * window to now.
 */
public final class RateWindow {
  private final long[] times;
  private final long[] totals;
  private final long windowNanos;
  private int next;
  private int size;

  public RateWindow(int windowSeconds) {
    times = new long[windowSeconds + 1];
    totals = new long[windowSeconds + 1];
    windowNanos = windowSeconds * 1_000_000_000L;
  }

  public synchronized void tick(long nowNanos, long total) {
    times[next] = nowNanos;
    totals[next] = total;
    next = (next + 1) % times.length;
    size = Math.min(size + 1, times.length);
  }

  /**
   * Events per second between the oldest sample inside the window and {@code total} at {@code
   * nowNanos}.
   */
  public synchronized double rate(long nowNanos, long total) {
    for (int i = 0; i < size; i++) {
      int slot = Math.floorMod(next - size + i, times.length);
      long elapsed = nowNanos - times[slot];
      if (elapsed <= windowNanos && elapsed > 0) {
        return (total - totals[slot]) * 1e9 / elapsed;
      }
    }
    return 0;
  }
}
