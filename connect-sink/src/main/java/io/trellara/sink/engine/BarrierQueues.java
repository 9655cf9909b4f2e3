package io.trellara.sink.engine;

import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.BarrierState;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.Target;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The apply side of {@link ApplyPipeline}: each partition's queue, strictly in order. Consecutive
 * envelopes (and barriers reassembled in memory) apply as groups; a barrier applies once every
 * chunk its manifest lists is staged or held here ({@link LaneBuffer}), and holds everything behind
 * it until then.
 */
final class BarrierQueues {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ApplyPipeline.class);

  private final Target applier;
  private final ApplyPipeline.Listener listener;
  private final LaneBuffer lanes;

  /**
   * Every partition's state (a live view): lane positions move with the barriers that release them.
   */
  private final Collection<PartitionQueues.PartitionState> partitions;

  private final long recheckNanos;

  /** {@code barrier.max.wait.ms} in nanoseconds; 0: wait as long as it takes. */
  private long maxWaitNanos;

  /** Bumped whenever a chunk is staged or held here: a waiting barrier may be complete now. */
  private long generation;

  private volatile String boundaryMode = BoundaryVocabulary.STRICT;

  BarrierQueues(
      Target applier,
      ApplyPipeline.Listener listener,
      LaneBuffer lanes,
      Collection<PartitionQueues.PartitionState> partitions,
      long recheckNanos) {
    this.applier = applier;
    this.listener = listener;
    this.lanes = lanes;
    this.partitions = partitions;
    this.recheckNanos = recheckNanos;
  }

  void maxWait(long nanos) {
    this.maxWaitNanos = nanos;
  }

  /**
   * A chunk was staged or held: waiting barriers are looked at again without waiting for the
   * recheck.
   */
  void chunksArrived() {
    generation++;
  }

  /** Stages every held lane chunk; their barriers go the staged way. */
  void stageHeld() {
    if (lanes.stage(applier, partitions)) {
      generation++;
    }
  }

  /** The boundary mode of the last transaction applied (wire vocabulary). */
  String boundaryMode() {
    return boundaryMode;
  }

  void applied(String mode) {
    boundaryMode = mode;
  }

  void drain(PartitionQueues.PartitionState ps) {
    while (!ps.queue.isEmpty()) {
      promoteHeld(ps);
      PartitionQueues.Item head = ps.queue.peek();
      if (head instanceof PartitionQueues.EnvelopeItem) {
        applyEnvelopes(ps);
      } else if (head instanceof PartitionQueues.BarrierItem b) {
        if (!applyBarrier(ps, b)) {
          return; // waiting for chunks
        }
      } else if (head instanceof PartitionQueues.OrphanMarkerItem o) {
        TransactionCommitMarker k = o.marker;
        if (!applier.isApplied(FlowKey.of(k))) {
          throw new ApplyException(
              ApplyException.Reason.BARRIER_SEQUENCE,
              null,
              k.getSourceId() + ':' + k.getSourceCommitLsn() + ':' + k.getTransactionId(),
              o.where
                  + ": a commit marker without its manifest (the manifest must immediately precede"
                  + " it on the same partition); the transaction cannot be proven complete");
        }
        ps.queue.poll(); // a replayed marker of an applied transaction
      } else if (head instanceof PartitionQueues.PoisonItem p) {
        throw p.error;
      }
    }
  }

  private void applyEnvelopes(PartitionQueues.PartitionState ps) {
    List<PartitionQueues.EnvelopeItem> run = new ArrayList<>();
    boolean assembled = false;
    for (PartitionQueues.Item i : ps.queue) {
      if (!(i instanceof PartitionQueues.EnvelopeItem e)) {
        break;
      }
      run.add(e);
      assembled |= e.assembled;
    }
    long after = ps.positionAfter(run.size());
    Map<FlowKey.Flow, Lsn> held = new HashMap<>();
    for (PartitionQueues.EnvelopeItem e : run) {
      if (e.fromHeldLanes) {
        held.put(FlowKey.of(e.envelope).flow(), Lsn.parse(e.envelope.getCommitLsn()));
      }
    }
    List<SourceTransaction> batch = new ArrayList<>(run.size());
    for (int i = 0; i < run.size(); i++) {
      PartitionQueues.EnvelopeItem e = run.get(i);
      boolean last = i == run.size() - 1;
      batch.add(
          new SourceTransaction(
              e.envelope,
              ps.tp,
              last ? after : e.lastOffset + 1,
              last && !held.isEmpty() ? lanes.positionsAfter(held, partitions) : Map.of(),
              e.assembled || e.fromHeldLanes));
    }
    ApplyResult result = applier.apply(batch);
    for (int i = 0; i < run.size(); i++) {
      ps.queue.poll();
    }
    if (!held.isEmpty()) {
      lanes.release(held, partitions);
    }
    if (assembled) {
      long barriers =
          run.stream()
              .filter(
                  e ->
                      e.assembled
                          && result
                              .applied()
                              .contains(new SourceTransaction(e.envelope, null, -1).key()))
              .count();
      applier.metrics().countBarriers(barriers);
    }
    PartitionQueues.EnvelopeItem lastItem = run.get(run.size() - 1);
    boundaryMode =
        lastItem.fromHeldLanes
            ? BoundaryVocabulary.PARTITIONED
            : lastItem.assembled ? BoundaryVocabulary.STRICT_CHUNKED : BoundaryVocabulary.STRICT;
    listener.envelopesApplied(batch, result);
  }

  /** Applies the barrier at the head of the queue when it is ready; false when it waits. */
  private boolean applyBarrier(PartitionQueues.PartitionState ps, PartitionQueues.BarrierItem b) {
    long now = System.nanoTime();
    if (b.verdict != null
        && b.checkedGeneration == generation
        && now - b.checkedAt < recheckNanos(b, now)) {
      return false;
    }
    BarrierState.Verdict v =
        applier.checkBarrier(b.manifest); // throws when a chunk is missing for good
    if (v.kind() == BarrierState.Kind.WAITING
        && !lanes.isEmpty()
        && lanes.movedPast(b.manifest, v.absent(), partitions)) {
      stageHeld(); // a held lane moved past a chunk it lacks: staged, its watermark judges the
      // barrier
      v = applier.checkBarrier(b.manifest);
    }
    if (v.kind() == BarrierState.Kind.WAITING && !heldHere(b.manifest, v)) {
      b.verdict = v;
      b.checkedAt = now;
      b.checkedGeneration = generation;
      checkWait(ps, b, v, now);
      return false;
    }
    // ready: every chunk staged, or held here (read from memory inside the barrier's own
    // transaction)
    Map<TopicPartitionKey, Long> positions = new HashMap<>();
    Map<FlowKey.Flow, Lsn> committed =
        Map.of(FlowKey.of(b.manifest).flow(), Lsn.parse(b.manifest.getSourceCommitLsn()));
    if (!lanes.isEmpty()) {
      positions.putAll(lanes.positionsAfter(committed, partitions));
    }
    positions.put(ps.tp, ps.positionAfter(1));
    List<PartitionChunk> held = lanes.isEmpty() ? List.of() : lanes.heldOf(b.manifest);
    BarrierResult result = applier.applyBarrier(b.manifest, positions, held);
    ps.queue.poll();
    if (!lanes.isEmpty()) {
      lanes.release(committed, partitions);
    }
    boundaryMode = BoundaryVocabulary.of(b.manifest.getBoundaryMode());
    listener.barrierApplied(b.manifest, result);
    return true;
  }

  /**
   * How soon a waiting barrier is looked at again: {@link ApplyPipeline#FAST_RECHECK_MILLIS} in its
   * first second of waiting (the other tasks' chunks of a small transaction are usually staged
   * within milliseconds), then the pipeline's recheck interval (a long wait costs a query per
   * interval, not hundreds a second).
   */
  private long recheckNanos(PartitionQueues.BarrierItem b, long now) {
    boolean young = b.waitingSince == 0 || now - b.waitingSince < 1_000_000_000L;
    return young
        ? Math.min(recheckNanos, ApplyPipeline.FAST_RECHECK_MILLIS * 1_000_000L)
        : recheckNanos;
  }

  /** The soonest any waiting barrier wants to be looked at again, in milliseconds. */
  long recheckWithinMillis(Collection<PartitionQueues.PartitionState> all) {
    long now = System.nanoTime();
    long soonest = recheckNanos;
    for (PartitionQueues.PartitionState ps : all) {
      if (ps.queue.peek() instanceof PartitionQueues.BarrierItem b) {
        soonest = Math.min(soonest, recheckNanos(b, now));
      }
    }
    return Math.max(1, soonest / 1_000_000L);
  }

  /** True when every chunk the barrier waits for is held in memory here. */
  private boolean heldHere(TransactionManifest m, BarrierState.Verdict v) {
    if (lanes.isEmpty()) {
      return false;
    }
    for (ManifestPartition p : v.absent()) {
      if (!lanes.holds(m, p)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Turns the partitioned barriers at the head of the queue (behind envelopes only) whose every
   * chunk is held here into the envelopes they reassemble to, so they apply grouped with their
   * neighbours. One that does not verify in memory is left to the staged way, which names the rule:
   * everything held is staged for it.
   */
  private void promoteHeld(PartitionQueues.PartitionState ps) {
    if (lanes.isEmpty()) {
      return;
    }
    java.util.ArrayDeque<PartitionQueues.Item> out = null;
    int i = 0;
    for (PartitionQueues.Item item : ps.queue) {
      if (item instanceof PartitionQueues.BarrierItem b
          && !b.notInMemory
          && lanes.holdsAll(b.manifest)) {
        TransactionEnvelope whole =
            WholeBarrier.assembleLanes(b.manifest, b.marker, lanes.heldOf(b.manifest));
        if (whole != null) {
          if (out == null) {
            out = new java.util.ArrayDeque<>(ps.queue.size());
            java.util.Iterator<PartitionQueues.Item> it = ps.queue.iterator();
            for (int j = 0; j < i; j++) {
              out.add(it.next());
            }
          }
          out.add(
              new PartitionQueues.EnvelopeItem(
                  whole, b.firstOffset(), b.markerOffset, -1, true, true));
          i++;
          continue;
        }
        b.notInMemory = true;
        stageHeld();
      }
      if (!(item instanceof PartitionQueues.EnvelopeItem)) {
        break;
      }
      if (out != null) {
        out.add(item);
      }
      i++;
    }
    if (out != null) {
      java.util.Iterator<PartitionQueues.Item> it = ps.queue.iterator();
      for (int j = 0; j < i; j++) {
        it.next();
      }
      it.forEachRemaining(out::add);
      ps.queue.clear();
      ps.queue.addAll(out);
    }
  }

  /**
   * A barrier may wait for chunks of lanes other tasks hold; it is logged once it has waited {@link
   * ApplyPipeline#WAIT_LOG_NANOS}, and, when {@code barrier.max.wait.ms} is set, fails closed as
   * {@code MISSING_CHUNK} naming the chunks it still lacks (a chunk lost on a lane that never
   * carries another transaction would otherwise be waited for forever).
   */
  private void checkWait(
      PartitionQueues.PartitionState ps,
      PartitionQueues.BarrierItem b,
      BarrierState.Verdict v,
      long now) {
    if (b.waitingSince == 0 || v.absent().size() < b.absentChunks) {
      b.waitingSince = now; // waiting starts, or a chunk it lacked arrived: progress
      b.waitLogged = false;
    }
    b.absentChunks = v.absent().size();
    long waited = now - b.waitingSince;
    if (!b.waitLogged && waited >= ApplyPipeline.WAIT_LOG_NANOS) {
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
      throw new ProtocolViolationException(
          ProtocolRule.MISSING_CHUNK,
          "partitions",
          key(b.manifest),
          "the barrier waited "
              + waited / 1_000_000
              + " ms (barrier.max.wait.ms "
              + maxWaitNanos / 1_000_000
              + ") for "
              + v.absent().size()
              + " chunk(s) of lanes "
              + lanes(v)
              + " that never arrived");
    }
  }

  private static java.util.Set<Long> lanes(BarrierState.Verdict v) {
    java.util.Set<Long> lanes = new java.util.TreeSet<>();
    for (ManifestPartition p : v.absent()) {
      lanes.add(Integer.toUnsignedLong(p.getId()));
    }
    return lanes;
  }

  private static String key(TransactionManifest m) {
    return m.getSourceId() + ':' + m.getSourceCommitLsn() + ':' + m.getTransactionId();
  }
}
