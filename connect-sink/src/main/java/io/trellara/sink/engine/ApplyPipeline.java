package io.trellara.sink.engine;

import io.trellara.connect.common.Ticker;
import io.trellara.connect.common.retry.Backoff;
import io.trellara.connect.common.retry.Sleeper;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.buffer.Decision;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.buffer.SinkBuffer;
import io.trellara.sink.buffer.StreamFailure;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.BarrierLook;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.BarrierState;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.RetryPause;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.StagingSignal;
import io.trellara.sink.port.Target;
import io.trellara.sink.port.TargetStream;
import io.trellara.sink.port.TopicPartitionKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The driver of a sink task's records: hands them to the pure {@link SinkBuffer} and runs each
 * {@link Decision} it returns against the target port, in order, answering its questions and
 * telling it how a stream's work failed. It owns what the buffer must not: the clock, the open
 * streams, and the one retry policy ({@link Backoff}) for streams that fail transiently.
 *
 * <p>Not thread-safe (the task thread), except the gauges.
 */
public final class ApplyPipeline implements AutoCloseable {
  /** Hears about what was applied, after the commit (metrics). */
  public interface Listener {
    default void envelopesApplied(List<SourceTransaction> batch, ApplyResult result) {}

    default void barrierApplied(TransactionManifest manifest, BarrierResult result) {}

