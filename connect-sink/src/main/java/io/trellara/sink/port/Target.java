package io.trellara.sink.port;

import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.engine.ApplyPipeline;
import io.trellara.sink.postgres.ApplyMetrics;
import io.trellara.sink.postgres.ApplyOptions;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The target port: what {@link ApplyPipeline} needs from the database it applies to. Every call is
 * one target transaction (or, for {@link #openStream}, opens one) holding the rows, the dedup
 * records and the progress positions together, so what it reports is durable when it returns.
 * {@link TransactionApplier} is the PostgreSQL implementation (retries, sessions, COPY); tests
 * drive the pipeline against an in-memory one.
 */
public interface Target extends AutoCloseable {

  /**
   * Applies consecutive whole transactions in order (grouped per {@link
   * ApplyOptions#groupMaxTransactions()}); one already applied is skipped and reported as a
   * duplicate. Throws {@link ApplyException} or the {@code ProtocolViolationException} that stops
   * apply; the groups before the failing one are committed.
   */
  ApplyResult apply(List<SourceTransaction> transactions);

  /**
   * Stages verified chunks (a replay is a no-op) with their lanes' watermarks and {@code
   * positions}, in one target transaction; returns how many were newly staged.
   */
  int stage(List<StagedChunk> chunks, Map<TopicPartitionKey, Long> positions);

  /**
   * Where the barrier of {@code m} stands: applied already, ready, or waiting; a chunk that can no
   * longer arrive throws the rule it breaks ({@code MISSING_CHUNK}, or the rule another staged
   * version breaks).
   */
  BarrierState.Verdict checkBarrier(TransactionManifest m);

  /**
   * Applies the ready barrier of {@code m} from its chunks, with its dedup record and {@code
   * positions}: those in {@code held} (verified lane chunks this task holds in memory) from there,
   * every other one from staging.
   */
  BarrierResult applyBarrier(
      TransactionManifest m, Map<TopicPartitionKey, Long> positions, List<PartitionChunk> held);

  /** {@link #applyBarrier(TransactionManifest, Map, List)} with every chunk staged. */
  default BarrierResult applyBarrier(
      TransactionManifest m, Map<TopicPartitionKey, Long> positions) {
    return applyBarrier(m, positions, List.of());
  }

  /**
   * Per lane, the bytes of partitioned chunks staged for transactions after the oldest one staged
   * of their flow: what queues behind a barrier that waits (one query).
   */
  Map<StagedLane, Long> stagedBehindOldest();

  /** True when the transaction is recorded as applied. */
  boolean isApplied(FlowKey key);

  /**
   * Opens the target transaction of a strict-chunked transaction whose first chunk is {@code
   * first}: its chunks are written as they arrive and it commits at its marker. Throws {@link
   * TargetStream.TransientFailure} when the target cannot be reached now.
   */
  TargetStream openStream(PartitionChunk first);

  /**
   * Makes this task the owner of {@code partitions} in the target, fencing any earlier owner (its
   * later commits into them fail with {@link ApplyException.Reason#FENCED}), and returns the
   * progress recorded for them once the earlier owner's last commit has ended.
   */
  Map<TopicPartitionKey, Long> claim(List<TopicPartitionKey> partitions);

  /**
   * The claims other tasks hold on any of {@code partitions}, for a message (none: this task owns
   * them all).
   */
  List<String> claimsByOthers(Collection<TopicPartitionKey> partitions);

  /** The progress the target records for this sink, per input partition. */
  Map<TopicPartitionKey, Long> recordedPositions();

  /**
   * Of {@code applied} (positions whose target transactions have committed), what Kafka offsets may
   * be committed up to: with synchronous commits all of it; with asynchronous commits what the
   * target has flushed, as {@code book} tracks it from one call to the next. Throws {@link
   * TargetProgressLost} when the target may have lost commits.
   */
  Map<TopicPartitionKey, Long> flushedPositions(
      Map<TopicPartitionKey, Long> applied, FlushedPositions book);

  ApplyOptions options();

  ApplyMetrics metrics();

  /** Waits {@code millis} before a retry (the implementation's sleeper, replaceable in tests). */
  void pause(long millis);

  @Override
  void close();
}
