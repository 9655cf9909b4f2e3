package io.trellara.sink.port;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Which applied positions are flushed on the target when it commits asynchronously ({@code
 * synchronous_commit=off}): only those may be committed to Kafka. Each time the task commits
 * offsets it offers the positions applied so far together with the target's WAL insert position
 * read after them (every commit behind those positions ends at or before it) and the target's WAL
 * flush position; positions whose insert position the flush position has reached are flushed. As
 * PostgreSQL's apply workers report to their publisher only what the subscriber has flushed. Pure
 * bookkeeping.
 */
public final class FlushedPositions {
  private record Pending(long walInsertLsn, Map<TopicPartitionKey, Long> positions) {}

  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  private final Map<TopicPartitionKey, Long> flushed = new HashMap<>();

  /**
   * Offers {@code positions} (applied, perhaps not flushed) with the target's WAL insert position
   * read after they were committed, and returns every position flushed as of {@code walFlushLsn}.
   */
  public Map<TopicPartitionKey, Long> offer(
      Map<TopicPartitionKey, Long> positions, long walInsertLsn, long walFlushLsn) {
    pending.addLast(new Pending(walInsertLsn, Map.copyOf(positions)));
    while (!pending.isEmpty() && flushedUpTo(walFlushLsn, pending.peekFirst().walInsertLsn())) {
      flushed.putAll(pending.pollFirst().positions());
    }
    return Map.copyOf(flushed);
  }

  /** WAL page size (PostgreSQL's XLOG_BLCKSZ, 8 kB unless built otherwise). */
  static final long WAL_PAGE_BYTES = 8192;

  /** The long page header at the start of a WAL segment (the short one is smaller). */
  static final long WAL_LONG_PAGE_HEADER_BYTES = 40;

  /**
   * The WAL flushed up to {@code flush} holds every record inserted before {@code insert}: it is at
   * or past it, or at the page boundary whose header {@code insert} points just past (after a
   * record that ends a page, the insert position points past the next page's header, which holds no
   * record).
   */
  static boolean flushedUpTo(long flush, long insert) {
    return Long.compareUnsigned(flush, insert) >= 0
        || (flush % WAL_PAGE_BYTES == 0
            && insert - flush > 0
            && insert - flush <= WAL_LONG_PAGE_HEADER_BYTES);
  }

  /** True when everything offered is flushed. */
  public boolean allFlushed() {
    return pending.isEmpty();
  }

  /**
   * Forgets everything (partitions assigned or revoked, or read again from the target's progress).
   */
  public void clear() {
    pending.clear();
    flushed.clear();
  }
}
