package io.trellara.sink.buffer;

import com.google.protobuf.Message;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
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
public final class SinkBuffer {
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

  /** A transaction set aside past its flow's staging bound is dropped as junk after this. */
  public static final long DEFAULT_STAGING_RETENTION_MILLIS = 6 * 3_600_000L;

  /** A barrier waiting this long is logged (once). */
  static final long WAIT_LOG_NANOS = 10_000_000_000L;

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SinkBuffer.class);

  private final int maxQueuedTransactions;
  private final long maxQueuedBytes;
  private final BufferState state;
  private final Map<TopicPartitionKey, PartitionState> partitions;
  private final BatchWalk walk;

  public SinkBuffer(int maxQueuedTransactions, long maxQueuedBytes, long recheckMillis) {
    this.maxQueuedTransactions = maxQueuedTransactions;
    this.maxQueuedBytes = maxQueuedBytes;
    this.state = new BufferState(recheckMillis * 1_000_000L);
    this.partitions = state.partitions;
    this.walk = new BatchWalk(state);
  }

  /** A barrier fails after waiting this long without one of its missing chunks arriving. */
  public void maxBarrierWait(long nanos) {
    state.drain.maxWait(nanos);
  }

  /**
   * An open stream (a strict-chunked transaction applied as its chunks arrive) whose next record
   * has not come for {@code nanos} is rolled back and goes the staged way (0: no bound).
   */
  public void maxStreamIdle(long nanos) {
    state.streamIdleNanos = nanos;
  }

  /** A lane pauses while more than {@code maxBytes} of it are staged behind a waiting barrier. */
  public void maxStagedPerLane(long maxBytes, long checkNanos) {
    state.staging.limits(maxBytes, checkNanos);
  }

  /**
   * How long a transaction set aside past its flow's staging bound holds its partitions' positions
   * while its barrier may still come (staging.retention.ms).
   */
  public void stagingRetention(long nanos) {
    state.aside.retention(nanos);
  }

  /** How long lane chunks may wait in memory for their barrier, and how many bytes of them. */
  public void holdLanes(long holdNanos, long maxBytes) {
    state.lanes.limits(holdNanos, maxBytes);
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
    RuntimeException stop = null;
    for (Input in : inputs) {
      PartitionState ps = state.state(in.partition());
      if (ps.poisoned || poisonedNow.contains(ps.tp) || BufferState.rewinding(ps, in.offset())) {
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
    walk.start(Step.assembleWholeBarriers(taken), stop);
  }

  /** Another task of this sink staged chunks: waiting barriers are looked at again at once. */
  public void stagedElsewhere() {
    state.drain.stagedElsewhere();
  }

  /**
   * Whether the staging of other tasks wakes this one: then a waiting barrier is looked at when
   * woken (or at the recheck interval, should a signal be lost), not polled fast.
   */
  public void wokenByStaging(boolean woken) {
    state.drain.wokenByStaging(woken);
  }

  /** Looks at waiting barriers again (no records: Connect calls {@code put} now and then). */
  public void poll() {
    requireIdle();
    walk.drainOnly();
  }

  // ---- decisions out ---------------------------------------------------------------------------

  /** The next decision at {@code now} (the driver's clock), or null when there is nothing to do. */
  public Decision next(long now) {
    state.aside.expire(now);
    Decision d = walk.next(now);
    return d == null ? null : state.aside.rewrite(d);
  }

  /**
   * The target set {@code transactions} aside from the {@link Decision.Stage} returned last (their
   * flow is past its staging bound) at {@code now}, before that decision is reported completed:
   * their later chunks are not staged, their barrier fails closed, and the positions of their
   * partitions stay before their first chunk until the retention passes.
   */
  public void setAside(Set<FlowKey> transactions, long now) {
    state.aside.setAside(transactions, now);
  }

  /** The answer to the question {@link #next} returned last (a verdict, a boolean, a map). */
  public void answer(Object answer, long now) {
    walk.answer(answer, now);
  }

  /**
   * The target has done the last decision {@link #next} returned (not a question): what it changes
   * in the buffer (applied items leave their queue, held chunks are released) happens now. A
   * decision that failed is never completed: the batch is abandoned ({@link #abandonBatch}).
   */
  public void completed() {
    walk.completed();
  }

  /**
   * The stream decision {@link #next} returned last failed as {@code failure}: the stream is over
   * (rolled back), and the partition is delivered again (transient), goes the staged way, or stops
   * at the transaction's first chunk.
   */
  public void streamFailed(StreamFailure failure, RuntimeException error) {
    walk.streamFailed(failure, error);
  }

  /**
   * Drops the rest of the batch after a decision failed (the failure stops apply, or the task
   * forgets its partitions and reads them again from the target's progress).
   */
  public void abandonBatch() {
    walk.abandon();
  }

  private void requireIdle() {
    if (!walk.idle()) {
      throw new IllegalStateException("the decisions of the batch before are not all taken");
    }
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
        state.lanes.forget(ps);
        if (ps.stream != null) {
          LOG.info(
              "Rolling back {} (streamed from {}): the partition is no longer this task's",
              ps.stream.key.display(),
              tp);
          rollBack.add(tp);
        }
      }
      state.staging.forget(tp);
      state.aside.forget(tp);
      state.rewinds.remove(tp);
    }
    state.publishGauges();
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
    Map<TopicPartitionKey, Long> out = new HashMap<>(state.rewinds);
    state.rewinds.clear();
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
        out.put(ps.tp, state.aside.cap(ps.tp, p));
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
   * poison, a lane with too much staged behind a waiting barrier, or a held lane that ran ahead of
   * every barrier queued behind such a pause.
   */
  public Set<TopicPartitionKey> backlogged() {
    Set<TopicPartitionKey> out = new HashSet<>(state.staging.full());
    for (PartitionState ps : partitions.values()) {
      if (ps.poisoned
          || ps.queue.size() >= maxQueuedTransactions
          || ps.queuedBytes >= maxQueuedBytes) {
        out.add(ps.tp);
      }
    }
    out.addAll(FlowControl.lanesAhead(partitions.values(), out));
    return out;
  }

  /** How soon {@link #poll()} should run again while {@link #waiting()}, in milliseconds. */
  public long recheckWithinMillis(long now) {
    return state.drain.recheckWithinMillis(partitions.values(), now);
  }

  /** True when a barrier waits for chunks, chunks are held, or a lane is paused: poll soon. */
  public boolean waiting() {
    for (PartitionState ps : partitions.values()) {
      if (ps.queue.peek() instanceof Items.BarrierItem) {
        return true;
      }
    }
    return !state.lanes.isEmpty() || !state.staging.full().isEmpty();
  }

  /** Manifests dropped because another transaction followed them instead of their marker. */
  public long orphanManifestsDiscarded() {
    return state.orphanManifestsDiscarded;
  }

  /** Transactions whose barrier is queued, whose manifest waits for its marker, or streaming. */
  public long transactionsWaitingAtBarrier() {
    return state.waitingTransactions;
  }

  /** Lanes whose chunks the barrier at the head of a queue still lacks (as of its last check). */
  public long waitingLanes() {
    return state.waitingLanes;
  }

  /** Bytes of the records queued or held in memory. */
  public long queuedBytes() {
    return state.queuedBytes;
  }

  /** The boundary mode of the last transaction applied (wire vocabulary). */
  public String boundaryMode() {
    return state.drain.boundaryMode();
  }
}
