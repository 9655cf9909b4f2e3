package io.trellara.connect.common.retry;

/** Pauses between attempts; replaceable in tests (which advance their clock by the pause). */
@FunctionalInterface
public interface Sleeper {
  Sleeper SYSTEM = Thread::sleep;

  void sleep(long millis) throws InterruptedException;
}
