package io.trellara.sink.buffer;

import io.trellara.sink.port.StagedLane;
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
  private static final Logger LOG = LoggerFactory.getLogger(StagingBound.class);

  private long maxBytesPerLane = SinkBuffer.DEFAULT_MAX_STAGED_BYTES_PER_LANE;
  private long checkNanos = SinkBuffer.DEFAULT_STAGING_CHECK_MILLIS * 1_000_000L;

  /**
   * When the staged bytes were last looked at; {@link Long#MIN_VALUE}: not yet (first call
   * decides).
   */
  private long checkedAt = Long.MIN_VALUE;

  /** Look at the first chance (limits were set), rather than one interval after the first call. */
  private boolean checkAtOnce;

  /** Lanes paused because too much is staged behind a waiting barrier. */
  private final Set<TopicPartitionKey> full = new HashSet<>();

  void limits(long maxBytesPerLane, long checkNanos) {
    this.maxBytesPerLane = maxBytesPerLane;
    this.checkNanos = checkNanos;
    this.checkedAt = Long.MIN_VALUE;
    this.checkAtOnce = true;
  }

  /** Lanes to pause now. */
  Set<TopicPartitionKey> full() {
    return full;
  }

  void forget(TopicPartitionKey tp) {
    full.remove(tp);
  }

  /**
   * True when the staged bytes are to be looked at now (it is time to, and this task holds lanes):
   * the buffer asks the target ({@link Decision.MeasureStaging}) and hands the answer to {@link
   * #measured}.
   */
  boolean due(Iterable<PartitionState> partitions, long now) {
    if (checkedAt == Long.MIN_VALUE) {
      checkedAt = checkAtOnce ? now - checkNanos : now;
    }
    if (now - checkedAt < checkNanos) {
      return false;
    }
    boolean holdsLanes = false;
    for (PartitionState ps : partitions) {
      holdsLanes |= ps.laneFlow != null;
    }
    if (!holdsLanes) {
      return false;
    }
    checkedAt = now;
    return true;
  }

  /** What the target said is staged behind each flow's oldest staged transaction, per lane. */
  void measured(Map<StagedLane, Long> staged, Iterable<PartitionState> partitions) {
    for (PartitionState ps : partitions) {
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
