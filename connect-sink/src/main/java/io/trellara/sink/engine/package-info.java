/**
 * The sink engine: every record of a task's input, in order per input partition, to the target,
 * exactly once and whole per source transaction. Pure: it imports nothing from JDBC, Kafka or
 * Connect, and reaches the database only through the target port {@link
 * io.trellara.sink.port.Target} (and {@link io.trellara.sink.port.TargetStream} for a transaction
 * applied as its chunks arrive), so it is unit-tested against an in-memory target.
 *
 * <ul>
 *   <li>{@link io.trellara.sink.engine.ApplyPipeline}: envelopes, manifests and commit markers
 *       queue per partition (PartitionQueues); consecutive envelopes apply as groups; a manifest
 *       bound to its marker is a barrier.
 *   <li>Three ways for a barrier: whole in one batch, verified in memory and applied as its
 *       envelope (WholeBarrier); strict chunked across batches, applied as its chunks arrive and
 *       committed at its marker (BarrierStreams over {@code TargetStream}); otherwise, and for
 *       partitioned lanes held by any task, chunks staged in the target and the barrier applied
 *       once every listed chunk is staged ({@link io.trellara.sink.port.BarrierState} decides
 *       ready, waiting or missing for good).
 *   <li>Durable positions (what Kafka offsets may be committed up to), rewinds (deliver again from
 *       an offset), and {@link io.trellara.sink.engine.FlowControl} (which partitions to pause) are
 *       what the Connect task turns into {@code preCommit}, {@code context.offset} and {@code
 *       context.pause/resume}.
 * </ul>
 *
 * See {@code docs/sink-barriers.md}.
 */
package io.trellara.sink.engine;
