package io.trellara.source.replication;

/**
 * When to try the replication connection again: {@value #INITIAL_DELAY_MS} ms after a loss,
 * doubling up to {@value #MAX_DELAY_MS} ms, until {@code maxDurationMs} have passed since the
 * outage began; then the engine gives up. The cap is short on purpose: an attempt is one TCP
 * connection and a login, and a server that comes back is found within about two seconds however
 * long it was away (PostgreSQL's own apply workers retry every 5 s, {@code
 * wal_retrieve_retry_interval}); {@link #worthLogging} keeps the log to a line per 30 s meanwhile.
 * An outage ends only once a new stream has stayed up for {@value #STABLE_MS} ms: a stream that
 * opens and breaks again at once (a flapping server, a slot still held by the old walsender)
 * continues the same outage, so its delays keep growing and its deadline holds. Not thread-safe
 * (the capture thread's).
 */
final class ReconnectBackoff {
  static final long INITIAL_DELAY_MS = 500;
  static final long MAX_DELAY_MS = 2_000;
  static final long STABLE_MS = 30_000;
  static final long LOG_EVERY_MS = 30_000;

  private final long maxDurationMs;
  private long outageStartMs = -1;
  private long connectedAtMs = -1;
  private int failures;
  private long loggedAtMs = -1;

  ReconnectBackoff(long maxDurationMs) {
    this.maxDurationMs = maxDurationMs;
  }

  /**
   * The connection was lost (or an attempt failed) at {@code nowMs}: the delay before the next
   * attempt, or -1 when the outage has lasted {@code maxDurationMs} and the engine must give up.
   */
  long lost(long nowMs) {
    if (outageStartMs < 0 || (connectedAtMs >= 0 && nowMs - connectedAtMs >= STABLE_MS)) {
      outageStartMs = nowMs; // a new outage
      failures = 0;
      loggedAtMs = -1;
    }
    connectedAtMs = -1;
    long elapsed = nowMs - outageStartMs;
    if (elapsed >= maxDurationMs) {
      return -1;
    }
    long delay =
        failures >= 16 ? MAX_DELAY_MS : Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS << failures);
    failures++;
    return Math.min(delay, maxDurationMs - elapsed); // the last attempt happens at the deadline
  }

  /** True for the first three failures of an outage, then once every {@value #LOG_EVERY_MS} ms. */
  boolean worthLogging(long nowMs) {
    if (failures <= 3 || loggedAtMs < 0 || nowMs - loggedAtMs >= LOG_EVERY_MS) {
      loggedAtMs = nowMs;
      return true;
    }
    return false;
  }

  /** A stream is open again at {@code nowMs}. */
  void connected(long nowMs) {
    connectedAtMs = nowMs;
  }

  /** When the current outage began; -1 when none has. */
  long outageStartMs() {
    return outageStartMs;
  }
}
