package io.trellara.sink.buffer;

import com.google.protobuf.Message;
import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.BarrierState;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.port.StagedLane;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The sink's buffer, pure: records and time in, decisions out. It imports nothing of JDBC, Kafka or
 * PostgreSQL, reads no clock, calls no port and calls nothing back: {@link #offer} takes a batch of
 * records, {@link #next} returns what the target must do next (or null: nothing now), and the
 * driver runs each decision against the target port, hands the answers to questions back ({@link
 * #answer}) and reports a stream's failure ({@link #streamFailed}).
 *
 * <ul>
 *   <li><b>Chunks</b> are verified, then: a strict-chunked transaction arriving whole in one batch
 *       is reassembled ({@link Step#assembleWholeBarriers}), one spanning batches streams ({@link
 *       StreamSteps}); lane chunks are held in memory on the task that holds the strict partition
 *       ({@link LaneHolds}) and staged elsewhere; anything else is staged.
 *   <li><b>Envelopes, manifests and commit markers</b> queue per partition in arrival order; a
 *       manifest bound to its following marker is a barrier, applied strictly in order once every
 *       chunk it lists is staged or held ({@link BarrierDrain}).
 *   <li><b>Progress</b>: a partition is durable up to its first record not yet durable in the
 *       target ({@link #durablePositions()}), what Kafka offsets may be committed up to.
 *   <li><b>Failures</b>: a record that fails verification on a partition carrying boundaries, and a
 *       boundary sequence error, are queued as poison at their place: everything before is applied,
 *       then the poison stops apply. A lane chunk that fails verification stops after the records
 *       before it.
 * </ul>
 *
 * <p>Not thread-safe (the task thread), except the gauges.
 */
public final class SinkBuffer implements StreamSteps.Host {
  /** A partition is paused when this many transactions queue behind a waiting barrier... */
  public static final int DEFAULT_MAX_QUEUED_TRANSACTIONS = 1_000;

  /** ...or when the queued records hold this many bytes. */
  public static final long DEFAULT_MAX_QUEUED_BYTES = 64L << 20;

  /** A waiting barrier is looked at again at most this often, unless a chunk arrived meanwhile. */
  public static final long DEFAULT_RECHECK_MILLIS = 100;

  /** ...and at most this often in its first second of waiting. */
  public static final long FAST_RECHECK_MILLIS = 10;

  /**
   * Lane chunks held in memory longer than this are staged (their barrier is late or elsewhere).
   */
  public static final long DEFAULT_HOLD_MILLIS = 1_000;

  /** ...as are all of them once they hold this many bytes. */
  public static final long DEFAULT_MAX_HELD_BYTES = 32L << 20;

  /** A lane pauses while this many bytes of it are staged behind its flow's oldest staged one. */
  public static final long DEFAULT_MAX_STAGED_BYTES_PER_LANE = 256L << 20;

  /** How often the staged bytes are looked at while this task holds lanes. */
  public static final long DEFAULT_STAGING_CHECK_MILLIS = 5_000;

  /** A barrier waiting this long without a chunk arriving fails as MISSING_CHUNK. */
  public static final long DEFAULT_MAX_BARRIER_WAIT_MILLIS = 600_000;

  /** A barrier waiting this long is logged (once). */
  static final long WAIT_LOG_NANOS = 10_000_000_000L;

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SinkBuffer.class);

  private enum Phase {
    IDLE,
    INGEST,
    FLUSH_HELD,
    FLUSH_STAGE,
    DRAIN_HELD,
    DRAIN_QUEUES,
    DRAIN_STAGING,
    STOP
  }

  private final int maxQueuedTransactions;
  private final long maxQueuedBytes;
  private final Map<TopicPartitionKey, PartitionState> partitions = new LinkedHashMap<>();
  private final Map<TopicPartitionKey, Long> rewinds = new HashMap<>();
  private final LaneHolds lanes = new LaneHolds();
  private final StagingBound staging = new StagingBound();
  private final BarrierDrain drain;
  private final StreamSteps streams = new StreamSteps(this);

  private Phase phase = Phase.IDLE;
  private List<Step> steps = List.of();
  private int cursor;
  private int flushedAt = -1;
  private List<Step> segment = new ArrayList<>();
  private RuntimeException stop;

  /** Where a drain resumes: the partitions in order, and the one at hand. */
  private List<PartitionState> drainOrder = List.of();

  private int drainIndex;

  /** The decision whose answer the buffer waits for, or null. */
  private Decision question;

  /** The partition whose stream the last stream decision was about, and that stream. */
  private PartitionState streamPartition;

  private PartitionState.StreamCursor streamOfDecision;

  private long orphanManifestsDiscarded;
  private volatile long waitingTransactions;
  private volatile long waitingLanes;
  private volatile long queuedBytes;

  public SinkBuffer(int maxQueuedTransactions, long maxQueuedBytes, long recheckMillis) {
    this.maxQueuedTransactions = maxQueuedTransactions;
    this.maxQueuedBytes = maxQueuedBytes;
    this.drain = new BarrierDrain(lanes, partitions.values(), recheckMillis * 1_000_000L);
  }

  /** A barrier fails after waiting this long without one of its missing chunks arriving. */
  public void maxBarrierWait(long nanos) {
    drain.maxWait(nanos);
  }

  /** A lane pauses while more than {@code maxBytes} of it are staged behind a waiting barrier. */
  public void maxStagedPerLane(long maxBytes, long checkNanos) {
    staging.limits(maxBytes, checkNanos);
  }

  /** How long lane chunks may wait in memory for their barrier, and how many bytes of them. */
  public void holdLanes(long holdNanos, long maxBytes) {
    lanes.limits(holdNanos, maxBytes);
  }

  // ---- records in ------------------------------------------------------------------------------

  /**
   * Takes the next records, in order per partition; {@link #next} then returns the decisions they
   * lead to. The decisions of the previous batch must all have been taken.
   */
  public void offer(List<Input> inputs) {
    requireIdle();
    List<Step> taken = new ArrayList<>(inputs.size());
    Set<TopicPartitionKey> poisonedNow = new HashSet<>();
    stop = null;
    for (Input in : inputs) {
      PartitionState ps = state(in.partition());
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
            e instanceof ApplyException ? e : new Input.RejectedException(in, e);
        if (in.kind() == MessageKind.CHUNK && !ps.carriesBoundaries()) {
          stop = rejected; // a lane: stop after what precedes it
          break;
        }
        taken.add(new Step(ps, in, null, null, rejected, in.offset()));
        poisonedNow.add(ps.tp);
        continue;
      }
      taken.add(
          message instanceof PartitionChunk c
              ? new Step(ps, in, null, c, null, in.offset())
              : new Step(ps, in, message, null, null, in.offset()));
    }
    steps = Step.assembleWholeBarriers(taken);
    cursor = 0;
    flushedAt = -1;
    segment = new ArrayList<>();
    phase = Phase.INGEST;
  }

  /** Looks at waiting barriers again (no records: Connect calls {@code put} now and then). */
  public void poll() {
    requireIdle();
    steps = List.of();
    startDrain(Phase.IDLE);
  }

  // ---- decisions out ---------------------------------------------------------------------------

  /** The next decision at {@code now} (the driver's clock), or null when there is nothing to do. */
  public Decision next(long now) {
    if (question != null) {
      throw new IllegalStateException("the answer to " + question + " is still due");
    }
    if (completionDue) {
      throw new IllegalStateException("the last decision is not reported completed");
    }
    while (true) {
      Decision d =
          switch (phase) {
            case IDLE -> null;
            case INGEST -> ingest();
            case FLUSH_HELD -> flushHeld();
            case FLUSH_STAGE -> flushStage(now);
            case DRAIN_HELD -> drainHeld(now);
            case DRAIN_QUEUES -> drainQueues(now);
            case DRAIN_STAGING -> drainStaging(now);
            case STOP -> stopAfterBatch();
          };
      if (d != null) {
        if (d.isQuestion()) {
          question = d;
        } else {
          completionDue = true;
        }
        return d;
      }
      if (phase == Phase.IDLE) {
        publishGauges();
        return null;
      }
    }
  }

  /** The answer to the question {@link #next} returned last (a verdict, a boolean, a map). */
  public void answer(Object answer, long now) {
    Decision q = question;
    question = null;
    if (q instanceof Decision.CheckBarrier) {
      pending = drain.checked(current(), (BarrierState.Verdict) answer, now);
      if (pending == null) {
        drainIndex++; // the barrier waits: it holds its partition, the next one drains
      }
    } else if (q instanceof Decision.CheckApplied) {
      pending = drain.orphanChecked(current(), (Boolean) answer);
    } else if (q instanceof Decision.MeasureStaging) {
      @SuppressWarnings("unchecked")
      Map<StagedLane, Long> staged = (Map<StagedLane, Long>) answer;
      staging.measured(staged, partitions.values());
    } else {
      throw new IllegalStateException("no question is open");
    }
  }

  /**
   * The target has done the last decision {@link #next} returned (not a question): what it changes
   * in the buffer (applied items leave their queue, held chunks are released) happens now. A
   * decision that failed is never completed: the batch is abandoned ({@link #abandonBatch}).
   */
  public void completed() {
    completionDue = false;
    drain.completed();
  }

  /** A decision was returned that the driver has not yet reported completed. */
  private boolean completionDue;

  /** A decision that follows an answer, taken before the drain goes on. */
  private Decision pending;

  /**
   * The stream decision {@link #next} returned last failed as {@code failure}: the stream is over
   * (rolled back), and the partition is delivered again (transient), goes the staged way, or stops
   * at the transaction's first chunk.
   */
  public void streamFailed(StreamFailure failure, RuntimeException error) {
    PartitionState ps = streamPartition;
    PartitionState.StreamCursor s = streamOfDecision;
    if (ps == null || s == null) {
      throw new IllegalStateException("no stream decision to fail", error);
    }
    streams.failed(ps, s, failure, error);
    streamPartition = null;
    streamOfDecision = null;
  }

  private PartitionState current() {
    return drainOrder.get(drainIndex);
  }

  // ---- the batch, record by record -------------------------------------------------------------

  private Decision ingest() {
    while (cursor < steps.size()) {
      Step step = steps.get(cursor);
      PartitionState ps = step.ps();
      if (ps.poisoned || ps.rewindTo >= 0) {
        cursor++; // poisoned, or asked to deliver again, earlier in this batch
        continue;
      }
      if (ps.stream != null) {
        PartitionState.StreamCursor s = ps.stream;
        Decision fed = streams.feed(ps, step);
        if (fed != null) {
          cursor++;
          return streamDecision(ps, s, fed);
        }
        StreamSteps.Abandon a = streams.abandon(ps, step);
        if (!a.takenAsIs()) {
          cursor++;
        }
        return a.rollback();
      }
      if (streams.canOpen(ps, step)) {
        if (flushedAt != cursor) {
          flushedAt = cursor; // everything before the transaction's first chunk, in order
          return startFlush(Phase.INGEST);
        }
        flushedAt = -1;
        if (ps.idle() && !ps.poisoned) {
          Decision open = streams.open(ps, step); // the same step is fed to it next
          return streamDecision(ps, ps.stream, open);
        }
      }
      segment.add(step);
      cursor++;
    }
    return startFlush(Phase.STOP);
  }

  private Decision streamDecision(PartitionState ps, PartitionState.StreamCursor s, Decision d) {
    streamPartition = ps;
    streamOfDecision = s;
    if (d instanceof Decision.CommitStream) {
      drain.applied(BoundaryVocabulary.STRICT_CHUNKED);
    }
    return d;
  }

  private Phase afterFlush;
  private List<Step> flushing = List.of();

  private Decision startFlush(Phase then) {
    flushing = segment;
    segment = new ArrayList<>();
    afterFlush = then;
    phase = Phase.FLUSH_HELD;
    return null;
  }

  /** Lanes are staged in order: what is held goes first when this segment's lanes are not held. */
  private Decision flushHeld() {
    phase = Phase.FLUSH_STAGE;
    return lanes.wanted(flushing, partitions.values()) ? null : drain.stageHeld();
  }

  /**
   * Holds the segment's lane chunks (a task that holds a strict partition) or stages them with the
   * segment's other chunks in one target transaction, then queues the rest and drains.
   */
  private Decision flushStage(long now) {
    boolean hold = lanes.wanted(flushing, partitions.values());
    List<StagedChunk> chunks = new ArrayList<>();
    for (Step step : flushing) {
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
        drain.chunksArrived();
      } else {
        chunks.add(staged(step.in(), step.chunk()));
      }
    }
    Decision stage = chunks.isEmpty() ? null : stage(chunks, flushing);
    enqueue(flushing);
    startDrain(afterFlush);
    return stage;
  }

  private Decision stopAfterBatch() {
    phase = Phase.IDLE;
    RuntimeException s = stop;
    stop = null;
    return s == null ? null : new Decision.Fail(s);
  }

  /**
   * The staged form of a verified chunk: the input's bytes, or (decoded input) its bytes again,
   * which must hash the same as those the converter verified.
   */
  private static StagedChunk staged(Input in, PartitionChunk c) {
    byte[] bytes = in.bytes();
    if (bytes == null) {
      bytes = c.toByteArray();
      TrellaraCodec.verifyChecksum(MessageKind.CHUNK, bytes);
    }
    return StagedChunk.of(c, bytes);
  }

  /**
   * The segment's chunks staged; progress moves with them for every partition that holds nothing
   * undurable before its last chunk of this segment.
   */
  private Decision stage(List<StagedChunk> chunks, List<Step> segmentSteps) {
    Map<TopicPartitionKey, Long> positions = new HashMap<>();
    Set<TopicPartitionKey> blocked = new HashSet<>();
    for (Step step : segmentSteps) {
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
    drain.chunksArrived();
    return new Decision.Stage(chunks, positions);
  }

  private void enqueue(List<Step> segmentSteps) {
    for (Step step : segmentSteps) {
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
                new Items.EnvelopeItem(
                    (io.trellara.protocol.v1.TransactionEnvelope) step.message(),
                    step.in().offset(),
                    step.lastOffset(),
                    -1,
                    true));
      } else if (step.message() != null) {
        Pairing.enqueue(this, step.ps(), step.in(), step.message());
      }
    }
  }

  // ---- drain: every partition's queue, in order ------------------------------------------------

  /** Where the buffer goes once the drain is over. */
  private Phase afterDrain = Phase.IDLE;

  private void startDrain(Phase then) {
    drainOrder = new ArrayList<>(partitions.values());
    drainIndex = 0;
    afterDrain = then;
    phase = Phase.DRAIN_HELD;
  }

  /** Held chunks that waited too long, or a strict partition no longer this task's: staged. */
  private Decision drainHeld(long now) {
    phase = Phase.DRAIN_QUEUES;
    if (lanes.overdue(partitions.values(), now) || !lanes.wanted(List.of(), partitions.values())) {
      return drain.stageHeld();
    }
    return null;
  }

  private Decision drainQueues(long now) {
    if (pending != null) {
      Decision d = pending;
      pending = null;
      return d;
    }
    while (drainIndex < drainOrder.size()) {
      PartitionState ps = drainOrder.get(drainIndex);
      if (partitions.get(ps.tp) == ps) {
        Decision d = drain.next(ps, now);
        if (d != null) {
          return d;
        }
      }
      drainIndex++;
    }
    phase = Phase.DRAIN_STAGING;
    return null;
  }

  private Decision drainStaging(long now) {
    phase = afterDrain;
    return staging.due(partitions.values(), now) ? new Decision.MeasureStaging() : null;
  }

  // ---- what the stream steps and the pairing ask of the buffer --------------------------------

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
  private static boolean rewinding(PartitionState ps, long offset) {
    if (ps.rewindTo < 0) {
      return false;
    }
    if (offset != ps.rewindTo) {
      return true;
    }
    ps.rewindTo = -1;
    return false;
  }

  private void requireIdle() {
    if (phase != Phase.IDLE || question != null) {
      throw new IllegalStateException("the decisions of the batch before are not all taken");
    }
  }

  private PartitionState state(TopicPartitionKey tp) {
    return partitions.computeIfAbsent(tp, PartitionState::new);
  }

  /**
   * Drops the rest of the batch after a decision failed (the failure stops apply, or the task
   * forgets its partitions and reads them again from the target's progress).
   */
  public void abandonBatch() {
    drain.abandonCompletion();
    completionDue = false;
    phase = Phase.IDLE;
    question = null;
    pending = null;
    steps = List.of();
    segment = new ArrayList<>();
    streamPartition = null;
    streamOfDecision = null;
    stop = null;
  }

  // ---- partitions assigned and revoked ---------------------------------------------------------

  /**
   * Forgets everything about {@code tps} (assigned anew, or revoked: their next owner reads them
   * from the target's progress); returns those whose open stream must be rolled back.
   */
  public List<TopicPartitionKey> forget(Iterable<TopicPartitionKey> tps) {
    List<TopicPartitionKey> rollBack = new ArrayList<>();
    for (TopicPartitionKey tp : tps) {
      PartitionState ps = partitions.remove(tp);
      if (ps != null) {
        lanes.forget(ps);
        if (ps.stream != null) {
          LOG.info(
              "Rolling back {} (streamed from {}): the partition is no longer this task's",
              ps.stream.key.display(),
              tp);
          rollBack.add(tp);
        }
      }
      staging.forget(tp);
      rewinds.remove(tp);
    }
    publishGauges();
    return rollBack;
  }

  /** Every partition this buffer knows of. */
  public List<TopicPartitionKey> known() {
    return List.copyOf(partitions.keySet());
  }

  // ---- what the task needs ---------------------------------------------------------------------

  /**
   * Offsets the consumer must deliver again from (a streamed transaction rolled back, or to be
   * applied the staged way). Cleared by the call.
   */
  public Map<TopicPartitionKey, Long> takeRewinds() {
    Map<TopicPartitionKey, Long> out = new HashMap<>(rewinds);
    rewinds.clear();
    return out;
  }

  /**
   * Per partition seen since it was opened: the offset up to which every record is durable in the
   * target (applied, or staged). Kafka offsets may be committed up to there, never further.
   */
  public Map<TopicPartitionKey, Long> durablePositions() {
    Map<TopicPartitionKey, Long> out = new HashMap<>();
    for (PartitionState ps : partitions.values()) {
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
    for (PartitionState ps : partitions.values()) {
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
    for (PartitionState ps : partitions.values()) {
      if (ps.poisoned
          || ps.queue.size() >= maxQueuedTransactions
          || ps.queuedBytes >= maxQueuedBytes) {
        out.add(ps.tp);
      }
    }
    return out;
  }

  /** How soon {@link #poll()} should run again while {@link #waiting()}, in milliseconds. */
  public long recheckWithinMillis(long now) {
    return drain.recheckWithinMillis(partitions.values(), now);
  }

  /** True when a barrier waits for chunks, chunks are held, or a lane is paused: poll soon. */
  public boolean waiting() {
    for (PartitionState ps : partitions.values()) {
      if (ps.queue.peek() instanceof Items.BarrierItem) {
        return true;
      }
    }
    return !lanes.isEmpty() || !staging.full().isEmpty();
  }

  /** Manifests dropped because another transaction followed them instead of their marker. */
  public long orphanManifestsDiscarded() {
    return orphanManifestsDiscarded;
  }

  /** Transactions whose barrier is queued, whose manifest waits for its marker, or streaming. */
  public long transactionsWaitingAtBarrier() {
    return waitingTransactions;
  }

  /** Lanes whose chunks the barrier at the head of a queue still lacks (as of its last check). */
  public long waitingLanes() {
    return waitingLanes;
  }

  /** Bytes of the records queued or held in memory. */
  public long queuedBytes() {
    return queuedBytes;
  }

  /** The boundary mode of the last transaction applied (wire vocabulary). */
  public String boundaryMode() {
    return drain.boundaryMode();
  }

  private void publishGauges() {
    BufferGauges g = BufferGauges.of(partitions.values(), lanes);
    waitingTransactions = g.waitingTransactions();
    waitingLanes = g.waitingLanes();
    queuedBytes = g.queuedBytes();
  }
}
