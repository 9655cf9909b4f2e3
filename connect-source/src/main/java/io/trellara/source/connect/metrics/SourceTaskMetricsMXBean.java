package io.trellara.source.connect.metrics;

/**
 * JMX view of one source task: {@code io.trellara:type=source-task,connector=<name>,task=<id>}.
 * Totals count since the task started. Rates are per second over the last {@value
 * SourceTaskMetrics#RATE_WINDOW_SECONDS} seconds. Times are epoch milliseconds or durations in
 * milliseconds; -1 means "not known yet". The online snapshots' attributes are {@link
 * OnlineSnapshotMXBean}'s.
 */
public interface SourceTaskMetricsMXBean extends OnlineSnapshotMXBean {

  /** Committed transactions the capture engine assembled and handed to the publisher. */
  long getTransactionsCaptured();

  /** Changes plus DDL events of the captured transactions. */
  long getEventsCaptured();

  double getTransactionsCapturedPerSecond();

  double getEventsCapturedPerSecond();

  /** Transactions returned from poll() to Connect (on their way to Kafka). */
  long getTransactionsPublished();

  /** Transactions Kafka acknowledged (commitRecord with metadata). */
  long getTransactionsAcknowledged();

  /** Records (envelopes, chunks, manifests, markers) waiting in the engine's queue for poll(). */
  int getRecordsQueued();

  /** Bytes of the records waiting for the publisher (bounded by capture.queue.max.bytes). */
  long getBytesQueued();

  /** pgoutput messages received from the replication stream. */
  long getPgOutputMessages();

  /**
   * pg_current_wal_lsn() minus the slot's confirmed_flush_lsn, sampled every few seconds; -1
   * unknown.
   */
  long getReplicationLagBytes();

  /** The server's WAL position at the last lag sample, e.g. "0/1A2B3C8"; null unknown. */
  /**
   * How long ago the server's WAL was where the slot is (from the samples of the last hour; at
   * least an hour when it is further behind); 0 caught up, -1 unknown.
   */
  long getReplicationLagSeconds();

  String getCurrentWalLsn();

  /** The slot's confirmed_flush_lsn at the last lag sample; null unknown. */
  String getSlotConfirmedFlushLsn();

  /**
   * The slot's wal_status at the last sample (reserved, extended, unreserved, lost); null unknown.
   */
  String getSlotWalStatus();

  /**
   * WAL that may still be written before max_slot_wal_keep_size invalidates the slot; -1 no limit
   * or unknown.
   */
  long getSlotSafeWalBytes();

  /** When the last successful lag sample was taken; -1 never. */
  long getReplicationLagSampledAtMs();

  /** Why the last lag sample failed; null when it succeeded. */
  String getReplicationLagError();

  /**
   * Now minus the source commit timestamp of the last transaction handed to Connect; -1 none yet.
   */
  long getPublishedLagMs();

  /**
   * Now minus the source commit timestamp of the last transaction Kafka acknowledged; -1 none yet.
   */
  long getAcknowledgedLagMs();

  long getLastPublishedCommitTimestampMs();

  long getLastAcknowledgedCommitTimestampMs();

  /** Streamed or open transactions the assembler holds (not yet committed or aborted). */
  long getInFlightTransactions();

  /** Bytes of buffered changes held in memory by the assembler. */
  long getMemoryBytes();

  /** Transactions moved to a spill file since the task started. */
  long getSpilledTransactions();

  /** Bytes of changes written to spill files since the task started. */
  long getSpilledBytes();

  /**
   * DDL statements the database's (shared, database-wide) event trigger reported that this task did
   * not publish: no captured relation, only temporary objects, or ddl.capture.enabled=false.
   */
  long getDdlEventsDropped();

  /**
   * trellara.ddl messages refused and skipped since the task started: not the trigger's JSON, or
   * from a role that is not one of ddl.message.roles (each logged at WARN with its LSN and xid).
   */
  long getDdlMessagesRefused();

  /**
   * How transactions are published, in the wire vocabulary: strict_transaction_order,
   * strict_chunked_transaction_order or partitioned_scale_mode.
   */
  String getBoundaryMode();

  /** The id of the key records are signed with (record.authentication), or "off". */
  String getAuthenticationKeyId();

  /** End LSN of the last transaction Kafka acknowledged (what PostgreSQL may discard WAL up to). */
  String getLastAcknowledgedLsn();

  /** The same as a number (for graphs). */
  long getLastAcknowledgedLsnValue();

  /** The last position reported to PostgreSQL as flushed (acknowledged, or idle position). */
  String getReportedFlushLsn();

  /**
   * Times the task regained its replication connection after losing it (server restart, network
   * drop...).
   */
  long getReconnects();

  /** The last loss of the replication connection (exception and message); null when none yet. */
  String getLastReplicationError();

  /**
   * 0 while connected; while reconnecting (or after giving up), milliseconds since the connection
   * was lost.
   */
  long getDisconnectedMillis();

  /** Heartbeat messages written on the source database (heartbeat.interval.ms > 0). */
  long getHeartbeatsSent();

  /**
   * Heartbeat messages that came back through the slot (never published): the whole path is alive.
   */
  long getHeartbeatsReceived();

  /** WAL position of the last heartbeat written; null none yet. */
  String getLastHeartbeatLsn();

  /** Why the last heartbeat could not be written; null when it was. */
  String getLastHeartbeatError();

  /** The initial snapshot: NOT_NEEDED (none this run), RUNNING, COMPLETED or FAILED. */
  String getSnapshotState();

  long getSnapshotTablesTotal();

  long getSnapshotTablesDone();

  /** Rows and bytes (COPY text) the snapshot has read. */
  long getSnapshotRows();

  long getSnapshotBytes();

  double getSnapshotRowsPerSecond();

  /** Estimated seconds left, from the tables' pg_class.reltuples; -1 unknown. */
  long getSnapshotEtaSeconds();

  /** The table the snapshot is reading; empty when none. */
  String getSnapshotCurrentTable();

  /**
   * capture.stall.timeout.ms in seconds: how long a stage may wait without progress before the task
   * fails with STALLED.
   */
  long getStallBoundSeconds();

  /**
   * Seconds since the replication stream last received a message (data or keepalive) while it waits
   * for the server; 0 when it does not wait (no stream open, or handing over to the publisher).
   */
  long getReplicationStreamSecondsSinceProgress();

  /** What the replication stream waits for; null when it does not wait. */
  String getReplicationStreamWaitingFor();

  /** Seconds since the initial snapshot last read a row while it reads; 0 when it does not. */
  long getSnapshotReadSecondsSinceProgress();

  /** What the snapshot's reads wait for (the table); null when no snapshot is read. */
  String getSnapshotReadWaitingFor();

  /**
   * Seconds since Kafka last acknowledged a record while records handed to Kafka Connect wait for
   * it; 0 when none wait.
   */
  long getProducerSecondsSinceProgress();

  /** What the producer waits for; null when every record handed over is acknowledged. */
  String getProducerWaitingFor();
}
