package io.trellara.source.replication;

import io.trellara.source.pg.Heartbeat;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Counters the capture thread keeps; safe to read from any thread. The Connect adapter exposes them
 * (over JMX). The assembler's gauges (in flight, memory, spilled) are copied here by the capture
 * thread whenever it reports its position to PostgreSQL (at least every status interval, and
 * whenever the stream is idle), so the single-threaded assembler is never read from another thread.
 */
public final class CaptureMetrics implements Heartbeat.Listener {
  final AtomicLong messages = new AtomicLong();
  final AtomicLong transactions = new AtomicLong();
  final AtomicLong events = new AtomicLong();
  final AtomicLong confirmedFlushLsn = new AtomicLong();
  private final AtomicLong inFlightTransactions = new AtomicLong();
  private final AtomicLong memoryBytes = new AtomicLong();
  private final AtomicLong spilledTransactions = new AtomicLong();
  private final AtomicLong spilledBytes = new AtomicLong();
  private final AtomicLong ddlEventsDropped = new AtomicLong();
  private final AtomicLong ddlMessagesRefused = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicReference<String> lastReplicationError = new AtomicReference<>();

  /** When the replication connection was lost (epoch ms); 0 while connected. */
  private final AtomicLong disconnectedSinceMs = new AtomicLong();

  private final AtomicLong heartbeatsSent = new AtomicLong();
  private final AtomicLong lastHeartbeatSentLsn = new AtomicLong();
  private final AtomicLong heartbeatsReceived = new AtomicLong();
  private final AtomicLong lastHeartbeatReceivedLsn = new AtomicLong();
  private final AtomicReference<String> lastHeartbeatError = new AtomicReference<>();

  /** Called on the capture thread: copies the pipeline's gauges. */
  void sample(TransactionPipeline pipeline) {
    inFlightTransactions.set(pipeline.inFlightTransactions());
    memoryBytes.set(pipeline.memoryBytes());
    spilledTransactions.set(pipeline.spilledTransactions());
    spilledBytes.set(pipeline.spilledBytes());
    ddlEventsDropped.set(pipeline.ddlEventsDropped());
    ddlMessagesRefused.set(pipeline.ddlMessagesRefused());
  }

  /** DDL messages dropped at the source since capture started (as of the last report). */
  public long ddlEventsDropped() {
    return ddlEventsDropped.get();
  }

  /**
   * DDL messages refused (malformed, or from a role outside ddl.message.roles) and skipped since
   * capture started (as of the last report).
   */
  public long ddlMessagesRefused() {
    return ddlMessagesRefused.get();
  }

  /** pgoutput messages received. */
  public long messages() {
    return messages.get();
  }

  /** Committed transactions handed to the publisher queue. */
  public long transactions() {
    return transactions.get();
  }

  /** Changes and DDL events of those transactions. */
  public long events() {
    return events.get();
  }

  /** The last position this engine reported to PostgreSQL as flushed. */
  public long confirmedFlushLsn() {
    return confirmedFlushLsn.get();
  }

  /** Transactions begun or streamed and not yet committed or aborted (as of the last report). */
  public long inFlightTransactions() {
    return inFlightTransactions.get();
  }

  /** Bytes of buffered changes held in memory (as of the last report). */
  public long memoryBytes() {
    return memoryBytes.get();
  }

  /** Bytes written to spill files since capture started (as of the last report). */
  public long spilledBytes() {
    return spilledBytes.get();
  }

  /** Transactions moved to a spill file since capture started (as of the last report). */
  public long spilledTransactions() {
    return spilledTransactions.get();
  }

  /** Called on the capture thread: the replication connection was lost at {@code nowMs}. */
  void disconnected(Throwable cause, long nowMs) {
    lastReplicationError.set(cause.toString());
    disconnectedSinceMs.compareAndSet(0, nowMs);
  }

  /** Called on the capture thread: a stream is open again after a loss. */
  void reconnected() {
    reconnects.incrementAndGet();
    disconnectedSinceMs.set(0);
  }

  /** Times the engine opened a new replication stream after losing one. */
  public long reconnects() {
    return reconnects.get();
  }

  /** The last replication connection loss ({@code Throwable.toString()}); null if none yet. */
  public String lastReplicationError() {
    return lastReplicationError.get();
  }

  /**
   * 0 while connected; while reconnecting (or after giving up), the milliseconds since the loss.
   */
  public long disconnectedMillis(long nowMs) {
    long since = disconnectedSinceMs.get();
    return since == 0 ? 0 : Math.max(1, nowMs - since);
  }

  /** Called on the heartbeat thread: a heartbeat message was written at {@code lsn}. */
  @Override
  public void heartbeatSent(long lsn) {
    heartbeatsSent.incrementAndGet();
    lastHeartbeatSentLsn.accumulateAndGet(lsn, Math::max);
    lastHeartbeatError.set(null);
  }

  @Override
  public void heartbeatFailed(String cause) {
    lastHeartbeatError.set(cause);
  }

  /**
   * Called on the capture thread: a heartbeat message came back through the slot at {@code lsn}.
   */
  void heartbeatReceived(long lsn) {
    heartbeatsReceived.incrementAndGet();
    lastHeartbeatReceivedLsn.accumulateAndGet(lsn, Math::max);
  }

  /** Heartbeat messages written on the source database since capture started. */
  public long heartbeatsSent() {
    return heartbeatsSent.get();
  }

  /** WAL position of the last heartbeat written; 0 none yet. */
  public long lastHeartbeatSentLsn() {
    return lastHeartbeatSentLsn.get();
  }

  /** Heartbeat messages decoded from the slot (by this engine: they are never published). */
  public long heartbeatsReceived() {
    return heartbeatsReceived.get();
  }

  /** WAL position of the last heartbeat decoded from the slot; 0 none yet. */
  public long lastHeartbeatReceivedLsn() {
    return lastHeartbeatReceivedLsn.get();
  }

  /** Why the last heartbeat could not be written; null when it was. */
  public String lastHeartbeatError() {
    return lastHeartbeatError.get();
  }
}
