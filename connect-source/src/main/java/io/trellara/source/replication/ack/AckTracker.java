package io.trellara.source.replication.ack;

import java.util.ArrayDeque;

/**
 * Which WAL position Kafka holds: a transaction counts as acknowledged once every record of it
 * (chunks on several partitions, manifest, marker — or its one envelope) is acknowledged, and so is
 * every transaction before it. Records are handed out in transaction order; acknowledgements may
 * come in any order. Thread-safe (poll and the producer's callbacks run on different threads).
 */
public final class AckTracker {
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  private long outstandingRecords;

  private static final class Pending {
    final long sequence;
    final String key;
    final String topic;
    long outstanding;
    long endLsn; // set when the closing record was handed out

    Pending(long sequence, String key, String topic) {
      this.sequence = sequence;
      this.key = key;
      this.topic = topic;
    }
  }

  /**
   * The oldest transaction Kafka has not wholly acknowledged.
   *
   * @param key its boundary key (null when not given)
   * @param topic the topic of its first record handed out (null when not given)
   * @param records its records handed out and not acknowledged
   * @param totalRecords every record handed out and not acknowledged
   * @param transactions transactions not wholly acknowledged
   */
  public record Oldest(
      String key, String topic, long records, long totalRecords, int transactions) {}

  /**
   * A record of transaction {@code sequence} was handed to Kafka; {@code endLsn} != 0 on the
   * closing one.
   */
  public synchronized void sent(long sequence, long endLsn) {
    sent(sequence, endLsn, null, null);
  }

  /** As {@link #sent(long, long)}, naming the transaction and topic for a stall's message. */
  public synchronized void sent(long sequence, long endLsn, String key, String topic) {
    Pending p = pending.peekLast();
    if (p == null || p.sequence != sequence) {
      p = new Pending(sequence, key, topic);
      pending.addLast(p);
    }
    p.outstanding++;
    outstandingRecords++;
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
        outstandingRecords--;
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

  /** Records handed to Kafka and not acknowledged yet. */
  public synchronized long outstandingRecords() {
    return outstandingRecords;
  }

  /** The oldest transaction with records Kafka has not acknowledged; null when there is none. */
  public synchronized Oldest oldestUnacknowledged() {
    for (Pending p : pending) {
      if (p.outstanding > 0) {
        return new Oldest(p.key, p.topic, p.outstanding, outstandingRecords, pending.size());
      }
    }
    return null;
  }
}
