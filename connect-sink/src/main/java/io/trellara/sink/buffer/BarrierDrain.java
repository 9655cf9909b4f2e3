package io.trellara.sink.buffer;

import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.protocol.EventKey;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.BarrierLook;
import io.trellara.sink.port.BarrierState;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Each partition's queue, strictly in order, as decisions: consecutive envelopes (and barriers
 * reassembled in memory) apply as groups; a barrier applies once every chunk its manifest lists is
 * staged or held here ({@link LaneHolds}), and holds everything behind it until then; a barrier
 * that waits without a chunk arriving past {@code barrier.max.wait.ms} fails as {@code
 * MISSING_CHUNK}.
 */
final class BarrierDrain {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BarrierDrain.class);

  private final LaneHolds lanes;

  /**
   * Every partition's state (a live view): lane positions move with the barriers that release them.
   */
  private final Collection<PartitionState> partitions;

  private final long recheckNanos;

  /** {@code barrier.max.wait.ms} in nanoseconds. */
  private long maxWaitNanos = SinkBuffer.DEFAULT_MAX_BARRIER_WAIT_MILLIS * 1_000_000L;

  /** Bumped whenever a chunk is staged or held here: a waiting barrier may be complete now. */
  private long generation;

  /** The barrier whose verdict the buffer waits for, or null. */
  private Items.BarrierItem checking;

  /** The barriers of the look the buffer waits for (the head first), or null. */
  private List<Items.BarrierItem> looking;

  /** Staging elsewhere wakes this task ({@code LISTEN}): no fast recheck is needed. */
  private boolean wokenByStaging;

  /** After held chunks were staged for it, the barrier is looked at again at once. */
  private Items.BarrierItem checkAgain;

  private volatile String boundaryMode = BoundaryVocabulary.STRICT;

  /** What an application changes here once the target has committed it; null when none is due. */
  private Runnable onApplied;

  BarrierDrain(LaneHolds lanes, Collection<PartitionState> partitions, long recheckNanos) {
    this.lanes = lanes;
    this.partitions = partitions;
    this.recheckNanos = recheckNanos;
  }

  void maxWait(long nanos) {
    this.maxWaitNanos = nanos;
  }

  /** A chunk was staged or held: waiting barriers are looked at again without the recheck wait. */
  void chunksArrived() {
    generation++;
  }

  /** Another task staged chunks: waiting barriers are looked at again at once. */
  void stagedElsewhere() {
    generation++;
  }

  /** Whether staging elsewhere wakes this task (then a waiting barrier is not polled fast). */
  void wokenByStaging(boolean woken) {
    this.wokenByStaging = woken;
  }

  /** Every held lane chunk, to be staged (their barriers go the staged way); null when none. */
  Decision stageHeld() {
    Decision.Stage d = lanes.drainForStaging(partitions);
    if (d != null) {
      generation++;
    }
    return d;
  }

  /** The target committed the last decision: its effects on the queue happen now. */
  void completed() {
    Runnable r = onApplied;
    onApplied = null;
    if (r != null) {
      r.run();
    }
  }

  /** The last application failed: its effects never happen. */
  void abandonCompletion() {
    onApplied = null;
  }

  String boundaryMode() {
    return boundaryMode;
  }

  void applied(String mode) {
    boundaryMode = mode;
  }

  /** The next decision of {@code ps}'s queue; null when it is empty or its head waits. */
  Decision next(PartitionState ps, long now) {
    if (ps.queue.isEmpty()) {
      return null;
    }
    if (promoteHeld(ps)) {
      return stageHeld();
    }
    Items.Item head = ps.queue.peek();
    if (head instanceof Items.EnvelopeItem) {
      return applyEnvelopes(ps);
    }
    if (head instanceof Items.BarrierItem b) {
      boolean forced = checkAgain == b;
      checkAgain = null;
      if (!forced
          && b.verdict != null
          && b.checkedGeneration == generation
          && now - b.checkedAt < recheckNanos(b, now)) {
        return null;
      }
      looking = BarrierLookups.lookedAt(ps);
      return new Decision.CheckBarriers(BarrierLookups.looks(looking, lanes));
    }
    if (head instanceof Items.OrphanMarkerItem o) {
      return new Decision.CheckApplied(FlowKey.of(o.marker), o.where);
    }
    return new Decision.Fail(((Items.PoisonItem) head).error);
  }

  /**
   * The answer to a look at the head barrier of {@code ps} and those behind it: the ones read back
   * complete become envelopes in place; the head's application (grouped, when it was one of them),
   * or its verdict judged as {@link #checked}.
   */
  Decision looked(PartitionState ps, List<BarrierLook.Seen> seen, long now) {
    List<Items.BarrierItem> items = looking;
    looking = null;
    if (BarrierLookups.reassemble(ps, items, seen, lanes)) {
      return applyEnvelopes(ps);
    }
    checking = items.get(0);
    return checked(ps, seen.get(0).verdict(), now);
  }

  /**
   * The verdict of the barrier at the head of {@code ps}: its application, a staging of held chunks
   * first, or nothing (it waits; a wait past the bound fails as MISSING_CHUNK).
   */
  Decision checked(PartitionState ps, BarrierState.Verdict v, long now) {
    Items.BarrierItem b = checking;
    checking = null;
    if (v.kind() == BarrierState.Kind.WAITING
        && !lanes.isEmpty()
        && lanes.movedPast(b.manifest, v.absent(), partitions)) {
      // a held lane moved past a chunk it lacks: staged, its watermark judges the barrier
      checkAgain = b;
      return stageHeld();
    }
    if (v.kind() == BarrierState.Kind.WAITING && !heldHere(b.manifest, v)) {
      b.verdict = v;
      b.checkedAt = now;
      b.checkedGeneration = generation;
      return BarrierWaits.checkWait(ps, b, v, now, maxWaitNanos);
    }
    // ready: every chunk staged, or held here (read from memory inside the barrier's transaction)
    Map<TopicPartitionKey, Long> positions = new HashMap<>();
    Map<FlowKey.Flow, Lsn> committed =
        Map.of(FlowKey.of(b.manifest).flow(), Lsn.parse(b.manifest.getSourceCommitLsn()));
    if (!lanes.isEmpty()) {
      positions.putAll(lanes.positionsAfter(committed, partitions));
    }
    positions.put(ps.tp, ps.positionAfter(1));
    List<PartitionChunk> held = lanes.isEmpty() ? List.of() : lanes.heldOf(b.manifest);
    onApplied =
        () -> {
          ps.queue.poll();
          if (!lanes.isEmpty()) {
            lanes.release(committed, partitions);
          }
          boundaryMode = BoundaryVocabulary.of(b.manifest.getBoundaryMode());
        };
    return new Decision.ApplyBarrier(b.manifest, positions, held);
  }

  /** The answer for the commit marker at the head of {@code ps} that came without its manifest. */
  Decision orphanChecked(PartitionState ps, boolean applied) {
    Items.OrphanMarkerItem o = (Items.OrphanMarkerItem) ps.queue.peek();
    if (!applied) {
      TransactionCommitMarker k = o.marker;
      return new Decision.Fail(
          new ApplyException(
              ApplyException.Reason.BARRIER_SEQUENCE,
              null,
              EventKey.transaction(k.getSourceId(), k.getSourceCommitLsn(), k.getTransactionId()),
              o.where
                  + ": a commit marker without its manifest (the manifest must immediately precede"
                  + " it on the same partition); the transaction cannot be proven complete"));
    }
    ps.queue.poll(); // a replayed marker of an applied transaction
    return null;
  }

  private Decision applyEnvelopes(PartitionState ps) {
    List<Items.EnvelopeItem> run = new ArrayList<>();
    for (Items.Item i : ps.queue) {
      if (!(i instanceof Items.EnvelopeItem e)) {
        break;
      }
      run.add(e);
    }
    long after = ps.positionAfter(run.size());
    Map<FlowKey.Flow, Lsn> held = new HashMap<>();
    for (Items.EnvelopeItem e : run) {
      if (e.fromHeldLanes) {
        held.put(FlowKey.of(e.envelope).flow(), Lsn.parse(e.envelope.getCommitLsn()));
      }
    }
    List<SourceTransaction> batch = new ArrayList<>(run.size());
    for (int i = 0; i < run.size(); i++) {
      Items.EnvelopeItem e = run.get(i);
      boolean last = i == run.size() - 1;
      batch.add(
          new SourceTransaction(
              e.envelope,
              ps.tp,
              last ? after : e.lastOffset + 1,
              last && !held.isEmpty() ? lanes.positionsAfter(held, partitions) : Map.of(),
              e.assembled || e.fromHeldLanes));
    }
    Items.EnvelopeItem lastItem = run.get(run.size() - 1);
    onApplied =
        () -> {
          for (int i = 0; i < run.size(); i++) {
            ps.queue.poll();
          }
          if (!held.isEmpty()) {
            lanes.release(held, partitions);
          }
          boundaryMode =
              lastItem.fromHeldLanes
                  ? BoundaryVocabulary.PARTITIONED
                  : lastItem.assembled
                      ? BoundaryVocabulary.STRICT_CHUNKED
                      : BoundaryVocabulary.STRICT;
        };
    return new Decision.ApplyEnvelopes(batch);
  }

  /**
   * How soon a waiting barrier is looked at again: {@link SinkBuffer#FAST_RECHECK_MILLIS} in its
   * first second of waiting (the other tasks' chunks of a small transaction are usually staged
   * within milliseconds), then the recheck interval (a long wait costs a query per interval).
   */
  private long recheckNanos(Items.BarrierItem b, long now) {
    if (wokenByStaging) {
      return recheckNanos; // the staging wakes it; the interval only backs a lost signal up
    }
    boolean young = b.waitingSince == 0 || now - b.waitingSince < 1_000_000_000L;
    return young
        ? Math.min(recheckNanos, SinkBuffer.FAST_RECHECK_MILLIS * 1_000_000L)
        : recheckNanos;
  }

  /** The soonest any waiting barrier wants to be looked at again, in milliseconds. */
  long recheckWithinMillis(Collection<PartitionState> all, long now) {
    long soonest = recheckNanos;
    for (PartitionState ps : all) {
      if (ps.queue.peek() instanceof Items.BarrierItem b) {
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
   * neighbours. True when one does not verify in memory: everything held is then to be staged for
   * it, and the staged way names the rule.
   */
  private boolean promoteHeld(PartitionState ps) {
    if (lanes.isEmpty()) {
      return false;
    }
    boolean stage = false;
    ArrayDeque<Items.Item> out = null;
    int i = 0;
    for (Items.Item item : ps.queue) {
      if (item instanceof Items.BarrierItem b && !b.notInMemory && lanes.holdsAll(b.manifest)) {
        TransactionEnvelope whole =
            WholeBarrier.assembleLanes(b.manifest, b.marker, lanes.heldOf(b.manifest));
        if (whole != null) {
          if (out == null) {
            out = new ArrayDeque<>(ps.queue.size());
            Iterator<Items.Item> it = ps.queue.iterator();
            for (int j = 0; j < i; j++) {
              out.add(it.next());
            }
          }
          out.add(new Items.EnvelopeItem(whole, b.firstOffset(), b.markerOffset, -1, true, true));
          i++;
          continue;
        }
        b.notInMemory = true;
        stage = true;
      }
      if (!(item instanceof Items.EnvelopeItem)) {
        break;
      }
      if (out != null) {
        out.add(item);
      }
      i++;
    }
    if (out != null) {
      Iterator<Items.Item> it = ps.queue.iterator();
      for (int j = 0; j < i; j++) {
        it.next();
      }
      it.forEachRemaining(out::add);
      ps.queue.clear();
      ps.queue.addAll(out);
    }
    return stage;
  }

  private static String key(TransactionManifest m) {
    return EventKey.transaction(m.getSourceId(), m.getSourceCommitLsn(), m.getTransactionId());
  }
}
