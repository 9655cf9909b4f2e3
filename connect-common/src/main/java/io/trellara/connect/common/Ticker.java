package io.trellara.connect.common;

/**
 * A monotonic clock in nanoseconds, passed in wherever time decides something (backoff, stall
 * bounds, barrier waits), so that tests advance it instead of sleeping.
 */
@FunctionalInterface
public interface Ticker {
  /** The JVM's monotonic clock. */
  Ticker SYSTEM = System::nanoTime;

  long nanos();

  default long millis() {
    return nanos() / 1_000_000L;
  }
}
