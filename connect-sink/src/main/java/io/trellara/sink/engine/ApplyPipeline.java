package io.trellara.sink.engine;

import com.google.protobuf.Message;
import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.port.Target;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The sink task's engine: every record of its input, in order per input partition, to the target.
 *
 * <ul>
 *   <li><b>Chunks</b> are verified, then: a strict-chunked transaction arriving whole in one batch
 *       is reassembled ({@link Step#assembleWholeBarriers}), one spanning batches streams ({@link
 *       BarrierStreams}); lane chunks are held in memory on the task that holds the strict
 *       partition ({@link LaneBuffer}) and staged in the target ({@link Target#stage}) on any
 *       other; anything else is staged.
 *   <li><b>Envelopes, manifests and commit markers</b> queue per partition in arrival order. A
 *       manifest waits for the commit marker that follows it and is bound to it ({@link
 *       BarrierVerifier#verifyMarker}); the pair is a barrier. {@link BarrierQueues} applies the
 *       queue strictly in order: consecutive envelopes as groups, a barrier once every chunk its
 *       manifest lists is staged or held. A barrier whose chunks are not all there yet holds
 *       everything behind it; {@link #poll()} (Connect calls {@code put} again, also with empty
 *       batches) looks again.
 *   <li><b>Progress</b>: a partition's durable position is the offset of its first record not yet
 *       durable in the target (a queued envelope or barrier, a manifest waiting for its marker),
 *       else the offset after the last record seen (every chunk up to there is staged). It is
 *       recorded in the target with every stage and apply, and is what Kafka offsets may be
 *       committed up to ({@link #durablePositions()}).
 *   <li><b>Failures</b>: a record that fails verification on a partition carrying envelopes or
 *       barriers, and a boundary sequence error (a marker that does not bind its manifest) are
 *       queued as poison at their place: everything before them is applied, then the poison is
 *       thrown, and nothing after it on that partition is looked at (it is re-read from the
 *       target's progress after a restart). A lane chunk that fails verification stops the task
 *       after the records before it.
 * </ul>
 *
 * <p>Not thread-safe (the task thread), except the metric getters.
 */
public final class ApplyPipeline implements AutoCloseable {
  /** A partition is paused when this many transactions queue behind a waiting barrier... */
  public static final int DEFAULT_MAX_QUEUED_TRANSACTIONS = 1_000;

  /** ...or when the queued records hold this many bytes. */
  public static final long DEFAULT_MAX_QUEUED_BYTES = 64L << 20;

  /**
   * A waiting barrier is looked at again at most this often, unless this task staged a chunk
   * meanwhile.
   */
  public static final long DEFAULT_RECHECK_MILLIS = 100;

  /** ...and at most this often in its first second of waiting. */
  public static final long FAST_RECHECK_MILLIS = 10;

  /**
   * Lane chunks held in memory longer than this are staged (their barrier is late, elsewhere, or
   * waits).
   */
  public static final long DEFAULT_HOLD_MILLIS = 1_000;

  /** ...as are all of them once they hold this many bytes. */
  public static final long DEFAULT_MAX_HELD_BYTES = 32L << 20;

  /**
   * A lane pauses while this many bytes of its chunks are staged behind its flow's oldest staged
   * transaction.
   */
  public static final long DEFAULT_MAX_STAGED_BYTES_PER_LANE = 256L << 20;

  /** How often the staged bytes are looked at while this task holds lanes. */
  public static final long DEFAULT_STAGING_CHECK_MILLIS = 5_000;

  /** A barrier waiting this long is logged (once). */
  static final long WAIT_LOG_NANOS = 10_000_000_000L;

  private final Target applier;
  private final Listener listener;
  private final int maxQueuedTransactions;
  private final long maxQueuedBytes;
  private final Map<TopicPartitionKey, PartitionQueues.PartitionState> partitions =
      new LinkedHashMap<>();
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ApplyPipeline.class);

  /** Manifests dropped because another transaction followed them instead of their marker. */
  private long orphanManifestsDiscarded;

  private final Map<TopicPartitionKey, Long> rewinds = new HashMap<>();
  private final BarrierStreams streams;
  private final LaneBuffer lanes = new LaneBuffer();
  private final BarrierQueues queues;
  private final StagingBound staging = new StagingBound();

  private volatile long waitingTransactions;
  private volatile long waitingLanes;
  private volatile long queuedBytes;

  /** Hears about what was applied, after the commit (metrics). */
  public interface Listener {
    default void envelopesApplied(List<SourceTransaction> batch, ApplyResult result) {}

    default void barrierApplied(TransactionManifest manifest, BarrierResult result) {}
  }

  /**
   * One record of the input: the decoded message (the converter verified it) or its bytes (verified
   * here).
   *
   * @param where the record's place for messages ({@code topic-partition@offset key ...})
   */
  public record Input(
      TopicPartitionKey partition,
      long offset,
      MessageKind kind,
      byte[] bytes,
      Message message,
      String where) {
    public Input {
      Objects.requireNonNull(partition, "partition");
      if ((bytes == null) == (message == null)) {
        throw new IllegalArgumentException("exactly one of bytes and message");
      }
    }

    public static Input decoded(
        TopicPartitionKey partition, long offset, Message message, String where) {
      return new Input(partition, offset, MessageKind.of(message), null, message, where);
    }

    public static Input raw(
        TopicPartitionKey partition, long offset, MessageKind kind, byte[] bytes, String where) {
      return new Input(partition, offset, Objects.requireNonNull(kind, "kind"), bytes, null, where);
    }

    Message decode() {
      return message != null ? message : TrellaraCodec.decode(kind, bytes);
    }
  }

  /** A record failed verification: its place, then the rule, the field and the event key. */
  public static final class InputRejectedException extends RuntimeException {
    InputRejectedException(Input in, RuntimeException cause) {
      super(in.where() + ": Trellara message rejected: " + cause.getMessage(), cause);
    }
  }

  public ApplyPipeline(Target applier, Listener listener) {
    this(
        applier,
        listener,
        DEFAULT_MAX_QUEUED_TRANSACTIONS,
        DEFAULT_MAX_QUEUED_BYTES,
        DEFAULT_RECHECK_MILLIS);
  }

  public ApplyPipeline(
      Target applier,
      Listener listener,
      int maxQueuedTransactions,
      long maxQueuedBytes,
      long recheckMillis) {
    this.applier = Objects.requireNonNull(applier, "applier");
    this.listener = listener == null ? new Listener() {} : listener;
    this.maxQueuedTransactions = maxQueuedTransactions;
    this.maxQueuedBytes = maxQueuedBytes;
    this.queues =
        new BarrierQueues(
            applier, this.listener, lanes, partitions.values(), recheckMillis * 1_000_000L);
    this.streams =
        new BarrierStreams(
            applier,
            new BarrierStreams.Host() {
              @Override
              public void poison(
                  PartitionQueues.PartitionState ps, RuntimeException error, long offset) {
                ApplyPipeline.this.poison(ps, error, offset);
              }

              @Override
              public void rewind(PartitionQueues.PartitionState ps, long offset) {
                ps.rewindTo = offset;
                rewinds.put(ps.tp, offset);
              }

              @Override
              public void orphanDiscarded() {
                orphanManifestsDiscarded++;
              }

              @Override
              public void applied(TransactionManifest manifest, BarrierResult result) {
                queues.applied(BoundaryVocabulary.STRICT_CHUNKED);
                ApplyPipeline.this.listener.barrierApplied(manifest, result);
              }
            });
  }

  /**
   * Fails a barrier that waits longer than {@code maxWait} for its chunks (zero: wait as long as it
   * takes).
   */
  public ApplyPipeline maxBarrierWait(java.time.Duration maxWait) {
    queues.maxWait(maxWait.toNanos());
    return this;
  }

  /**
   * Pauses a lane while more than {@code maxBytes} of its chunks are staged for transactions after
   * its flow's oldest staged one, i.e. behind a barrier that waits (a lane further behind is never
   * paused, so the barrier's own chunks still come).
   */
  public ApplyPipeline maxStagedPerLane(long maxBytes) {
    return maxStagedPerLane(maxBytes, java.time.Duration.ofMillis(DEFAULT_STAGING_CHECK_MILLIS));
  }

  /** {@link #maxStagedPerLane(long)}, looking at the staged bytes every {@code checkEvery}. */
  public ApplyPipeline maxStagedPerLane(long maxBytes, java.time.Duration checkEvery) {
    staging.limits(maxBytes, checkEvery.toNanos());
    return this;
  }

  /**
   * How long lane chunks may wait in memory for their barrier, and how many bytes of them (zero:
   * never held).
   */
  public ApplyPipeline holdLanes(java.time.Duration hold, long maxBytes) {
    lanes.limits(hold.toNanos(), maxBytes);
    return this;
  }

  // ---- input
  // ------------------------------------------------------------------------------------------

  /**
   * Takes the next records (in order per partition): stages the chunks among them in one target
   * transaction, queues the rest, then applies whatever is ready. Throws {@link
   * InputRejectedException}, {@link ProtocolViolationException} or {@link ApplyException} when
   * apply must stop; what precedes the cause is applied (or staged) first.
   */
  public void accept(List<Input> inputs) {
    List<Step> steps = new ArrayList<>(inputs.size());
    Set<TopicPartitionKey> poisonedNow = new HashSet<>();
    RuntimeException stop = null;
    for (Input in : inputs) {
      PartitionQueues.PartitionState ps = state(in.partition());
      if (ps.poisoned || poisonedNow.contains(ps.tp) || rewinding(ps, in.offset())) {
        continue; // re-read from the target's progress after the restart the poison causes
      }
      if (ps.first < 0) {
        ps.first = in.offset();
      }
      Message message;
      try {
        message = in.decode();
        if (message instanceof PartitionChunk c
            && c.getBoundaryMode() == ManifestBoundaryMode.PARTITIONED_SCALE_MODE) {
          Step.checkLane(in, c);
        } else {
          Step.checkStrictPartition(in);
        }
      } catch (ProtocolViolationException | ApplyException e) {
        RuntimeException rejected =
            e instanceof ApplyException ? e : new InputRejectedException(in, e);
        if (in.kind() == MessageKind.CHUNK && !ps.carriesBoundaries()) {
          stop = rejected; // a lane: stop after what precedes it
          break;
        }
        steps.add(new Step(ps, in, null, null, rejected, in.offset()));
        poisonedNow.add(ps.tp);
        continue;
      }
      steps.add(
          message instanceof PartitionChunk c
              ? new Step(ps, in, null, c, null, in.offset())
              : new Step(ps, in, message, null, null, in.offset()));
    }
    steps = Step.assembleWholeBarriers(steps);
    List<Step> segment = new ArrayList<>();
    for (Step step : steps) {
      PartitionQueues.PartitionState ps = step.ps();
      if (ps.poisoned || ps.rewindTo >= 0) {
        continue; // poisoned, or asked to deliver again, earlier in this batch
      }
      if (ps.stream != null && (streams.feed(ps, step) || !streams.abandon(ps, step))) {
        continue;
      }
      if (streams.canOpen(ps, step)) {
        process(segment); // everything before the transaction's first chunk, in order
        segment.clear();
        if (ps.idle() && !ps.poisoned) {
          streams.open(ps, step);
          continue;
        }
      }
      segment.add(step);
    }
    process(segment);
    if (stop != null) {
      throw stop;
    }
  }

  /**
   * Stages (or, on a task that holds a strict partition, holds in memory: {@link LaneBuffer}) the
   * lane chunks, queues the rest, then applies whatever is ready.
   */
  private void process(List<Step> steps) {
    boolean hold = lanes.wanted(steps, partitions.values());
    if (!hold) {
      queues.stageHeld(); // lanes are staged in order: what is held goes first
    }
    long now = System.nanoTime();
    List<StagedChunk> chunks = new ArrayList<>();
    for (Step step : steps) {
      if (step.chunk() == null) {
        continue;
      }
      boolean lane = step.chunk().getBoundaryMode() == ManifestBoundaryMode.PARTITIONED_SCALE_MODE;
      if (lane) {
        FlowKey.Flow f = step.ps().laneFlow;
        if (f == null
            || !f.sourceId().equals(step.chunk().getSourceId())
            || !f.datasetId().equals(step.chunk().getDatasetId())) {
          step.ps().laneFlow =
              new FlowKey.Flow(step.chunk().getSourceId(), step.chunk().getDatasetId());
        }
      }
      if (hold && lane) {
        lanes.hold(step.ps(), step.in().offset(), step.chunk(), step.in().bytes(), now);
        queues.chunksArrived();
      } else {
        chunks.add(staged(step.in(), step.chunk()));
      }
    }
    stage(chunks, steps);
    for (Step step : steps) {
      if (step.ps().poisoned) {
        continue; // after a poison: not looked at
      }
      step.ps().seen(step.lastOffset());
      if (step.poison() != null) {
        poison(step.ps(), step.poison(), step.in().offset());
      } else if (step.assembled()) {
        step.ps().boundaries = true;
        step.ps()
            .queue
            .add(
                new PartitionQueues.EnvelopeItem(
                    (TransactionEnvelope) step.message(),
                    step.in().offset(),
                    step.lastOffset(),
                    -1,
                    true));
      } else if (step.message() != null) {
        enqueue(step.ps(), step.in(), step.message());
      }
    }
    drainAll();
  }

  /**
   * True while the partition waits for the record it asked to get again; that record ends the wait.
   */
  private static boolean rewinding(PartitionQueues.PartitionState ps, long offset) {
    if (ps.rewindTo < 0) {
      return false;
    }
    if (offset != ps.rewindTo) {
      return true;
    }
    ps.rewindTo = -1;
    return false;
  }

  /**
   * Offsets the consumer must deliver again from (a streamed transaction rolled back after a
   * transient failure, or to be applied the staged way); the task seeks there. Cleared by the call.
   */
  public Map<TopicPartitionKey, Long> takeRewinds() {
    Map<TopicPartitionKey, Long> out = new HashMap<>(rewinds);
    rewinds.clear();
    return out;
  }

  /**
   * Looks at waiting barriers again (Connect calls {@code put} with an empty batch now and then).
   */
  public void poll() {
    drainAll();
  }

  private StagedChunk staged(Input in, PartitionChunk c) {
    byte[] bytes = in.bytes();
    if (bytes == null) {
      bytes =
          c.toByteArray(); // the converter verified the original bytes; these must hash the same
      TrellaraCodec.verifyChecksum(MessageKind.CHUNK, bytes);
    }
    return StagedChunk.of(c, bytes);
  }

  /**
   * Stages the batch's chunks; progress moves with them for every partition that holds nothing
   * undurable before its last chunk of this batch.
   */
  private void stage(List<StagedChunk> chunks, List<Step> steps) {
    if (chunks.isEmpty()) {
      return;
    }
    Map<TopicPartitionKey, Long> positions = new HashMap<>();
    Set<TopicPartitionKey> blocked = new HashSet<>();
    for (Step step : steps) {
      TopicPartitionKey tp = step.ps().tp;
      if (blocked.contains(tp)) {
        continue;
      }
      if (step.message() != null || step.poison() != null || !step.ps().idle()) {
        blocked.add(tp); // a record before this one is not durable yet
        continue;
      }
      positions.put(tp, step.in().offset() + 1);
    }
    applier.stage(chunks, positions);
    queues.chunksArrived();
  }

  private void enqueue(PartitionQueues.PartitionState ps, Input in, Message message) {
    ps.boundaries = true;
    if (message instanceof TransactionEnvelope e) {
      if (ps.pendingManifest != null) {
        discardOrphan(
            ps,
            in,
            "envelope of " + e.getSourceId() + ':' + e.getCommitLsn() + ':' + e.getTransactionId());
      }
      ps.queue.add(
          new PartitionQueues.EnvelopeItem(
              e, in.offset(), in.offset(), in.bytes() == null ? -1 : in.bytes().length, false));
    } else if (message instanceof TransactionManifest m) {
      if (ps.pendingManifest != null) {
        TransactionManifest pending = ps.pendingManifest.manifest();
        if (!FlowKey.boundaryKey(pending).equals(FlowKey.boundaryKey(m))) {
          discardOrphan(ps, in, "manifest of " + key(m));
        }
        // else the same transaction published again (a source restart): the newer manifest replaces
        // it
      }
      ps.pendingManifest = new PartitionQueues.PendingManifest(m, in.offset());
    } else if (message instanceof TransactionCommitMarker k) {
      PartitionQueues.PendingManifest pending = ps.pendingManifest;
      if (pending == null) {
        ps.queue.add(new PartitionQueues.OrphanMarkerItem(k, in));
        return;
      }
      ps.pendingManifest = null;
      try {
        BarrierVerifier.verifyMarker(pending.manifest(), k);
      } catch (ProtocolViolationException e) {
        poison(ps, e, pending.offset());
        return;
      }
      ps.queue.add(
          new PartitionQueues.BarrierItem(pending.manifest(), pending.offset(), k, in.offset()));
    } else {
      throw new IllegalStateException("not a Trellara message: " + message.getClass().getName());
    }
  }

  /**
   * A manifest whose commit marker never came, followed by another transaction: the source stopped
   * between the two (a crash) and re-publishes from an earlier point. The lone manifest proves
   * nothing and nothing of its transaction was applied; it is dropped, and the transaction is
   * applied once when it arrives again whole.
   */
  private void discardOrphan(PartitionQueues.PartitionState ps, Input in, String next) {
    PartitionQueues.PendingManifest pending = ps.pendingManifest;
    ps.pendingManifest = null;
    orphanManifestsDiscarded++;
    LOG.warn(
        "Discarding the manifest of {} at {}@{}: its commit marker never arrived ({} is the {});"
            + " a source that stopped between the two re-publishes the transaction whole",
        key(pending.manifest()),
        ps.tp,
        pending.offset(),
        in.where(),
        next);
  }

  /** Queues {@code error} at {@code offset}: thrown when everything before it is applied. */
  private void poison(PartitionQueues.PartitionState ps, RuntimeException error, long offset) {
    ps.boundaries = true;
    if (ps.pendingManifest != null) { // the partition must be re-read from the manifest on
      offset = Math.min(offset, ps.pendingManifest.offset());
      ps.pendingManifest = null;
    }
    ps.queue.add(new PartitionQueues.PoisonItem(error, offset));
    ps.poisoned = true;
  }

  // ---- apply
  // ------------------------------------------------------------------------------------------

  private void drainAll() {
    try {
      if (lanes.overdue(partitions.values()) || !lanes.wanted(List.of(), partitions.values())) {
        queues.stageHeld(); // waited too long, or the strict partition is no longer this task's
      }
      for (PartitionQueues.PartitionState ps : partitions.values()) {
        queues.drain(ps);
      }
      staging.check(applier, partitions.values());
    } finally {
      publishGauges();
    }
  }

  private void publishGauges() {
    long waiting = 0;
    long lanes = 0;
    long bytes = 0;
    for (PartitionQueues.PartitionState ps : partitions.values()) {
      long partitionBytes = 0;
      for (PartitionQueues.Item i : ps.queue) {
        if (i instanceof PartitionQueues.BarrierItem b) {
          waiting++;
          if (b.verdict != null && b == ps.queue.peek()) {
            lanes += b.verdict.absentLanes();
          }
        }
        partitionBytes += i.bytes();
      }
      if (ps.pendingManifest != null || ps.stream != null) {
        waiting++; // a manifest waiting for its marker, or a transaction streaming towards it
      }
      if (ps.pendingManifest != null) {
        partitionBytes += ps.pendingManifest.manifest().getSerializedSize();
      }
      ps.queuedBytes = partitionBytes;
      bytes += partitionBytes;
    }
    waitingTransactions = waiting;
    waitingLanes = lanes;
    queuedBytes = bytes + this.lanes.bytes();
  }

  // ---- what the task needs
  // ----------------------------------------------------------------------------

  /**
   * Per partition seen since it was opened: the offset up to which every record is durable in the
   * target (applied, or staged). Kafka offsets may be committed up to there, never further.
   */
  public Map<TopicPartitionKey, Long> durablePositions() {
    Map<TopicPartitionKey, Long> out = new HashMap<>();
    for (PartitionQueues.PartitionState ps : partitions.values()) {
      long p = ps.durable();
      if (p >= 0) {
        out.put(ps.tp, p);
      }
    }
    return out;
  }

  /** Per partition seen since it was opened: the offset of the first record taken from it. */
  public Map<TopicPartitionKey, Long> firstOffsets() {
    Map<TopicPartitionKey, Long> out = new HashMap<>();
    for (PartitionQueues.PartitionState ps : partitions.values()) {
      if (ps.first >= 0) {
        out.put(ps.tp, ps.first);
      }
    }
    return out;
  }

  /**
   * Partitions that should not deliver more records for now: a long queue behind a barrier, a
   * poison, or a lane with too much staged behind a waiting barrier.
   */
  public Set<TopicPartitionKey> backlogged() {
    Set<TopicPartitionKey> out = new HashSet<>(staging.full());
    for (PartitionQueues.PartitionState ps : partitions.values()) {
      if (ps.poisoned
          || ps.queue.size() >= maxQueuedTransactions
          || ps.queuedBytes >= maxQueuedBytes) {
        out.add(ps.tp);
      }
    }
    return out;
  }

  /** How soon {@link #poll()} should run again while {@link #waiting()}, in milliseconds. */
  public long recheckWithinMillis() {
    return queues.recheckWithinMillis(partitions.values());
  }

  /** True when a barrier waits for chunks: {@link #poll()} soon. */
  public boolean waiting() {
    for (PartitionQueues.PartitionState ps : partitions.values()) {
      if (ps.queue.peek() instanceof PartitionQueues.BarrierItem) {
        return true;
      }
    }
    // held lane chunks are staged once they wait too long; a lane paused for staging is looked at
    // again
    return !lanes.isEmpty() || !staging.full().isEmpty();
  }

  /**
   * Forget everything about these partitions (newly assigned: they resume from the target's
   * progress).
   */
  public void open(Collection<TopicPartitionKey> assigned) {
    for (TopicPartitionKey tp : assigned) {
      forget(tp);
    }
    publishGauges();
  }

  /**
   * Drop what is queued for these partitions (revoked: their next owner re-reads it from the
   * target's progress).
   */
  public void close(Collection<TopicPartitionKey> revoked) {
    for (TopicPartitionKey tp : revoked) {
      forget(tp);
    }
    publishGauges();
  }

  /** Manifests dropped because another transaction followed them instead of their commit marker. */
  public long orphanManifestsDiscarded() {
    return orphanManifestsDiscarded;
  }

  /** Transactions whose barrier is queued or whose manifest waits for its marker. */
  public long transactionsWaitingAtBarrier() {
    return waitingTransactions;
  }

  /** Lanes whose chunks the barrier at the head of a queue still lacks (as of its last check). */
  public long waitingLanes() {
    return waitingLanes;
  }

  /** Bytes of the records queued in memory behind barriers. */
  public long queuedBytes() {
    return queuedBytes;
  }

  /**
   * The boundary mode of the last transaction applied (wire vocabulary) (envelopes:
   * strict_transaction_order).
   */
  public String boundaryMode() {
    return queues.boundaryMode();
  }

  @Override
  public void close() {
    for (TopicPartitionKey tp : new ArrayList<>(partitions.keySet())) {
      forget(tp);
    }
    publishGauges();
  }

  /**
   * Drops a partition's state; a transaction streaming from it is rolled back (nothing of it is
   * visible).
   */
  private void forget(TopicPartitionKey tp) {
    PartitionQueues.PartitionState ps = partitions.remove(tp);
    if (ps != null) {
      lanes.forget(ps);
    }
    staging.forget(tp);
    if (ps != null && ps.stream != null) {
      LOG.info(
          "Rolling back {} (streamed from {}): the partition is no longer this task's",
          ps.stream.key().display(),
          tp);
      ps.stream.rollback();
    }
    rewinds.remove(tp);
  }

  private PartitionQueues.PartitionState state(TopicPartitionKey tp) {
    return partitions.computeIfAbsent(tp, PartitionQueues.PartitionState::new);
  }

  private static String key(TransactionManifest m) {
    return m.getSourceId() + ':' + m.getSourceCommitLsn() + ':' + m.getTransactionId();
  }
}
