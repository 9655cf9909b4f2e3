package io.trellara.sink.engine;

import io.trellara.sink.buffer.SinkBuffer;
import io.trellara.sink.port.StagingSignal;
import java.util.Objects;

/**
 * How a task whose barrier waits for chunks other tasks stage hears of their staging: it listens
 * while a barrier waits, tells the buffer of each signal (the waiting barriers are looked at again
 * at once), and an idle poll waits up to {@link #MAX_AWAIT_MILLIS} for one. Without a signal the
 * buffer's recheck interval is all there is.
 */
final class StagingWaits {
  /** The longest an idle poll waits for a staging signal. */
  static final long MAX_AWAIT_MILLIS = 10;

  private final SinkBuffer buffer;
  private StagingSignal signal = StagingSignal.NONE;
  private boolean listening;

  StagingWaits(SinkBuffer buffer) {
    this.buffer = buffer;
  }

  void wakeOn(StagingSignal signal) {
    this.signal = Objects.requireNonNull(signal, "signal");
  }

  /** Before a batch: a signal already there is taken. */
  void beforeBatch() {
    if (buffer.waiting()) {
      take(0);
    }
  }

  /** Before an idle poll: waits up to {@link #MAX_AWAIT_MILLIS} for a signal. */
  void beforePoll() {
    if (buffer.waiting()) {
      take(MAX_AWAIT_MILLIS);
    }
  }

  /** A barrier waits: listen for the staging from now on (so no signal is missed after a look). */
  void afterRun() {
    if (buffer.waiting()) {
      listen();
    }
  }

  /** True while signals wake this task (then the poll itself waits for one). */
  boolean listening() {
    return signal.listening();
  }

  void close() {
    signal.close();
  }

  /** Takes a staging signal, waiting up to {@code millis} for one: the buffer hears of it. */
  private void take(long millis) {
    if (listen() && signal.await(millis)) {
      buffer.stagedElsewhere();
    }
  }

  private boolean listen() {
    boolean now = signal.listening();
    if (now && !listening) {
      buffer.stagedElsewhere(); // what was staged before the listening began: one look more
    }
    listening = now;
    buffer.wokenByStaging(now);
    return now;
  }
}
