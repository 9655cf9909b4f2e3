package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.PostgresDatabase;

/**
 * One replication pipeline between the run's two servers, on a source and a target database of its
 * own, so that no two pipelines ever write the same target. {@link Workloads} drives every leg the
 * same way.
 */
interface Leg extends AutoCloseable {

  /**
   * The name in the report: {@code native}, {@code strict}, {@code strict_chunked} or {@code
   * partitioned}.
   */
  String mode();

  /** Creates the databases, the benchmark's tables on both and the pipeline between them. */
  void start() throws Exception;

  PostgresDatabase source();

  PostgresDatabase target();

  /** The topic carrying the leg's envelopes, or null (native replication). */
  default String strictTopic() {
    return null;
  }

  /**
   * CPU the Connect worker's own JVM used so far; -1 when it shares this JVM (then it cannot be
   * told apart).
   */
  default long workerCpuNanos() {
    return -1;
  }

  /** The Connect worker's threads' CPU by role, or null when it shares this JVM. */
  default WorkerThreads workerThreads() {
    return null;
  }

  default String bootstrapServers() {
    return null;
  }

  /** What to sample around the bulk transaction (first before it starts); by default nothing. */
  default Stages stages() {
    return Stages.NONE;
  }

  /**
   * Tears the pipeline and its databases down, so that nothing of this leg decodes WAL, applies or
   * vacuums while the next leg is measured (every logical walsender reads all of the server's WAL).
   */
  @Override
  void close();

  /** A timeline of the pipeline's own stages during the bulk transaction. */
  interface Stages {
    Stages NONE =
        new Stages() {
          @Override
          public void sample() {}

          @Override
          public void print(long committedNanos) {}
        };

    void sample();

    /** Prints when each stage first and last moved, in seconds after the COMMIT returned. */
    void print(long committedNanos);
  }
}
