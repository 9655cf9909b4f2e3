package io.trellara.connect.common.liveness;

import io.trellara.connect.common.Ticker;
import java.util.Objects;

/**
 * One place of a task that can wait (reading the slot, a producer send, a barrier, a target
 * statement or COPY): it says what it waits for while it waits ({@link #waiting}), moves its
 * progress clock whenever something moves ({@link #progress}), and says when it has nothing to wait
 * for ({@link #idle}). A {@link Watchdog} turns a wait without progress past its bound into a
 * {@link Stall}. Written by the stage's own thread, read by the watchdog's.
 */
public final class Stage {
  private final String name;
  private final Ticker ticker;
  private final StallHandler handler;
  private volatile long lastProgressNanos;
  private volatile String waitingFor;
  private volatile long boundNanos;

  /**
   * The start of the wait the handler was called for (once per wait), or {@link Long#MIN_VALUE}.
   */
  private volatile long reportedWaitNanos = Long.MIN_VALUE;

  Stage(String name, Ticker ticker, long boundNanos, StallHandler handler) {
    this.name = Objects.requireNonNull(name, "name");
    this.ticker = ticker;
    this.boundNanos = boundNanos;
    this.handler = Objects.requireNonNull(handler, "handler");
    this.lastProgressNanos = ticker.nanos();
  }

  /**
   * The stage now waits for {@code what} (a statement, a chunk, an acknowledgement): the bound
   * runs.
   */
  public void waiting(String what) {
    if (waitingFor == null) {
      lastProgressNanos = ticker.nanos();
    }
    waitingFor = Objects.requireNonNull(what, "what");
  }

  /**
   * Something moved (a row sent, a record acknowledged, a message read): the bound starts again.
   */
  public void progress() {
    lastProgressNanos = ticker.nanos();
  }

  /** The stage has nothing to wait for: no bound runs (an idle pipeline is not a stall). */
  public void idle() {
    waitingFor = null;
    lastProgressNanos = ticker.nanos();
    reportedWaitNanos = Long.MIN_VALUE;
  }

  /** Changes the bound (zero: none). */
  public void bound(long nanos) {
    this.boundNanos = nanos;
  }

  public String name() {
    return name;
  }

  /** What the stage waits for now, or null when idle. */
  public String waitingFor() {
    return waitingFor;
  }

  /**
   * Seconds since this stage last moved (0 when idle): what JMX and {@code trellara status} show.
   */
  public long secondsSinceProgress() {
    return waitingFor == null ? 0 : (ticker.nanos() - lastProgressNanos) / 1_000_000_000L;
  }

  /** Called by the watchdog: reports a stall at most once per wait. */
  void check(long now) {
    String what = waitingFor;
    long since = lastProgressNanos;
    long bound = boundNanos;
    if (what == null || bound <= 0 || now - since < bound || reportedWaitNanos == since) {
      return;
    }
    reportedWaitNanos = since;
    handler.stalled(new Stall(name, what, (now - since) / 1_000_000L, bound / 1_000_000L));
  }
}
