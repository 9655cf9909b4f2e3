package io.trellara.sink.port;

import io.trellara.protocol.TransactionBoundaryKey;
import java.util.List;
import java.util.Map;

/**
 * Outcome of {@link TransactionApplier#apply}: every transaction handed in was either applied or
 * skipped as a duplicate (otherwise an {@link ApplyException} was thrown).
 *
 * @param applied transactions applied by this call, in order
 * @param duplicates transactions already present in the dedup table, skipped
 * @param positions the progress recorded per topic partition (next offset), for {@code preCommit}
 * @param targetCommits target transactions committed
 * @param attempts total attempts including retries
 */
public record ApplyResult(
    List<TransactionBoundaryKey> applied,
    List<TransactionBoundaryKey> duplicates,
    Map<TopicPartitionKey, Long> positions,
    int targetCommits,
    int attempts) {
  public ApplyResult {
    applied = List.copyOf(applied);
    duplicates = List.copyOf(duplicates);
    positions = Map.copyOf(positions);
  }
}
