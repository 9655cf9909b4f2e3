package io.trellara.connect.common.retry;

import io.trellara.connect.common.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * The one retry policy of the source and the sink: after the first failure of an outage, wait
 * {@code initial}, doubling up to {@code max} (with up to {@code jitter} of each delay taken off at
 * random, so that tasks that failed together do not retry together), until {@code deadline} has
 * passed since the outage began; then give up. An outage ends with {@link #succeeded()}, or, with a
 * {@code stable} window, only once the work has stayed up that long ({@link #connected()}): a
 * connection that opens and breaks again at once continues the same outage, so its delays keep
 * growing and its deadline holds. Not thread-safe (one per retrying thread).
 */
public final class Backoff {
  /**
   * @param initial the first delay
   * @param max the longest delay
   * @param deadline how long an outage may last before {@link #nextDelayMillis()} gives up
   * @param stable how long a connection must stay up to end an outage (zero: {@link #connected()}
   *     ends it)
   * @param jitter the share (0 to 1) of a delay that may be taken off at random
   */
  public record Policy(
      Duration initial, Duration max, Duration deadline, Duration stable, double jitter) {
    public Policy {
      Objects.requireNonNull(initial, "initial");
      Objects.requireNonNull(max, "max");
      Objects.requireNonNull(deadline, "deadline");
      Objects.requireNonNull(stable, "stable");
      if (jitter < 0 || jitter > 1) {
        throw new IllegalArgumentException("jitter must be between 0 and 1: " + jitter);
      }
    }

    /** Without a stable window. */
    public static Policy of(Duration initial, Duration max, Duration deadline, double jitter) {
      return new Policy(initial, max, deadline, Duration.ZERO, jitter);
    }
  }

  /** A log line is written for the first few failures of an outage, then once per this interval. */
  public static final long LOG_EVERY_MILLIS = 30_000;

  private static final int LOGGED_FAILURES = 3;

  private final Policy policy;
  private final Ticker ticker;
  private final DoubleSupplier random;
  private long outageStartNanos = -1;
  private long connectedAtNanos = -1;
  private long loggedAtNanos = -1;
  private int failures;

  public Backoff(Policy policy, Ticker ticker) {
    this(policy, ticker, Math::random);
  }

  /** With the source of randomness for the jitter (tests pass a fixed one). */
  public Backoff(Policy policy, Ticker ticker, DoubleSupplier random) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * A failure now: the delay before the next attempt in milliseconds, or -1 when the outage has
   * lasted its deadline and the caller must give up. The last attempt happens at the deadline.
   */
  public long nextDelayMillis() {
    long now = ticker.nanos();
    boolean stableSince =
        connectedAtNanos >= 0 && now - connectedAtNanos >= policy.stable().toNanos();
    if (outageStartNanos < 0 || stableSince) {
      outageStartNanos = now;
      failures = 0;
      loggedAtNanos = -1;
    }
    connectedAtNanos = -1;
    long elapsedMillis = (now - outageStartNanos) / 1_000_000L;
    long deadlineMillis = policy.deadline().toMillis();
    if (elapsedMillis >= deadlineMillis && (failures > 0 || deadlineMillis == 0)) {
      return -1;
    }
    long initial = Math.max(1, policy.initial().toMillis());
    long max = Math.max(initial, policy.max().toMillis());
    long delay = failures >= 30 ? max : Math.min(max, initial << failures);
    failures++;
    delay -= (long) (delay * policy.jitter() * random.getAsDouble());
    return Math.max(0, Math.min(delay, deadlineMillis - elapsedMillis));
  }

  /** The work succeeded: the outage is over. */
  public void succeeded() {
    outageStartNanos = -1;
    connectedAtNanos = -1;
    failures = 0;
  }

  /**
   * A connection is up again: the outage ends once it has stayed up for the policy's stable window.
   */
  public void connected() {
    if (policy.stable().isZero()) {
      succeeded();
    } else {
      connectedAtNanos = ticker.nanos();
    }
  }

  /** Failures in the current outage. */
  public int failures() {
    return failures;
  }

  /** Milliseconds since the current outage began; 0 when there is none. */
  public long outageMillis() {
    return outageStartNanos < 0 ? 0 : (ticker.nanos() - outageStartNanos) / 1_000_000L;
  }

  /** True while an outage is under way. */
  public boolean inOutage() {
    return outageStartNanos >= 0;
  }

  /**
   * True for the first few failures of an outage, then once every {@value #LOG_EVERY_MILLIS} ms.
   */
  public boolean worthLogging() {
    long now = ticker.nanos();
    if (failures <= LOGGED_FAILURES
        || loggedAtNanos < 0
        || now - loggedAtNanos >= LOG_EVERY_MILLIS * 1_000_000L) {
      loggedAtNanos = now;
      return true;
    }
    return false;
  }

  public Policy policy() {
    return policy;
  }
}
