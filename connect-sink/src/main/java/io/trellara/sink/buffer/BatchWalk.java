package io.trellara.sink.buffer;

import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.sink.port.BarrierLook;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.port.StagedLane;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The walk of one batch through the buffer, as the decisions it leads to: record by record (streams
 * opened, fed and abandoned), segment by segment (chunks held or staged, the rest queued), and
 * after each segment a drain of every partition's queue in order. Where the original loop called
 * the target, the walk stops and returns a {@link Decision}; the next call goes on from there.
 */
final class BatchWalk {
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

  private final BufferState state;
  private final Map<TopicPartitionKey, PartitionState> partitions;
  private final LaneHolds lanes;
  private final StagingBound staging;
  private final BarrierDrain drain;
  private final StreamSteps streams;

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

  /** A decision that follows an answer, taken before the drain goes on. */
  private Decision pending;

  /** A decision was returned that the driver has not yet reported completed. */
  private boolean completionDue;

  /** The partition whose stream the last stream decision was about, and that stream. */
  private PartitionState streamPartition;

  private PartitionState.StreamCursor streamOfDecision;

  private Phase afterFlush;
  private List<Step> flushing = List.of();

  /** Where the walk goes once the drain is over. */
  private Phase afterDrain = Phase.IDLE;

  BatchWalk(BufferState state) {
    this.state = state;
    this.partitions = state.partitions;
    this.lanes = state.lanes;
    this.staging = state.staging;
    this.drain = state.drain;
    this.streams = state.streams;
  }

  boolean idle() {
    return phase == Phase.IDLE && question == null;
  }

  /** Walks {@code batch}; {@code stopAfter}, when not null, stops apply once it is walked. */
  void start(List<Step> batch, RuntimeException stopAfter) {
    steps = batch;
    stop = stopAfter;
    cursor = 0;
    flushedAt = -1;
    segment = new ArrayList<>();
    phase = Phase.INGEST;
  }

  /** A drain only: waiting barriers looked at again. */
  void drainOnly() {
    steps = List.of();
    startDrain(Phase.IDLE);
  }

  /** The next decision at {@code now} (the driver's clock), or null when there is nothing to do. */
  Decision next(long now) {
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
            case INGEST -> ingest(now);
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
        state.publishGauges();
        return null;
      }
    }
  }

  /** The answer to the question {@link #next} returned last (a verdict, a boolean, a map). */
  void answer(Object answer, long now) {
    Decision q = question;
    question = null;
    if (q instanceof Decision.CheckBarriers) {
      @SuppressWarnings("unchecked")
      List<BarrierLook.Seen> seen = (List<BarrierLook.Seen>) answer;
      pending = drain.looked(current(), seen, now);
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
   * decision that failed is never completed: the batch is abandoned ({@link #abandon}).
   */
  void completed() {
    completionDue = false;
    drain.completed();
  }

  /**
   * The stream decision {@link #next} returned last failed as {@code failure}: the stream is over
   * (rolled back), and the partition is delivered again (transient), goes the staged way, or stops
   * at the transaction's first chunk.
   */
  void streamFailed(StreamFailure failure, RuntimeException error) {
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

  /**
   * Drops the rest of the batch after a decision failed (the failure stops apply, or the task
   * forgets its partitions and reads them again from the target's progress).
   */
  void abandon() {
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

  // ---- the batch, record by record -------------------------------------------------------------

  private Decision ingest(long now) {
    while (cursor < steps.size()) {
      Step step = steps.get(cursor);
      PartitionState ps = step.ps();
      if (ps.poisoned || ps.rewindTo >= 0) {
        cursor++; // poisoned, or asked to deliver again, earlier in this batch
        continue;
      }
      if (ps.stream != null) {
        PartitionState.StreamCursor s = ps.stream;
        Decision fed = streams.feed(ps, step, now);
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
          Decision open = streams.open(ps, step, now); // the same step is fed to it next
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
    List<Decision.Origin> origins = new ArrayList<>();
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
        chunks.add(step.staged());
        origins.add(new Decision.Origin(step.ps().tp, step.in().offset()));
      }
    }
    Decision stage = chunks.isEmpty() ? null : stage(chunks, origins, flushing);
    Pairing.enqueue(state, flushing);
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
   * The segment's chunks staged; progress moves with them for every partition that holds nothing
   * undurable before its last chunk of this segment.
   */
  private Decision stage(
      List<StagedChunk> chunks, List<Decision.Origin> origins, List<Step> segmentSteps) {
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
    return new Decision.Stage(chunks, positions, origins);
  }

  // ---- drain: every partition's queue, in order ------------------------------------------------

  private void startDrain(Phase then) {
    drainOrder = new ArrayList<>(partitions.values());
    drainIndex = 0;
    afterDrain = then;
    phase = Phase.DRAIN_HELD;
  }

  /** Held chunks that waited too long, or a strict partition no longer this task's: staged. */
  private Decision drainHeld(long now) {
    for (PartitionState ps : partitions.values()) {
      Decision idle = streams.idleTooLong(ps, now, state.streamIdleNanos);
      if (idle != null) {
        return idle; // the drain comes back here, and looks again
      }
    }
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
        if (ps.queue.peek() instanceof Items.BarrierItem b && state.aside.holds(b.manifest)) {
          return new Decision.Fail(state.aside.barrierCame(b.manifest)); // fails closed
        }
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
}
