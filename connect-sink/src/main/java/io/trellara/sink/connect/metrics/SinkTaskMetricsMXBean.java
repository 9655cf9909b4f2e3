package io.trellara.sink.connect.metrics;

/**
 * JMX view of one sink task: {@code io.trellara:type=sink-task,connector=<name>,task=<id>}. Totals count since
 * the task started. Rates are per second over the last {@value SinkTaskMetrics#RATE_WINDOW_SECONDS} seconds.
 * Latencies are in milliseconds over the last {@value SinkTaskMetrics#LATENCY_WINDOW} applied transactions;
 * -1 means "none yet".
 */
public interface SinkTaskMetricsMXBean {

    /** "strict": the boundary mode this task applies (the only one this release supports). */
    String getBoundaryMode();

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

    /** Transactions waiting at a barrier for missing chunks or their commit marker; always 0 in strict mode. */
    long getTransactionsWaitingAtBarrier();

    /** Lanes the barrier buffer holds; always 0 in strict mode (envelopes arrive whole). */
    long getBufferedLanes();

    /** Bytes the barrier buffer holds; always 0 in strict mode. */
    long getBufferedBytes();

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
}
