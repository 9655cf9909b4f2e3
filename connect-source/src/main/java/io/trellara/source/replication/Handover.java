package io.trellara.source.replication;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.postgresql.replication.PGReplicationStream;

/**
 * The capture thread's side of the hand-over to the publisher: numbers each pipeline's records
 * after every record of the pipelines before it, counts what is published, and blocks while the
 * queue is full (back-pressure), keeping the stream alive meanwhile. A connection that breaks while
 * a transaction is handed over is remembered ({@link #broken}), and the transaction is handed over
 * whole first, so the publisher never holds part of one without its closing record. Capture thread
 * only, but {@link #published} (read by the stream's report on the same thread).
 */
final class Handover {
  private final OutboundQueue queue;
  private final CaptureMetrics metrics;
  private final BooleanSupplier running;
  private final Runnable working;
  private final Runnable waiting;
  private final AtomicLong published = new AtomicLong();
  private long lastSequence;
  private PGReplicationStream stream;
  private SQLException broken;

  /**
   * @param working runs for each record handed over (the capture thread works, it does not wait for
   *     the server)
   * @param waiting runs while the queue is full (the publisher's stage watches that wait)
   */
  Handover(
      OutboundQueue queue,
      CaptureMetrics metrics,
      BooleanSupplier running,
      Runnable working,
      Runnable waiting) {
    this.queue = queue;
    this.metrics = metrics;
    this.running = running;
    this.working = working;
    this.waiting = waiting;
  }

  /** The pipeline's records, numbered after every record of the pipelines before it. */
  Consumer<Outbound> numbered() {
    long base = lastSequence;
    return o -> {
      Outbound r = base == 0 ? o : o.withSequence(base + o.sequence());
      lastSequence = Math.max(lastSequence, r.sequence());
      publish(r);
    };
  }

  /** A stream is open: it is kept alive while the queue is full. */
  void streaming(PGReplicationStream s) {
    stream = s;
    broken = null;
  }

  /** The stream's connection broke during a hand-over; null when it did not. */
  SQLException broken() {
    return broken;
  }

  /** The largest end LSN handed over. */
  long published() {
    return published.get();
  }

  /** Blocks while the publisher is behind (back-pressure). */
  private void publish(Outbound record) {
    working.run();
    if (record.closesTransaction()) {
      published.accumulateAndGet(record.endLsn(), Math::max);
      metrics.transactions.incrementAndGet();
      metrics.events.addAndGet(record.counts().sourceTotal());
    }
    try {
      while (running.getAsBoolean() && !queue.offer(record, 500)) {
        waiting.run();
        if (broken == null && stream != null) {
          try {
            stream.forceUpdateStatus(); // still alive: keep wal_sender_timeout from closing it
          } catch (SQLException e) {
            // the transaction is complete here: finish handing it over, reconnect afterwards
            broken = e;
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while handing over a transaction", e);
    }
  }
}
