package io.trellara.sink.port;

import io.trellara.connect.common.retry.Sleeper;

/**
 * The wait before a retry, on both sides of the port (the driver's stream retries and the target's
 * statement retries): an interrupt ends the retrying with a named reason instead of being
 * swallowed.
 */
public final class RetryPause {
  private RetryPause() {}

  /** Sleeps {@code millis} on {@code sleeper}; an interrupt fails as RETRIES_EXHAUSTED. */
  public static void pause(Sleeper sleeper, long millis) {
    try {
      sleeper.sleep(millis);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new ApplyException(
          ApplyException.Reason.RETRIES_EXHAUSTED,
          null,
          null,
          null,
          "interrupted while waiting to retry",
          ie);
    }
  }
}
