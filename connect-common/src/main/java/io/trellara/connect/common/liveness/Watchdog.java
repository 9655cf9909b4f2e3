package io.trellara.connect.common.liveness;

import io.trellara.connect.common.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nothing waits without a bound: a daemon thread looks at every {@link Stage} of a task once a
 * second (or a quarter of the shortest bound) and calls a stage's {@link StallHandler} once it has
 * waited past its bound without progress. The handler cancels and rolls back; the stage's thread
 * then fails with {@code STALLED}. Long waits are logged at INFO when they pass half the bound, so
 * a stall is announced before it happens.
 */
public final class Watchdog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);

  private final String name;
  private final Ticker ticker;
  private final long boundNanos;
  private final List<Stage> stages = new CopyOnWriteArrayList<>();
  private final Thread thread;
  private volatile boolean running = true;

  /**
   * A watchdog with its own thread (named after the task), checking every stage with {@code bound}.
   */
  public static Watchdog start(String name, Duration bound) {
    return new Watchdog(name, Ticker.SYSTEM, bound, true);
  }

  /** A watchdog without a thread: tests call {@link #check()} with their own ticker. */
  public static Watchdog manual(String name, Ticker ticker, Duration bound) {
    return new Watchdog(name, ticker, bound, false);
  }

  private Watchdog(String name, Ticker ticker, Duration bound, boolean thread) {
    this.name = name;
    this.ticker = ticker;
    this.boundNanos = bound.toNanos();
    if (thread) {
      this.thread = new Thread(this::loop, "trellara-watchdog-" + name);
      this.thread.setDaemon(true);
      this.thread.start();
    } else {
      this.thread = null;
    }
  }

  /** A stage with the watchdog's bound. */
  public Stage stage(String stageName, StallHandler handler) {
    Stage s = new Stage(stageName, ticker, boundNanos, handler);
    stages.add(s);
    return s;
  }

  /** Stops watching {@code stage} (its work has ended). */
  public void remove(Stage stage) {
    stages.remove(stage);
  }

  public List<Stage> stages() {
    return List.copyOf(stages);
  }

  public Duration bound() {
    return Duration.ofNanos(boundNanos);
  }

  /** Looks at every stage now. */
  public void check() {
    long now = ticker.nanos();
    for (Stage s : stages) {
      try {
        s.check(now);
      } catch (RuntimeException e) {
        LOG.error("Watchdog {}: the stall handler of stage '{}' failed", name, s.name(), e);
      }
    }
  }

  private void loop() {
    long interval = Math.max(50, Math.min(1_000, boundNanos / 4_000_000L));
    long[] lastAnnounced = new long[1];
    while (running) {
      try {
        Thread.sleep(interval);
      } catch (InterruptedException e) {
        return;
      }
      check();
      announceLongWaits(lastAnnounced);
    }
  }

  /** A wait past half the bound is logged once per 30 s, naming what it waits for. */
  private void announceLongWaits(long[] lastAnnounced) {
    long now = ticker.nanos();
    if (now - lastAnnounced[0] < 30_000_000_000L) {
      return;
    }
    for (Stage s : stages) {
      long waited = s.secondsSinceProgress();
      if (boundNanos > 0 && waited * 2_000_000_000L >= boundNanos && s.waitingFor() != null) {
        lastAnnounced[0] = now;
        LOG.info(
            "Watchdog {}: stage '{}' has made no progress for {} s while waiting for {} (it fails as STALLED"
                + " after {} s)",
            name,
            s.name(),
            waited,
            s.waitingFor(),
            boundNanos / 1_000_000_000L);
      }
    }
  }

  @Override
  public void close() {
    running = false;
    if (thread != null) {
      thread.interrupt();
    }
    stages.clear();
  }
}
