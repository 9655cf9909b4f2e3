package io.trellara.sink.connect.metrics;

/**
 * JMX view of one sink task: {@code io.trellara:type=sink-task,connector=<name>,task=<id>}. Totals
 * count since the task started. Rates are per second over the last {@value
 * SinkTaskMetrics#RATE_WINDOW_SECONDS} seconds. Latencies are in milliseconds over the last {@value
 * SinkTaskMetrics#LATENCY_WINDOW} applied transactions; -1 means "none yet".
 */
public interface SinkTaskMetricsMXBean {

  /**
   * The boundary mode of the last transaction applied, in the wire vocabulary:
   * "strict_transaction_order" (envelopes; also before anything is applied),
   * "strict_chunked_transaction_order" or "partitioned_scale_mode".
   */
  String getBoundaryMode();

  /**
   * The key id of the last record authenticated (record.authentication): "off" when authentication
   * is off, "none" before a signed record arrived.
   */
  String getAuthenticationKeyId();

  /** Source transactions applied to the target (committed there). */
  long getTransactionsApplied();

  double getTransactionsAppliedPerSecond();

  /** Source transactions found already applied (dedup table) and skipped. */
  long getDuplicatesSkipped();

  long getRowsInserted();

  long getRowsUpdated();

  long getRowsDeleted();

  long getTruncates();

  long getDdlReplayed();

  long getDdlSkipped();

  long getMissingRowsIgnored();

  /** Target transactions committed (one per group of source transactions). */
  long getTargetCommits();

  /** Attempts repeated after a transient failure. */
  long getRetries();

  /** Groups the target refused, applied again one source transaction per target transaction. */
  long getGroupsSplit();

  /**
   * Transactions waiting at a barrier: barriers queued until every listed chunk is staged, and
   * manifests waiting for their commit marker. Always 0 in strict mode.
   */
  long getTransactionsWaitingAtBarrier();

  /**
   * Lanes whose chunks the barrier at the head of a queue still lacks (as of its last check); 0
   * when none waits.
   */
  long getBufferedLanes();

  /** Bytes of records (envelopes, manifests) held in memory behind a waiting barrier. */
  long getBufferedBytes();

  /**
   * Chunked or partitioned transactions applied through their barrier (included in
   * TransactionsApplied).
   */
  long getBarriersApplied();

  /** Chunks this task staged in the target (trellara_sink.staged_chunks); replays excluded. */
  long getChunksStaged();

  /** Encoded bytes of the chunks this task staged. */
  long getStagedBytes();

  /**
   * Vacuums of trellara_sink.staged_chunks this task ran: after its applies deleted 1,000 staged
   * chunks, at most once a second, so cross-task barriers do not read through dead rows.
   */
  long getStagingVacuums();

  /**
   * Transactions set aside rather than staged: their chunks would have taken their flow past
   * staging.flow.max.bytes (junk of an invented flow, or a real flow that needs a larger bound).
   */
  long getTransactionsSetAside();

  /** Looks at waiting barriers: one target transaction each, however many barriers it judged. */
  long getBarrierLooks();

  /** Times another task's staging woke this one (LISTEN/NOTIFY) while a barrier waited. */
  long getStagingWakeups();

  /** Source commit timestamp to target commit, of the last applied transaction. */
  long getCommitToAppliedLatencyMs();

  long getCommitToAppliedLatencyP50Ms();

  long getCommitToAppliedLatencyP99Ms();

  /** How many transactions the latency percentiles are computed over. */
  int getCommitToAppliedLatencySamples();

  /** Commit LSN of the last applied transaction, e.g. "0/1A2B3C8"; null none yet. */
  String getLastAppliedCommitLsn();

  /** Source commit timestamp of the last applied transaction (epoch ms); -1 none yet. */
  long getLastAppliedCommitTimestampMs();

  /**
   * Seconds since the main target session last made progress while it works (a statement, a COPY, a
   * lock wait); 0 while idle. Past apply.stall.timeout.ms the task fails as STALLED.
   */
  long getTargetStatementSecondsSinceProgress();

  /** What the main target session waits for now (empty while idle). */
  String getTargetStatementWaitingFor();

  /** The same for the session of a transaction applied as its chunks arrive. */
  long getStreamedTransactionSecondsSinceProgress();

  String getStreamedTransactionWaitingFor();

  /** The stall bound (apply.stall.timeout.ms) in seconds; 0 when unbounded. */
  long getStallBoundSeconds();
}
