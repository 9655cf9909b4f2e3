package io.trellara.benchmarks.e2e;

/**
 * One leg's figures, in seconds unless named otherwise.
 *
 * @param bulkStartToEqual bulk INSERT started on the source → the target holds every row
 * @param bulkCommitToApplied bulk COMMIT returned on the source → the transaction is visible on the
 *     target
 * @param transfersConverged first transfer started → the target equals the source
 * @param transfersSource the transfer workload's own time on the source (all its commits)
 * @param transfersCpuMillis CPU this JVM (broker, worker and its connectors, the workload's client)
 *     used from the first transfer until the target equalled the source
 * @param workerCpuMillis CPU the Connect worker's own JVM used over the same time; -1 when the
 *     worker ran in this JVM ({@code -Dbench.worker=process} runs it in its own)
 * @param workerJitMillis of it, the worker's JIT compiler threads'; -1 when not known
 */
record LegResult(
    String mode,
    double bulkStartToEqual,
    double bulkCommitToApplied,
    double transfersConverged,
    double transfersSource,
    double latencyP50Millis,
    double latencyP99Millis,
    double transfersCpuMillis,
    double workerCpuMillis,
    double workerJitMillis) {}
