package io.trellara.source.signal;

import io.trellara.source.replication.Outbound;
import java.util.function.Consumer;

/**
 * Numbers the records of the stream's pipeline and of the online snapshots published between its
 * transactions as one sequence (the task acknowledges WAL by it): a snapshot's transaction takes
 * the number after the last one handed on, and the stream's next transaction the one after it.
 *
 * <p>From a snapshot signal until that snapshot's commit marker (or its cancellation) every record
 * is handed on {@linkplain Outbound#held() held}, but the marker itself: their offsets stay at the
 * position before the signal and they acknowledge no WAL, so a task killed meanwhile resumes before
 * the signal, reads it again and snapshots only its tables again.
 */
final class Sequencer {
  private final Consumer<Outbound> out;
  private long last;
  private long lastStream;
  private long shift;
  private boolean holding;

  Sequencer(Consumer<Outbound> out) {
    this.out = out;
  }

  /** Where the stream's pipeline hands its records. */
  Consumer<Outbound> stream() {
    return o -> {
      lastStream = Math.max(lastStream, o.sequence());
      Outbound r = shift == 0 ? o : o.withSequence(o.sequence() + shift);
      emit(holding ? r.asHeld() : r);
    };
  }

  /** Where the next snapshot's pipeline hands its records (numbered after the last handed on). */
  Consumer<Outbound> snapshot() {
    long base = last;
    return o -> {
      Outbound r = o.withSequence(base + o.sequence());
      emit(o.closesTransaction() ? r : r.asHeld());
    };
  }

  /** A snapshot was signalled: records are held until it is published or cancelled. */
  void hold() {
    holding = true;
  }

  /** The signalled snapshot was cancelled before anything of it was published. */
  void release() {
    holding = false;
  }

  /** The snapshot is published: the stream's next transaction numbers after it. */
  void snapshotDone() {
    shift = last - lastStream;
    holding = false;
  }

  private void emit(Outbound o) {
    last = Math.max(last, o.sequence());
    out.accept(o);
  }
}
