package io.trellara.source.engine;

import java.util.ArrayDeque;

/**
 * Which WAL position Kafka holds: a transaction counts as acknowledged once every record of it
 * (chunks on several partitions, manifest, marker — or its one envelope) is acknowledged, and so is
 * every transaction before it. Records are handed out in transaction order; acknowledgements may
 * come in any order. Thread-safe (poll and the producer's callbacks run on different threads).
 */
public final class AckTracker {
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();

  private static final class Pending {
    final long sequence;
    long outstanding;
    long endLsn; // set when the closing record was handed out

    Pending(long sequence) {
      this.sequence = sequence;
    }
  }

  /**
   * A record of transaction {@code sequence} was handed to Kafka; {@code endLsn} != 0 on the
   * closing one.
   */
  public synchronized void sent(long sequence, long endLsn) {
    Pending p = pending.peekLast();
    if (p == null || p.sequence != sequence) {
      p = new Pending(sequence);
      pending.addLast(p);
    }
    p.outstanding++;
    if (endLsn != 0) {
      p.endLsn = endLsn;
    }
  }

  /**
   * A record of transaction {@code sequence} is acknowledged. Returns the end LSN up to which every
   * transaction is now wholly acknowledged, or 0 when that did not move.
   */
  public synchronized long acknowledged(long sequence) {
    for (Pending p : pending) {
      if (p.sequence == sequence) {
        p.outstanding--;
        break;
      }
    }
    long released = 0;
    while (!pending.isEmpty()
        && pending.peekFirst().outstanding == 0
        && pending.peekFirst().endLsn != 0) {
      released = pending.removeFirst().endLsn;
    }
    return released;
  }

  public synchronized int transactionsInFlight() {
    return pending.size();
  }
}
