package io.trellara.source.signal;

import io.trellara.protocol.LogText;
import io.trellara.protocol.Lsn;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The capture thread's side of {@code signal.kafka.topic}: at a transaction boundary of the stream
 * it takes the signal records that arrived and carries each out as if it had committed at the
 * position of the last transaction handed on (so the online snapshot's held records carry the
 * offset from before it). A record keyed for another connector is skipped; one that is not a valid
 * signal is logged (WARN, escaped) and skipped; neither is ever fatal.
 *
 * <p>At least once: a record's Kafka offset is committed only once it is settled, in the order the
 * records arrived. A record that started a snapshot is settled once that snapshot is published and
 * Kafka acknowledged its commit marker (the engine's acknowledged WAL reached the marker's
 * position), or once the snapshot was cancelled; every other record once it was taken. A task
 * killed before that reads the record again after the restart and snapshots again (harmless).
 */
final class KafkaSignalInbox {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaSignalInbox.class);

  /** One record of the signal topic, as the consumer received it. */
  record Received(int partition, long offset, String key, byte[] value) {}

  private static final class Taken {
    final Received record;
    boolean settled;
    long releaseAt = -1;

    Taken(Received record) {
      this.record = record;
    }
  }

  private final String topic;
  private final String connector;
  private final Supplier<Received> incoming;
  private final BiConsumer<Integer, Long> commit;
  private final LongSupplier acknowledged;
  private final Deque<Taken> taken = new ArrayDeque<>();
  private Taken awaiting;
  private long skipped;

  /**
   * @param incoming the next record received, or null when none waits
   * @param commit where a partition's next offset to read goes once every record before it is
   *     settled (the consumer commits it)
   * @param acknowledged the WAL position Kafka acknowledged every record up to
   */
  KafkaSignalInbox(
      String topic,
      String connector,
      Supplier<Received> incoming,
      BiConsumer<Integer, Long> commit,
      LongSupplier acknowledged) {
    this.topic = topic;
    this.connector = connector;
    this.incoming = incoming;
    this.commit = commit;
    this.acknowledged = acknowledged;
  }

  /**
   * At a transaction boundary: settles what can be, then takes every record that arrived.
   *
   * @param carrier carries a signal out ({@link OnlineSnapshots#signal})
   * @param idle true when no snapshot waits for its consistent point ({@link OnlineSnapshots#idle})
   * @param lastCommitLsn the commit LSN of the last transaction handed on (for the log)
   * @param handedOnEnd the end position of the last record handed on that closes a transaction and
   *     is not held (after a published snapshot: its commit marker's)
   */
  void take(
      BiConsumer<Signal, Long> carrier,
      BooleanSupplier idle,
      long lastCommitLsn,
      long handedOnEnd) {
    Received r;
    while ((r = incoming.get()) != null) {
      resolve(idle, handedOnEnd);
      Taken t = new Taken(r);
      taken.add(t);
      boolean wasIdle = idle.getAsBoolean();
      Signal s = read(r);
      if (s != null) {
        LOG.info(
            "Signal {} from topic {} (partition {}, offset {}) taken between transactions (last"
                + " commit {})",
            LogText.escape(s.id()),
            LogText.escape(topic),
            r.partition(),
            r.offset(),
            lastCommitLsn == 0 ? "none yet" : Lsn.format(lastCommitLsn));
        carrier.accept(s, lastCommitLsn);
      }
      if (s != null && wasIdle && !idle.getAsBoolean()) {
        awaiting = t; // a snapshot waits for its consistent point: settled once published
      } else {
        t.settled = true;
      }
    }
    resolve(idle, handedOnEnd);
    release();
  }

  /** Records received but not yet settled (their offsets are not committed). */
  int unsettled() {
    return (int) taken.stream().filter(t -> !t.settled).count();
  }

  /** Records skipped: another connector's key, or not a valid signal. */
  long skipped() {
    return skipped;
  }

  private void resolve(BooleanSupplier idle, long handedOnEnd) {
    if (awaiting != null && idle.getAsBoolean()) {
      // published (its commit marker was the last record handed on) or cancelled
      awaiting.releaseAt = handedOnEnd;
      awaiting = null;
    }
  }

  private void release() {
    if (taken.isEmpty()) {
      return; // the usual case, at every transaction boundary: nothing to do, nothing allocated
    }
    long ack = acknowledged.getAsLong();
    Map<Integer, Long> next = new HashMap<>();
    while (!taken.isEmpty()) {
      Taken t = taken.peekFirst();
      if (!t.settled && t.releaseAt >= 0 && ack >= t.releaseAt) {
        t.settled = true;
      }
      if (!t.settled) {
        break;
      }
      taken.removeFirst();
      next.put(t.record.partition(), t.record.offset() + 1);
    }
    next.forEach(commit);
  }

  /** The record's signal, or null when it is skipped (logged). */
  private Signal read(Received r) {
    if (r.key() == null || !r.key().equals(connector)) {
      skipped++;
      LOG.debug(
          "Signal topic {}: record at partition {} offset {} is keyed '{}', not for connector {}:"
              + " skipped",
          LogText.escape(topic),
          r.partition(),
          r.offset(),
          LogText.escape(r.key()),
          LogText.escape(connector));
      return null;
    }
    try {
      return KafkaSignalValue.parse(r.value());
    } catch (MalformedSignalException e) {
      skipped++;
      LOG.warn(
          "Signal topic {}: a malformed signal at partition {} offset {} is ignored: {} (value {})",
          LogText.escape(topic),
          r.partition(),
          r.offset(),
          LogText.escape(e.getMessage()),
          LogText.escape(preview(r.value())));
      return null;
    }
  }

  private static String preview(byte[] value) {
    if (value == null) {
      return null;
    }
    String s =
        new String(value, 0, Math.min(value.length, 500), java.nio.charset.StandardCharsets.UTF_8);
    return value.length > 500 ? s + "..." : s;
  }
}
