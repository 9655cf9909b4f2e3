package io.trellara.benchmarks.e2e.resnap;

import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * When each W1 transaction's COMMIT returned on the source, by the last transfer id it inserted:
 * what the lag of a target is read against. One writer appends (ids rise with commit order: one
 * client, a sequence), samplers read concurrently.
 */
final class CommitLog {
  private final ConcurrentSkipListMap<Long, Long> committedAt = new ConcurrentSkipListMap<>();

  /** The transaction whose last transfer is {@code lastId} committed at {@code nanos}. */
  void committed(long lastId, long nanos) {
    committedAt.put(lastId, nanos);
  }

  /**
   * The target's lag at {@code nowNanos} when its newest visible transfer is {@code appliedId}: how
   * long the oldest transaction committed on the source and not yet visible on the target has been
   * waiting; 0 when every committed transaction is visible (so an idle source has no lag).
   */
  long lagNanos(long appliedId, long nowNanos) {
    Map.Entry<Long, Long> oldestMissing = committedAt.higherEntry(appliedId);
    return oldestMissing == null ? 0 : Math.max(0, nowNanos - oldestMissing.getValue());
  }

  /** The last transfer id committed so far, or 0. */
  long lastId() {
    return committedAt.isEmpty() ? 0 : committedAt.lastKey();
  }

  int size() {
    return committedAt.size();
  }
}
