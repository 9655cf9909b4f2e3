package io.trellara.sink.buffer;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.port.BarrierState;
import java.util.Set;
import java.util.TreeSet;

/** How long a barrier has waited for its chunks: logged once, and failed closed past the bound. */
final class BarrierWaits {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BarrierWaits.class);

  private BarrierWaits() {}

  /**
   * A barrier may wait for chunks of lanes other tasks hold; it is logged once it has waited {@link
   * SinkBuffer#WAIT_LOG_NANOS}, and fails closed as {@code MISSING_CHUNK} naming the chunks it
   * still lacks once it has waited {@code barrier.max.wait.ms} without one of them arriving (a
   * chunk lost on a lane that never carries another transaction would otherwise be waited for
   * forever).
   */
  static Decision checkWait(
      PartitionState ps, Items.BarrierItem b, BarrierState.Verdict v, long now, long maxWaitNanos) {
    if (b.waitingSince == 0 || v.absent().size() < b.absentChunks) {
      b.waitingSince = now; // waiting starts, or a chunk it lacked arrived: progress
      b.waitLogged = false;
    }
    b.absentChunks = v.absent().size();
    long waited = now - b.waitingSince;
    if (!b.waitLogged && waited >= SinkBuffer.WAIT_LOG_NANOS) {
      b.waitLogged = true;
      LOG.info(
          "The barrier of {} at {}@{} has waited {} ms for {} chunk(s) on lanes {}",
          key(b.manifest),
          ps.tp,
          b.firstOffset(),
          waited / 1_000_000,
          v.absent().size(),
          lanes(v));
    }
    if (maxWaitNanos > 0 && waited >= maxWaitNanos) {
      return new Decision.Fail(
          new ProtocolViolationException(
              ProtocolRule.MISSING_CHUNK,
              "partitions",
              key(b.manifest),
              "the barrier waited "
                  + waited / 1_000_000
                  + " ms without one of its missing chunks arriving (barrier.max.wait.ms "
                  + maxWaitNanos / 1_000_000
                  + ") for "
                  + v.absent().size()
                  + " chunk(s) of lanes "
                  + lanes(v)
                  + " that never arrived"));
    }
    return null;
  }

  private static Set<Long> lanes(BarrierState.Verdict v) {
    Set<Long> lanes = new TreeSet<>();
    for (ManifestPartition p : v.absent()) {
      lanes.add(Integer.toUnsignedLong(p.getId()));
    }
    return lanes;
  }

  private static String key(TransactionManifest m) {
    return EventKey.transaction(m.getSourceId(), m.getSourceCommitLsn(), m.getTransactionId());
  }
}
