package io.trellara.sink.postgres;

import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlushedPositions;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.checkpoint.AsyncCommits;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.checkpoint.PartitionOwners;
import java.util.List;
import java.util.Map;

/**
 * Which task owns each input partition, what its progress is, and what Kafka may be told of it:
 * claims in {@code trellara_sink.partition_owners} (fencing the previous owner), the progress read
 * after them, the positions whose asynchronous commits the target has flushed, and whether a
 * failure is really another task's claim (a fence).
 */
final class Ownership {
  private final TransactionApplier applier;
  private final RetryingExecutor executor;
  private final AsyncCommits asyncCommits;

  /** The partitions this task claimed last: where another task's claim means a fence. */
  private List<TopicPartitionKey> claimed = List.of();

  /** With asynchronous commits: which applied positions the target has flushed. */
  private final FlushedPositions book = new FlushedPositions();

  Ownership(TransactionApplier applier, RetryingExecutor executor, AsyncCommits asyncCommits) {
    this.applier = applier;
    this.executor = executor;
    this.asyncCommits = asyncCommits;
  }

  // ---- what the task needs
  // ----------------------------------------------------------------------------

  /**
   * Claims {@code partitions} for this task ({@link PartitionOwners}) and returns the progress
   * recorded for them, read after the previous owner's last commit: one target transaction.
   */
  Map<TopicPartitionKey, Long> claim(List<TopicPartitionKey> partitions) {
    claimed = List.copyOf(partitions);
    book.clear();
    if (partitions.isEmpty()) {
      return Map.of();
    }
    return executor.run(
        "the claim of " + partitions + " by sink " + applier.options().sinkName(),
        (s, a) -> {
          PartitionOwners.Claimed c =
              PartitionOwners.claimAndRead(
                  s, applier.options().sinkName(), applier.owner(), partitions);
          return new RetryingExecutor.Done<>(c.positions(), java.util.Set.of(), c.afterCommit());
        });
  }

  /** The claims other tasks hold on any of {@code partitions}, for a message. */
  public List<String> claimsByOthers(java.util.Collection<TopicPartitionKey> partitions) {
    if (partitions.isEmpty()) {
      return List.of();
    }
    return executor.run(
        "the owners of " + partitions,
        (s, a) ->
            RetryingExecutor.Done.of(
                PartitionOwners.claimsByOthers(
                    s, applier.options().sinkName(), applier.owner(), List.copyOf(partitions))));
  }

  /** The progress the target records for this sink. */
  public Map<TopicPartitionKey, Long> recordedPositions() {
    return executor.run(
        "the progress of sink " + applier.options().sinkName(),
        (s, a) ->
            RetryingExecutor.Done.of(CheckpointStore.positions(s, applier.options().sinkName())));
  }

  /**
   * Of {@code applied} (positions whose target transactions have committed), what Kafka offsets may
   * be committed up to: with synchronous commits all of it; with asynchronous commits what the
   * target has flushed (one query of the target's WAL positions per call, tracked from one call to
   * the next in {@link FlushedPositions}).
   */
  Map<TopicPartitionKey, Long> durable(Map<TopicPartitionKey, Long> applied) {
    if (!applier.options().synchronousCommitOff()) {
      return applied;
    }
    long[] wal =
        executor.run(
            "the target's WAL positions",
            (s, a) -> RetryingExecutor.Done.of(CheckpointStore.walInsertAndFlush(s)));
    Map<TopicPartitionKey, Long> flushed =
        new java.util.HashMap<>(book.offer(applied, wal[0], wal[1]));
    flushed
        .keySet()
        .retainAll(applied.keySet()); // revoked partitions are not this task's to commit
    if (book.allFlushed()) {
      asyncCommits.flushed();
    }
    return flushed;
  }

  /**
   * A failure that another task applying the same transactions at the same time would cause (its
   * row is there already, or gone): when another task has claimed this task's partitions, that is
   * what happened, and it is thrown as {@link ApplyException.Reason#FENCED} instead.
   */
  public ApplyException fencedOr(ApplyException e) {
    if (!e.reason().fencingMayExplain() || claimed.isEmpty()) {
      return e;
    }
    try {
      List<String> others = claimsByOthers(claimed);
      if (others.isEmpty()) {
        return e;
      }
      return new ApplyException(
          ApplyException.Reason.FENCED,
          e.relation(),
          e.eventKey(),
          e.sqlState(),
          "another task took this task's partitions over ("
              + String.join("; ", others)
              + ") and applied them meanwhile; what failed here: "
              + e.getMessage(),
          e);
    } catch (RuntimeException unreadable) {
      return e;
    }
  }
}
