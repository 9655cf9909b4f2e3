package io.trellara.benchmarks.e2e.resnap;

import io.trellara.testplatform.PostgresDatabase;
import java.util.Set;

/**
 * One way of loading the big table into a target that W1 streams into: Trellara's signalled online
 * snapshot ({@link TrellaraResnapLeg}) or native logical replication's {@code REFRESH PUBLICATION
 * WITH (copy_data = true)} ({@link NativeResnapLeg}). {@link ResnapshotBenchmark} drives each the
 * same way and watches its target with {@link TargetWatch}.
 */
interface ResnapLeg extends AutoCloseable {
  String name();

  /**
   * The target database, W1's tables on both sides equal and streaming, the big table on the target
   * in its state before the load.
   */
  void start() throws Exception;

  PostgresDatabase target();

  /** The big table's row counts on the target before and after the load: its whole states. */
  Set<Long> wholeCounts();

  /** Asks for the load of the big table. */
  void trigger() throws Exception;

  /** Whether the load is complete and visible on the target. */
  boolean loaded() throws Exception;

  /**
   * The leg's own figures of the load (what its logs or catalogues say), one line; may be empty.
   */
  String details() throws Exception;

  /** Removes the pipeline and the target database; never throws. */
  @Override
  void close();
}
