package io.trellara.sink.port;

import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The target port: the eight verbs a sink needs of the database it applies to. Every call is one
 * target transaction (or, for {@link #openStream}, opens one) holding the rows, the dedup records
 * and the progress positions together, so what it reports is durable when it returns. The
 * PostgreSQL implementation (sessions, retries, COPY) is {@code postgres.TransactionApplier}; tests
 * drive the engine against an in-memory one. Options, metrics and pauses are not the port's
 * business.
 */
public interface Target {

  /**
   * This task's input partitions are now {@code partitions}: each is claimed for it in the target,
   * fencing any earlier owner (whose later commits into them fail with {@link
   * ApplyException.Reason#FENCED}), and the progress recorded for them is returned, read once the
   * earlier owner's last commit has ended. Claiming again what this task holds reads its progress
   * again.
   */
  Map<TopicPartitionKey, Long> claim(List<TopicPartitionKey> partitions);

  /**
   * Applies consecutive whole transactions in order (grouped); one already applied is skipped and
   * reported as a duplicate. Throws {@link ApplyException} or the {@code
   * ProtocolViolationException} that stops apply; the groups before the failing one are committed.
   */
  ApplyResult apply(List<SourceTransaction> transactions);

  /**
   * Stages verified chunks (a replay is a no-op) with their lanes' watermarks and {@code
   * positions}, in one target transaction. Returns the transactions set aside instead: those whose
   * chunks would take their flow past staging.flow.max.bytes. None of their chunks of this call is
   * staged, and when any is set aside no position is recorded (the caller holds its partitions
   * before their first chunk of this call).
   */
  Set<FlowKey> stage(List<StagedChunk> chunks, Map<TopicPartitionKey, Long> positions);

  /**
   * Where each barrier of {@code looks} stands (applied already, ready, or waiting for chunks), all
   * in one target transaction and a few statements however many they are; a barrier complete but
   * for the chunks it holds comes back with its staged chunks read back ({@link
   * BarrierLook.Seen#staged}) within a byte bound, so it can apply from memory. A chunk of a {@link
   * BarrierLook#head head} barrier that can no longer arrive throws the rule it breaks ({@code
   * MISSING_CHUNK}, or the rule another staged version breaks); so does a staged chunk read back
   * that fails its checksum. The answers are in the order of {@code looks}.
   */
  List<BarrierLook.Seen> look(List<BarrierLook> looks);

  /**
   * Applies the ready barrier of {@code m} from its chunks, with its dedup record and {@code
   * positions}: those in {@code held} (verified lane chunks this task holds in memory) from there,
   * every other one from staging.
   */
  BarrierResult applyBarrier(
      TransactionManifest m, Map<TopicPartitionKey, Long> positions, List<PartitionChunk> held);

  /**
   * Opens the target transaction of a strict-chunked transaction whose first chunk is {@code
   * first}: its chunks are written as they arrive and it commits at its marker. Throws {@link
   * TargetStream.TransientFailure} when the target cannot be reached now.
   */
  TargetStream openStream(PartitionChunk first);

  /**
   * Per lane, the bytes of partitioned chunks staged for transactions after the oldest one staged
   * of their flow: what queues behind a barrier that waits (one query).
   */
  Map<StagedLane, Long> stagedBehindOldest();

  /**
   * Of {@code applied} (positions whose target transactions have committed), what Kafka offsets may
   * be committed up to: with synchronous commits all of it; with asynchronous commits what the
   * target has flushed. Throws {@link TargetProgressLost} when the target may have lost commits.
   */
  Map<TopicPartitionKey, Long> durable(Map<TopicPartitionKey, Long> applied);
}
