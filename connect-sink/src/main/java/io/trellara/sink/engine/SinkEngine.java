package io.trellara.sink.engine;

import io.trellara.connect.common.Ticker;
import io.trellara.connect.common.retry.Backoff;
import io.trellara.connect.common.retry.FailureAction;
import io.trellara.connect.common.retry.Sleeper;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.buffer.Decision;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.buffer.SinkBuffer;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.BarrierLook;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.BarrierState;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.StagingSignal;
import io.trellara.sink.port.Target;
import io.trellara.sink.port.TargetProgressLost;
import io.trellara.sink.port.TopicPartitionKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * What a sink task does, behind Connect, and the driver of its records: each batch goes to the pure
 * {@link SinkBuffer}, and each {@link Decision} it returns runs against the target port, in order,
 * its questions answered. It owns what the buffer must not: the clock, the open streams ({@link
 * TargetStreams}, with the one retry policy) and, once {@link #attach attached} to a consumer, the
 * partitions Kafka assigns ({@link Assignments}: where each resumes, pauses, fencing). Kafka may
 * commit offsets only up to what {@link #committable()} says is durable. It runs in unit tests
 * against an in-memory target and consumer.
 *
 * <p>Not thread-safe (the task thread), except the gauges.
 */
public final class SinkEngine implements AutoCloseable {
  /** What the engine asks of the Kafka consumer (the task implements it with its context). */
  public interface Consumer {
    /** Deliver {@code partition} from {@code offset} on. */
    void seek(TopicPartitionKey partition, long offset);

    void pause(List<TopicPartitionKey> partitions);

    void resume(List<TopicPartitionKey> partitions);

    /** Call {@code put} again within {@code millis}, records or not. */
    void callAgainWithin(long millis);

    /** The partitions assigned now. */
    Collection<TopicPartitionKey> assignment();
  }

  /** Hears about what was applied, after the commit (metrics). */
  public interface Listener {
    default void envelopesApplied(List<SourceTransaction> batch, ApplyResult result) {}

    default void barrierApplied(TransactionManifest manifest, BarrierResult result) {}

    /** A streamed transaction failed transiently and is delivered again after a backoff. */
    default void streamRetried() {}
  }

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SinkEngine.class);

  private final Target target;
  private final Listener listener;
  private final SinkBuffer buffer;
  private final TargetStreams streams;
  private Assignments assignments;

  private final StagingWaits waits;
  private Ticker ticker = Ticker.SYSTEM;

  public SinkEngine(Target target, Listener listener) {
    this(
        target,
        listener,
        SinkBuffer.DEFAULT_MAX_QUEUED_TRANSACTIONS,
        SinkBuffer.DEFAULT_MAX_QUEUED_BYTES,
        SinkBuffer.DEFAULT_RECHECK_MILLIS);
  }

  public SinkEngine(
      Target target,
      Listener listener,
      int maxQueuedTransactions,
      long maxQueuedBytes,
      long recheckMillis) {
    this.target = Objects.requireNonNull(target, "target");
    this.listener = listener == null ? new Listener() {} : listener;
    this.buffer = new SinkBuffer(maxQueuedTransactions, maxQueuedBytes, recheckMillis);
    this.streams = new TargetStreams(target, buffer, this.listener::streamRetried);
    this.waits = new StagingWaits(buffer);
  }

  /**
   * Attaches the engine to the consumer of sink {@code sinkName}: from now on it is what Connect's
   * task calls ({@link #open}, {@link #put}, {@link #committable}).
   */
  public SinkEngine attach(String sinkName, Consumer consumer) {
    return attach(sinkName, consumer, System::nanoTime);
  }

  /** {@link #attach(String, Consumer)} with the fence's clock (tests advance it). */
  public SinkEngine attach(String sinkName, Consumer consumer, LongSupplier nanoClock) {
    assignments = new Assignments(sinkName, target, consumer, this::forget, nanoClock);
    return this;
  }

  /** How long a fenced task waits for Kafka to move its partitions (retry.max.duration.ms). */
  public SinkEngine fenceWait(Duration wait) {
    attached().fenceWait(wait);
    return this;
  }

  /** Fails a barrier that waits longer than {@code maxWait} without one of its chunks arriving. */
  public SinkEngine maxBarrierWait(Duration maxWait) {
    buffer.maxBarrierWait(maxWait.toNanos());
    return this;
  }

  /** Rolls back a stream whose next record has not come for {@code maxIdle} (released locks). */
  public SinkEngine maxStreamIdle(Duration maxIdle) {
    buffer.maxStreamIdle(maxIdle.toNanos());
    return this;
  }

  /**
   * Pauses a lane while more than {@code maxBytes} of it are staged behind a waiting barrier,
   * looking at the staged bytes every {@code checkEvery}.
   */
  public SinkEngine maxStagedPerLane(long maxBytes, Duration checkEvery) {
    buffer.maxStagedPerLane(maxBytes, checkEvery.toNanos());
    return this;
  }

  /**
   * How long a transaction set aside past its flow's staging bound holds its partitions' offsets
   * while its barrier may still come: staging.retention.ms.
   */
  public SinkEngine stagingRetention(Duration retention) {
    buffer.stagingRetention(retention.toNanos());
    return this;
  }

  /** How long lane chunks may wait in memory for their barrier, and how many bytes of them. */
  public SinkEngine holdLanes(Duration hold, long maxBytes) {
    buffer.holdLanes(hold.toNanos(), maxBytes);
    return this;
  }

  /** The retry policy of streamed transactions that fail transiently. */
  public SinkEngine retryPolicy(Backoff.Policy policy) {
    streams.retryPolicy(policy);
    return this;
  }

  /**
   * What wakes a waiting barrier when other tasks stage its chunks (none: the recheck interval).
   */
  public SinkEngine wakeOn(StagingSignal signal) {
    waits.wakeOn(signal);
    return this;
  }

  /** The clock and the sleeper (tests pass their own). */
  public SinkEngine time(Ticker ticker, Sleeper sleeper) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    streams.time(ticker, sleeper);
    return this;
  }

  /**
   * Assigned partitions: claimed in the target for this task, each resumes at its progress.
   * Detached (a test driving {@link #accept} alone), what was held for them is forgotten.
   */
  public void open(Collection<TopicPartitionKey> assigned) {
    if (assignments == null) {
      forget(assigned);
    } else {
      assignments.open(assigned);
    }
  }

  /** Revoked partitions: what was queued for them is read again by their next owner. */
  public void close(Collection<TopicPartitionKey> revoked) {
    if (assignments == null) {
      forget(revoked);
    } else {
      assignments.close(revoked);
    }
  }

  /**
   * The next records from Connect, in order per partition (none: look at waiting barriers again),
   * and what follows from them for the consumer (seeks, pauses, a call soon). Throws what stops
   * apply ({@link #accept}); what precedes its cause is applied first.
   */
  public void put(List<Input> inputs) {
    Assignments a = attached();
    if (a.holdFenced()) {
      return; // fetched before the pause: nothing of it is taken (nor its offsets committed)
    }
    a.checkNoGap(inputs);
    try {
      if (inputs.isEmpty()) {
        poll();
      } else {
        accept(inputs);
      }
    } catch (TargetProgressLost e) {
      a.readAgain(e, buffer.firstOffsets());
      return; // what this batch held is delivered again
    } catch (ApplyException e) {
      if (e.reason().action() != FailureAction.FENCE) {
        throw e;
      }
      a.fenced(e);
      return;
    }
    a.afterBatch(takeRewinds(), backlogged(), waiting(), recheckWithinMillis());
  }

  /**
   * What Kafka offsets may be committed up to, per partition: durable in the target (applied, or
   * staged) and, with asynchronous target commits, flushed. A partition holding an unapplied
   * envelope or barrier commits no further than its first record; none when the target's flush
   * position cannot be read now.
   */
  public Map<TopicPartitionKey, Long> committable() {
    try {
      return target.durable(durablePositions());
    } catch (TargetProgressLost e) {
      attached().readAgain(e, buffer.firstOffsets());
    } catch (ApplyException e) {
      LOG.warn(
          "Sink commits no Kafka offsets this time: the target's WAL flush position cannot be"
              + " read: {}",
          e.getMessage());
    }
    return Map.of();
  }

  private Assignments attached() {
    return Objects.requireNonNull(assignments, "the engine is not attached to a consumer");
  }

  /**
   * Takes the next records (in order per partition) and runs what they lead to. Throws {@link
   * Input.RejectedException}, {@link ProtocolViolationException} or {@link ApplyException} when
   * apply must stop; what precedes the cause is applied (or staged) first.
   */
  public void accept(List<Input> inputs) {
    waits.beforeBatch();
    buffer.offer(inputs);
    run();
    waits.afterRun();
  }

  /**
   * Looks at waiting barriers again (Connect calls {@code put} with an empty batch now and then).
   * While a barrier waits and staging wakes this task, it first waits up to {@link
   * StagingWaits#MAX_AWAIT_MILLIS} for another task's staging.
   */
  public void poll() {
    waits.beforePoll();
    buffer.poll();
    run();
    waits.afterRun();
  }

  private void run() {
    try {
      for (Decision d = buffer.next(ticker.nanos()); d != null; d = buffer.next(ticker.nanos())) {
        execute(d);
        if (!d.isQuestion()) {
          buffer.completed();
        }
      }
    } catch (RuntimeException e) {
      buffer.abandonBatch();
      throw e;
    }
  }

  private void execute(Decision d) {
    if (d instanceof Decision.Stage s) {
      Set<FlowKey> setAside = target.stage(s.chunks(), s.positions());
      if (!setAside.isEmpty()) {
        buffer.setAside(setAside, ticker.nanos());
      }
    } else if (d instanceof Decision.ApplyEnvelopes a) {
      listener.envelopesApplied(a.batch(), target.apply(a.batch()));
    } else if (d instanceof Decision.CheckBarriers c) {
      buffer.answer(target.look(c.looks()), ticker.nanos());
    } else if (d instanceof Decision.ApplyBarrier b) {
      listener.barrierApplied(
          b.manifest(), target.applyBarrier(b.manifest(), b.positions(), b.held()));
    } else if (d instanceof Decision.CheckApplied c) {
      boolean applied =
          target.look(List.of(BarrierLook.applied(c.key()))).get(0).verdict().kind()
              == BarrierState.Kind.ALREADY_APPLIED;
      buffer.answer(applied, ticker.nanos());
    } else if (d instanceof Decision.MeasureStaging) {
      buffer.answer(target.stagedBehindOldest(), ticker.nanos());
    } else if (d instanceof Decision.CommitStream c) {
      BarrierResult r = streams.commit(c);
      if (r != null) {
        listener.barrierApplied(c.manifest(), r);
      }
    } else if (streams.run(d)) {
      return; // another step of a stream
    } else if (d instanceof Decision.Fail f) {
      throw f.error();
    } else {
      throw new IllegalStateException("unknown decision " + d);
    }
  }

  /** Offsets the consumer must deliver again from; the task seeks there. Cleared by the call. */
  public Map<TopicPartitionKey, Long> takeRewinds() {
    return buffer.takeRewinds();
  }

  /** Per partition: the offset up to which every record is durable in the target. */
  public Map<TopicPartitionKey, Long> durablePositions() {
    return buffer.durablePositions();
  }

  /** Partitions that should not deliver more records for now. */
  public Set<TopicPartitionKey> backlogged() {
    return buffer.backlogged();
  }

  /**
   * How soon {@link #poll()} should run again while {@link #waiting()}, in milliseconds: at once
   * when staging wakes this task (the poll itself waits for the signal), else the recheck.
   */
  public long recheckWithinMillis() {
    return waits.listening() ? 1 : buffer.recheckWithinMillis(ticker.nanos());
  }

  /** True when a barrier waits for chunks: {@link #poll()} soon. */
  public boolean waiting() {
    return buffer.waiting();
  }

  /** Drops what is held for these partitions: they are read again from the target's progress. */
  private void forget(Collection<TopicPartitionKey> tps) {
    buffer.forget(tps);
    tps.forEach(streams::forget);
  }

  public long orphanManifestsDiscarded() {
    return buffer.orphanManifestsDiscarded();
  }

  public long transactionsWaitingAtBarrier() {
    return buffer.transactionsWaitingAtBarrier();
  }

  public long waitingLanes() {
    return buffer.waitingLanes();
  }

  public long queuedBytes() {
    return buffer.queuedBytes();
  }

  public String boundaryMode() {
    return buffer.boundaryMode();
  }

  @Override
  public void close() {
    forget(new ArrayList<>(buffer.known()));
    waits.close();
  }
}