    /** A streamed transaction failed transiently and is delivered again after a backoff. */
    default void streamRetried() {}
  }

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ApplyPipeline.class);

  private final Target target;
  private final Listener listener;
  private final SinkBuffer buffer;
  private final Map<TopicPartitionKey, TargetStream> streams = new HashMap<>();
  private final Map<TopicPartitionKey, Backoff> streamRetries = new HashMap<>();

  /** The longest an idle {@link #poll()} waits for a staging signal. */
  static final long MAX_AWAIT_MILLIS = 10;

  private StagingSignal signal = StagingSignal.NONE;
  private boolean listening;
  private Ticker ticker = Ticker.SYSTEM;
  private Sleeper sleeper = Sleeper.SYSTEM;
  private Backoff.Policy retryPolicy =
      Backoff.Policy.of(Duration.ofMillis(200), Duration.ofSeconds(2), Duration.ofMinutes(10), 0.2);

  public ApplyPipeline(Target target, Listener listener) {
    this(
        target,
        listener,
        SinkBuffer.DEFAULT_MAX_QUEUED_TRANSACTIONS,
        SinkBuffer.DEFAULT_MAX_QUEUED_BYTES,
        SinkBuffer.DEFAULT_RECHECK_MILLIS);
  }

  public ApplyPipeline(
      Target target,
      Listener listener,
      int maxQueuedTransactions,
      long maxQueuedBytes,
      long recheckMillis) {
    this.target = Objects.requireNonNull(target, "target");
    this.listener = listener == null ? new Listener() {} : listener;
    this.buffer = new SinkBuffer(maxQueuedTransactions, maxQueuedBytes, recheckMillis);
  }

  /** Fails a barrier that waits longer than {@code maxWait} without one of its chunks arriving. */
  public ApplyPipeline maxBarrierWait(Duration maxWait) {
    buffer.maxBarrierWait(maxWait.toNanos());
    return this;
  }

  /** Rolls back a stream whose next record has not come for {@code maxIdle} (released locks). */
  public ApplyPipeline maxStreamIdle(Duration maxIdle) {
    buffer.maxStreamIdle(maxIdle.toNanos());
    return this;
  }

  /** Pauses a lane while more than {@code maxBytes} of it are staged behind a waiting barrier. */
  public ApplyPipeline maxStagedPerLane(long maxBytes) {
    return maxStagedPerLane(maxBytes, Duration.ofMillis(SinkBuffer.DEFAULT_STAGING_CHECK_MILLIS));
  }

  /** {@link #maxStagedPerLane(long)}, looking at the staged bytes every {@code checkEvery}. */
  public ApplyPipeline maxStagedPerLane(long maxBytes, Duration checkEvery) {
    buffer.maxStagedPerLane(maxBytes, checkEvery.toNanos());
    return this;
  }

  /**
   * How long a transaction set aside past its flow's staging bound holds its partitions' offsets
   * while its barrier may still come: staging.retention.ms.
   */
  public ApplyPipeline stagingRetention(Duration retention) {
    buffer.stagingRetention(retention.toNanos());
    return this;
  }

  /** How long lane chunks may wait in memory for their barrier, and how many bytes of them. */
  public ApplyPipeline holdLanes(Duration hold, long maxBytes) {
    buffer.holdLanes(hold.toNanos(), maxBytes);
    return this;
  }

  /** The retry policy of streamed transactions that fail transiently. */
  public ApplyPipeline retryPolicy(Backoff.Policy policy) {
    this.retryPolicy = Objects.requireNonNull(policy, "policy");
    return this;
  }

  /**
   * What wakes a waiting barrier when other tasks stage its chunks (none: the recheck interval).
   */
  public ApplyPipeline wakeOn(StagingSignal signal) {
    this.signal = Objects.requireNonNull(signal, "signal");
    return this;
  }

  /** The clock and the sleeper (tests pass their own). */
  public ApplyPipeline time(Ticker ticker, Sleeper sleeper) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    return this;
  }

  /**
   * Takes the next records (in order per partition) and runs what they lead to. Throws {@link
   * Input.RejectedException}, {@link ProtocolViolationException} or {@link ApplyException} when
   * apply must stop; what precedes the cause is applied (or staged) first.
   */
  public void accept(List<Input> inputs) {
    if (buffer.waiting()) {
      takeSignal(0);
    }
    buffer.offer(inputs);
    run();
    listenWhileWaiting();
  }

  /**
   * Looks at waiting barriers again (Connect calls {@code put} with an empty batch now and then).
   * While a barrier waits and staging wakes this task, it first waits up to {@link
   * #MAX_AWAIT_MILLIS} for another task's staging.
   */
  public void poll() {
    if (buffer.waiting()) {
      takeSignal(MAX_AWAIT_MILLIS);
    }
    buffer.poll();
    run();
    listenWhileWaiting();
  }

  /** Takes a staging signal, waiting up to {@code millis} for one: the buffer hears of it. */
  private void takeSignal(long millis) {
    if (listen() && signal.await(millis)) {
      buffer.stagedElsewhere();
    }
  }

  /** A barrier waits: listen for the staging from now on (so no signal is missed after a look). */
  private void listenWhileWaiting() {
    if (buffer.waiting()) {
      listen();
    }
  }

  private boolean listen() {
    boolean now = signal.listening();
    if (now && !listening) {
      buffer.stagedElsewhere(); // what was staged before the listening began: one look more
    }
    listening = now;
    buffer.wokenByStaging(now);
    return now;
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
    } else if (d instanceof Decision.OpenStream o) {
      stream(o.partition(), () -> streams.put(o.partition(), target.openStream(o.first())));
    } else if (d instanceof Decision.StreamChunk c) {
      stream(
          c.partition(),
          () -> {
            streams.get(c.partition()).write(c.chunk());
            return null;
          });
    } else if (d instanceof Decision.StreamManifest m) {
      streams.get(m.partition()).manifest(m.manifest());
    } else if (d instanceof Decision.CommitStream c) {
      BarrierResult r =
          stream(c.partition(), () -> streams.get(c.partition()).commit(c.marker(), c.positions()));
      if (r != null) {
        streams.remove(c.partition());
        streamRetries.remove(c.partition()); // the outage of this partition's streams is over
        listener.barrierApplied(c.manifest(), r);
      }
    } else if (d instanceof Decision.RollbackStream r) {
      rollback(r.partition());
    } else if (d instanceof Decision.Fail f) {
      throw f.error();
    } else {
      throw new IllegalStateException("unknown decision " + d);
    }
  }

  /**
   * Runs one stream step; a failure is told to the buffer (rolled back: delivered again after a
   * backoff, applied the staged way, or stopping the partition at the first chunk). Null then.
   */
  private <T> T stream(TopicPartitionKey tp, java.util.function.Supplier<T> work) {
    try {
      return work.get();
    } catch (TargetStream.TransientFailure e) {
      rollback(tp);
      Backoff backoff = streamRetries.computeIfAbsent(tp, k -> new Backoff(retryPolicy, ticker));
      long delay = backoff.nextDelayMillis();
      if (delay < 0) {
        streamRetries.remove(tp);
        buffer.streamFailed(
            StreamFailure.REFUSED,
            new ApplyException(
                ApplyException.Reason.RETRIES_EXHAUSTED,
                null,
                null,
                null,
                "transient failure persisted for "
                    + backoff.outageMillis()
                    + " ms (retry.max.duration.ms "
                    + retryPolicy.deadline().toMillis()
                    + "): "
                    + e.getMessage(),
                e));
        return null;
      }
      if (backoff.worthLogging()) {
        LOG.warn(
            "{}; rolled back, delivering it again from its first chunk in {} ms",
            e.getMessage(),
            delay);
      }
      listener.streamRetried();
      pause(delay);
      buffer.streamFailed(StreamFailure.TRANSIENT, e);
    } catch (TargetStream.CannotStream e) {
      rollback(tp);
      buffer.streamFailed(StreamFailure.CANNOT_STREAM, e);
    } catch (ProtocolViolationException | ApplyException e) {
      rollback(tp);
      buffer.streamFailed(StreamFailure.REFUSED, e);
    }
    return null;
  }

  private void pause(long millis) {
    RetryPause.pause(sleeper, millis);
  }

  private void rollback(TopicPartitionKey tp) {
    TargetStream s = streams.remove(tp);
    if (s != null) {
      s.rollback();
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

  /** Per partition seen since it was opened: the offset of the first record taken from it. */
  public Map<TopicPartitionKey, Long> firstOffsets() {
    return buffer.firstOffsets();
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
    return signal.listening() ? 1 : buffer.recheckWithinMillis(ticker.nanos());
  }

  /** True when a barrier waits for chunks: {@link #poll()} soon. */
  public boolean waiting() {
    return buffer.waiting();
  }

  /** Forget everything about these partitions (newly assigned: they resume from the target). */
  public void open(Collection<TopicPartitionKey> assigned) {
    forget(assigned);
  }

  /** Drop what is held for these partitions (revoked: their next owner reads it again). */
  public void close(Collection<TopicPartitionKey> revoked) {
    forget(revoked);
  }

  private void forget(Collection<TopicPartitionKey> tps) {
    for (TopicPartitionKey tp : buffer.forget(tps)) {
      rollback(tp);
    }
    tps.forEach(streamRetries::remove);
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
    signal.close();
  }
}
