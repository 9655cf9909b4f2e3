package io.trellara.source.connect.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * Transactions handed to Connect and acknowledged by Kafka, with the source commit time of the last
 * of each: what the published and acknowledged lags are measured from. Written by the task's
 * threads, read by JMX.
 */
final class PublishCounts {
  private final LongAdder published = new LongAdder();
  private final LongAdder acknowledged = new LongAdder();
  private volatile long lastPublishedCommitMs = -1;
  private volatile long lastAcknowledgedCommitMs = -1;

  void published(long commitTimestampMs) {
    published.increment();
    lastPublishedCommitMs = commitTimestampMs;
  }

  void acknowledged(long commitTimestampMs) {
    acknowledged.increment();
    if (commitTimestampMs > lastAcknowledgedCommitMs) {
      lastAcknowledgedCommitMs = commitTimestampMs;
    }
  }

  long published() {
    return published.sum();
  }

  long acknowledged() {
    return acknowledged.sum();
  }

  long lastPublishedCommitMs() {
    return lastPublishedCommitMs;
  }

  long lastAcknowledgedCommitMs() {
    return lastAcknowledgedCommitMs;
  }

  /** Now minus a commit time; -1 when there is none yet. */
  static long since(long commitMs) {
    return commitMs < 0 ? -1 : Math.max(0, System.currentTimeMillis() - commitMs);
  }
}
