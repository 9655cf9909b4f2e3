package io.trellara.sink.buffer;

import io.trellara.protocol.LogText;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transactions the target set aside (their chunks would have taken their flow past
 * staging.flow.max.bytes) and the holds they put on positions. A set-aside transaction may be junk
 * a topic writer invented, or real: so nothing of it is staged, every other transaction goes on,
 * and no position of a partition that carried one of its chunks passes its first chunk there, until
 * either its barrier comes (the task fails closed with STAGING_FLOW_FULL, and after a restart reads
 * the transaction again from before its first chunk) or staging.retention.ms passes (no barrier
 * waits that long: it was junk, and the hold goes). Pure: the time is passed in.
 */
final class SetAsideHolds {
  private static final Logger LOG = LoggerFactory.getLogger(SetAsideHolds.class);

  private long retentionNanos = SinkBuffer.DEFAULT_STAGING_RETENTION_MILLIS * 1_000_000L;

  /** Each transaction set aside, and when (buffer clock) it is dropped as junk. */
  private final Map<FlowKey, Long> dropAt = new LinkedHashMap<>();

  /** Per partition, the offset of the first chunk there of each transaction set aside. */
  private final Map<TopicPartitionKey, Map<FlowKey, Long>> holds = new HashMap<>();

  /** The stage decision returned last: where the chunks of what the target sets aside came from. */
  private Decision.Stage lastStage;

  void retention(long nanos) {
    this.retentionNanos = nanos;
  }

  boolean holds(TransactionManifest m) {
    return !dropAt.isEmpty() && dropAt.containsKey(FlowKey.of(m));
  }

  /** The target set {@code keys} aside from the stage decision returned last, at {@code now}. */
  void setAside(Set<FlowKey> keys, long now) {
    for (FlowKey k : keys) {
      dropAt.putIfAbsent(k, now + retentionNanos);
    }
    if (lastStage != null) {
      List<StagedChunk> chunks = lastStage.chunks();
      for (int i = 0; i < chunks.size(); i++) {
        FlowKey k = chunks.get(i).flowKey();
        if (keys.contains(k)) {
          hold(lastStage.origins().get(i), k);
        }
      }
    }
  }

  /** Transactions set aside longer than the retention ago are dropped: junk, the holds go. */
  void expire(long now) {
    for (Iterator<Map.Entry<FlowKey, Long>> it = dropAt.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<FlowKey, Long> e = it.next();
      if (now - e.getValue() >= 0) {
        it.remove();
        holds.values().forEach(h -> h.remove(e.getKey()));
        holds.values().removeIf(Map::isEmpty);
        LOG.warn(
            "Dropping transaction {} of flow {}, set aside past staging.flow.max.bytes: its barrier"
                + " has not come within staging.retention.ms ({} ms), so it is junk; the positions"
                + " of its partitions go on past it",
            LogText.escape(e.getKey().eventKey()),
            LogText.escape(e.getKey().flow().toString()),
            retentionNanos / 1_000_000L);
      }
    }
  }

  /** {@code position} of {@code tp}, no further than the first chunk there of a set-aside one. */
  long cap(TopicPartitionKey tp, long position) {
    Map<FlowKey, Long> h = tp == null ? null : holds.get(tp);
    if (h == null) {
      return position;
    }
    long p = position;
    for (long offset : h.values()) {
      p = Math.min(p, offset);
    }
    return p;
  }

  /** Revoked or assigned anew: its next reader starts from the target's progress, before them. */
  void forget(TopicPartitionKey tp) {
    holds.remove(tp);
  }

  /**
   * {@code d} as it goes to the target: a stage without the chunks of transactions set aside (each
   * holding its partition), and every position no further than the holds.
   */
  Decision rewrite(Decision d) {
    if (d instanceof Decision.Stage s) {
      lastStage = dropAt.isEmpty() ? s : withoutSetAside(s);
      return lastStage;
    }
    if (holds.isEmpty()) {
      return d;
    }
    if (d instanceof Decision.ApplyBarrier b) {
      return new Decision.ApplyBarrier(b.manifest(), cap(b.positions()), b.held());
    }
    if (d instanceof Decision.CommitStream c) {
      return new Decision.CommitStream(c.partition(), c.marker(), c.manifest(), cap(c.positions()));
    }
    if (d instanceof Decision.ApplyEnvelopes a) {
      List<SourceTransaction> batch = new ArrayList<>(a.batch().size());
      for (SourceTransaction t : a.batch()) {
        long next = t.nextOffset() < 0 ? t.nextOffset() : cap(t.topicPartition(), t.nextOffset());
        batch.add(
            new SourceTransaction(
                t.envelope(), t.topicPartition(), next, cap(t.lanePositions()), t.fromChunks()));
      }
      return new Decision.ApplyEnvelopes(batch);
    }
    return d;
  }

  /** The STAGING_FLOW_FULL the barrier of a set-aside transaction fails with. */
  ApplyException barrierCame(TransactionManifest m) {
    FlowKey k = FlowKey.of(m);
    return new ApplyException(
        ApplyException.Reason.STAGING_FLOW_FULL,
        null,
        k.eventKey(),
        "the barrier of transaction "
            + k.eventKey()
            + " of flow "
            + k.flow()
            + " arrived, but its chunks were set aside: they would have taken the flow past"
            + " staging.flow.max.bytes. Nothing of it is applied and no offset passes its first"
            + " chunk; raise staging.flow.max.bytes and restart the task, which reads it again and"
            + " applies it whole");
  }

  private Decision.Stage withoutSetAside(Decision.Stage s) {
    List<StagedChunk> chunks = new ArrayList<>(s.chunks().size());
    List<Decision.Origin> origins = new ArrayList<>(s.chunks().size());
    for (int i = 0; i < s.chunks().size(); i++) {
      StagedChunk c = s.chunks().get(i);
      FlowKey k = c.flowKey();
      if (dropAt.containsKey(k)) {
        hold(s.origins().get(i), k); // a later chunk of it, maybe on another lane: held there too
      } else {
        chunks.add(c);
        origins.add(s.origins().get(i));
      }
    }
    return new Decision.Stage(chunks, cap(s.positions()), origins);
  }

  private void hold(Decision.Origin o, FlowKey k) {
    holds.computeIfAbsent(o.partition(), x -> new HashMap<>()).merge(k, o.offset(), Math::min);
  }

  private Map<TopicPartitionKey, Long> cap(Map<TopicPartitionKey, Long> positions) {
    if (positions.isEmpty() || holds.isEmpty()) {
      return positions;
    }
    Map<TopicPartitionKey, Long> out = new HashMap<>();
    positions.forEach((tp, p) -> out.put(tp, cap(tp, p)));
    return out;
  }
}
