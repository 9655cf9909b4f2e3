package io.trellara.sink.port;

import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.v1.TransactionEnvelope;
import java.util.Map;
import java.util.Objects;

/**
 * One whole, verified and validated source transaction ready to apply, with the input position
 * after it.
 *
 * @param envelope the complete transaction (for chunked boundaries: reconstructed and
 *     barrier-verified)
 * @param topicPartition where the transaction was read from, or {@code null} when no progress is
 *     recorded
 * @param nextOffset the offset the consumer resumes at once this transaction is applied (last
 *     offset + 1)
 * @param lanePositions progress of lanes whose chunks it was reassembled from (held in memory),
 *     recorded with it
 * @param fromChunks reassembled from chunks in memory: chunks of an earlier, partial publication of
 *     it may be staged, and are swept with its apply
 */
public record SourceTransaction(
    TransactionEnvelope envelope,
    TopicPartitionKey topicPartition,
    long nextOffset,
    Map<TopicPartitionKey, Long> lanePositions,
    boolean fromChunks) {
  public SourceTransaction {
    Objects.requireNonNull(envelope, "envelope");
    lanePositions = Map.copyOf(lanePositions);
  }

  public SourceTransaction(
      TransactionEnvelope envelope, TopicPartitionKey topicPartition, long nextOffset) {
    this(envelope, topicPartition, nextOffset, Map.of(), false);
  }

  public static SourceTransaction withoutPosition(TransactionEnvelope envelope) {
    return new SourceTransaction(envelope, null, -1);
  }

  /** What the sink deduplicates by: the transaction within its flow. */
  public FlowKey flowKey() {
    return FlowKey.of(envelope);
  }

  public TransactionBoundaryKey key() {
    return new TransactionBoundaryKey(
        envelope.getSourceId(),
        envelope.getDatabaseId(),
        envelope.getCommitLsn(),
        envelope.getTransactionId());
  }
}
