/**
 * The sink engine, the driver of a task's records: each batch, in order per input partition, goes
 * to the pure {@link io.trellara.sink.buffer.SinkBuffer}, and each decision it returns runs against
 * the target port {@link io.trellara.sink.port.Target}, exactly once and whole per source
 * transaction. It imports nothing from JDBC, Kafka or Connect, so it is unit-tested against an
 * in-memory target and consumer.
 *
 * <ul>
 *   <li>{@link io.trellara.sink.engine.SinkEngine}: what the Connect task calls ({@code open},
 *       {@code put}, {@code committable}); runs the buffer's decisions, with the clock.
 *   <li>{@code Assignments}: the partitions Kafka assigns, seen from the consumer: claimed in the
 *       target, sought to their recorded progress, the gap check on the first record, pauses (flow
 *       control) and fencing.
 *   <li>{@code TargetStreams}: strict chunked transactions applied as their chunks arrive ({@link
 *       io.trellara.sink.port.TargetStream}), and the one retry policy for their transient
 *       failures.
 *   <li>{@code StagingWaits}: a waiting barrier woken by other tasks' staging.
 * </ul>
 *
 * See {@code docs/sink-barriers.md}.
 */
package io.trellara.sink.engine;
