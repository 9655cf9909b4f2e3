package io.trellara.source.replication;

import io.trellara.connect.common.Ticker;
import io.trellara.connect.common.retry.Backoff;
import java.time.Duration;

/**
 * When the capture thread tries the replication connection again, on connect-common's one retry
 * policy ({@link Backoff}): {@value #INITIAL_DELAY_MS} ms after a loss, doubling up to {@value
 * #MAX_DELAY_MS} ms, with up to {@value #JITTER} of each delay taken off at random (tasks that lost
 * one server together do not retry together), until {@code replication.reconnect.max.duration.ms}
 * has passed since the outage began; then capture fails. The cap is short on purpose: an attempt is
 * one TCP connection and a login, and a server that comes back is found within about two seconds
 * however long it was away (PostgreSQL's own apply workers retry every 5 s, {@code
 * wal_retrieve_retry_interval}); {@link Backoff#worthLogging} keeps the log to a line per 30 s
 * meanwhile. An outage ends only once a new stream has stayed up for {@value #STABLE_MS} ms: a
 * stream that opens and breaks again at once (a flapping server, a slot still held by the old
 * walsender) continues the same outage, so its delays keep growing and its deadline holds. A
 * maximum of 0 gives up at the first loss.
 */
final class ReconnectPolicy {
  static final long INITIAL_DELAY_MS = 500;
  static final long MAX_DELAY_MS = 2_000;
  static final long STABLE_MS = 30_000;
  static final double JITTER = 0.1;

  private ReconnectPolicy() {}

  static Backoff.Policy policy(long maxDurationMs) {
    return new Backoff.Policy(
        Duration.ofMillis(INITIAL_DELAY_MS),
        Duration.ofMillis(MAX_DELAY_MS),
        Duration.ofMillis(maxDurationMs),
        Duration.ofMillis(STABLE_MS),
        JITTER);
  }

  static Backoff backoff(long maxDurationMs, Ticker ticker) {
    return new Backoff(policy(maxDurationMs), ticker);
  }

  /**
   * The delay before the next attempt after a loss, or -1 when capture must give up (the outage
   * lasted its maximum, or the maximum is 0).
   */
  static long nextDelayMillis(Backoff backoff) {
    return backoff.policy().deadline().isZero() ? -1 : backoff.nextDelayMillis();
  }
}
