package io.trellara.sink.engine;

import io.trellara.sink.port.StagedLane;
import io.trellara.sink.port.Target;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the staging table while a barrier waits: every few seconds while the task holds lanes, the
 * bytes of each lane's chunks staged behind its flow's oldest staged transaction ({@link
 * Target#stagedBehindOldest}, one query); a lane above the bound is paused until the barrier
 * applies and sweeps them. Lanes carry their chunks in commit order, so a lane the waiting barrier
 * still needs a chunk from has nothing staged beyond it and is never paused: the bound cannot hold
 * back the barrier it waits on.
 */
final class StagingBound {
  private static final Logger LOG = LoggerFactory.getLogger(ApplyPipeline.class);

  private long maxBytesPerLane = ApplyPipeline.DEFAULT_MAX_STAGED_BYTES_PER_LANE;
  private long checkNanos = ApplyPipeline.DEFAULT_STAGING_CHECK_MILLIS * 1_000_000L;
  private long checkedAt = System.nanoTime();

  /** Lanes paused because too much is staged behind a waiting barrier. */
  private final Set<TopicPartitionKey> full = new HashSet<>();

  void limits(long maxBytesPerLane, long checkNanos) {
    this.maxBytesPerLane = maxBytesPerLane;
    this.checkNanos = checkNanos;
    this.checkedAt = System.nanoTime() - checkNanos;
  }

  /** Lanes to pause now. */
  Set<TopicPartitionKey> full() {
    return full;
  }

  void forget(TopicPartitionKey tp) {
    full.remove(tp);
  }

  /** Looks at the staged bytes when it is time to and this task holds lanes. */
  void check(Target target, Iterable<PartitionQueues.PartitionState> partitions) {
    long now = System.nanoTime();
    if (now - checkedAt < checkNanos) {
      return;
    }
    boolean holdsLanes = false;
    for (PartitionQueues.PartitionState ps : partitions) {
      holdsLanes |= ps.laneFlow != null;
    }
    if (!holdsLanes) {
      return;
    }
    checkedAt = now;
    Map<StagedLane, Long> staged = target.stagedBehindOldest();
    for (PartitionQueues.PartitionState ps : partitions) {
      if (ps.laneFlow == null) {
        continue;
      }
      long bytes =
          staged.getOrDefault(
              new StagedLane(ps.laneFlow.sourceId(), ps.laneFlow.datasetId(), ps.tp.partition()),
              0L);
      if (bytes > maxBytesPerLane && full.add(ps.tp)) {
        LOG.warn(
            "Pausing lane {}: {} bytes of its chunks are staged behind the oldest staged transaction of"
                + " {} (staging.lane.max.bytes {}), whose barrier waits; it resumes once that applies",
            ps.tp,
            bytes,
            ps.laneFlow,
            maxBytesPerLane);
      } else if (bytes <= maxBytesPerLane && full.remove(ps.tp)) {
        LOG.info(
            "Resuming lane {}: {} bytes staged behind its flow's oldest staged transaction",
            ps.tp,
            bytes);
      }
    }
  }
}
