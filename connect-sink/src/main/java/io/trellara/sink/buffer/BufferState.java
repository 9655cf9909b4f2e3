package io.trellara.sink.buffer;

import io.trellara.sink.port.TopicPartitionKey;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the buffer knows between batches: every partition's state, the lane chunks held, the staging
 * bound, the queues' drain, the rewinds asked for, and the gauges the metrics read.
 */
final class BufferState implements StreamSteps.Host {
  final Map<TopicPartitionKey, PartitionState> partitions = new LinkedHashMap<>();
  final Map<TopicPartitionKey, Long> rewinds = new HashMap<>();
  final LaneHolds lanes = new LaneHolds();
  final StagingBound staging = new StagingBound();
  final SetAsideHolds aside = new SetAsideHolds();
  final BarrierDrain drain;
  final StreamSteps streams = new StreamSteps(this);
  long orphanManifestsDiscarded;

  /** How long an open stream may wait for its next record (0: no bound). */
  long streamIdleNanos;

  volatile long waitingTransactions;
  volatile long waitingLanes;
  volatile long queuedBytes;

  BufferState(long recheckNanos) {
    this.drain = new BarrierDrain(lanes, partitions.values(), recheckNanos);
  }

  PartitionState state(TopicPartitionKey tp) {
    return partitions.computeIfAbsent(tp, PartitionState::new);
  }

  @Override
  public void poison(PartitionState ps, RuntimeException error, long offset) {
    ps.boundaries = true;
    if (ps.pendingManifest != null) { // the partition must be re-read from the manifest on
      offset = Math.min(offset, ps.pendingManifest.offset());
      ps.pendingManifest = null;
    }
    ps.queue.add(new Items.PoisonItem(error, offset));
    ps.poisoned = true;
  }

  @Override
  public void rewind(PartitionState ps, long offset) {
    ps.rewindTo = offset;
    rewinds.put(ps.tp, offset);
  }

  @Override
  public void orphanDiscarded() {
    orphanManifestsDiscarded++;
  }

  /**
   * True while the partition waits for the record it asked to get again; that record ends the wait.
   */
  static boolean rewinding(PartitionState ps, long offset) {
    if (ps.rewindTo < 0) {
      return false;
    }
    if (offset != ps.rewindTo) {
      return true;
    }
    ps.rewindTo = -1;
    return false;
  }

  void publishGauges() {
    BufferGauges g = BufferGauges.of(partitions.values(), lanes);
    waitingTransactions = g.waitingTransactions();
    waitingLanes = g.waitingLanes();
    queuedBytes = g.queuedBytes();
  }
}
