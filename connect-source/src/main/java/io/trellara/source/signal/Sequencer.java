package io.trellara.source.signal;

import io.trellara.source.replication.Outbound;
import java.util.function.Consumer;

/**
 * Numbers the records of the stream's pipeline and of the online snapshots published between its
 * transactions as one sequence (the task acknowledges WAL by it): a snapshot's transaction takes
 * the number after the last one handed on, and the stream's next transaction the one after it.
 */
final class Sequencer {
  private final Consumer<Outbound> out;
  private long last;
  private long lastStream;
  private long shift;

  Sequencer(Consumer<Outbound> out) {
    this.out = out;
  }

  /** Where the stream's pipeline hands its records. */
  Consumer<Outbound> stream() {
    return o -> {
      lastStream = Math.max(lastStream, o.sequence());
      emit(shift == 0 ? o : o.withSequence(o.sequence() + shift));
    };
  }

  /** Where the next snapshot's pipeline hands its records (numbered after the last handed on). */
  Consumer<Outbound> snapshot() {
    long base = last;
    return o -> emit(o.withSequence(base + o.sequence()));
  }

  /** The snapshot is published: the stream's next transaction numbers after it. */
  void snapshotDone() {
    shift = last - lastStream;
  }

  private void emit(Outbound o) {
    last = Math.max(last, o.sequence());
    out.accept(o);
  }
}
