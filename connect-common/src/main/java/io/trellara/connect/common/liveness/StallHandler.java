package io.trellara.connect.common.liveness;

/**
 * What a stage does when it stalls, on the watchdog's thread: cancel the statement, close the
 * connection, or mark the task failed, so that the stage's own thread wakes with a {@link
 * StalledException}.
 */
@FunctionalInterface
public interface StallHandler {
  void stalled(Stall stall);
}
