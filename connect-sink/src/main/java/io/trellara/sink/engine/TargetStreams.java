package io.trellara.sink.engine;

import io.trellara.connect.common.Ticker;
import io.trellara.connect.common.retry.Backoff;
import io.trellara.connect.common.retry.Sleeper;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.buffer.Decision;
import io.trellara.sink.buffer.SinkBuffer;
import io.trellara.sink.buffer.StreamFailure;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.RetryPause;
import io.trellara.sink.port.Target;
import io.trellara.sink.port.TargetStream;
import io.trellara.sink.port.TopicPartitionKey;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The open target streams of a task (a strict-chunked transaction applied as its chunks arrive, one
 * per partition at most) and the one retry policy ({@link Backoff}) for those that fail
 * transiently. A failed step is rolled back and told to the buffer, which decides what follows
 * (delivered again after the backoff, applied the staged way, or the partition stopped).
 */
final class TargetStreams {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(TargetStreams.class);

  private final Target target;
  private final SinkBuffer buffer;
  private final Runnable retried;
  private final Map<TopicPartitionKey, TargetStream> streams = new HashMap<>();
  private final Map<TopicPartitionKey, Backoff> retries = new HashMap<>();
  private Ticker ticker = Ticker.SYSTEM;
  private Sleeper sleeper = Sleeper.SYSTEM;
  private Backoff.Policy policy =
      Backoff.Policy.of(Duration.ofMillis(200), Duration.ofSeconds(2), Duration.ofMinutes(10), 0.2);

  /** {@code retried} hears of each transient failure that is delivered again (metrics). */
  TargetStreams(Target target, SinkBuffer buffer, Runnable retried) {
    this.target = target;
    this.buffer = buffer;
    this.retried = retried;
  }

  void time(Ticker ticker, Sleeper sleeper) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
  }

  void retryPolicy(Backoff.Policy policy) {
    this.policy = Objects.requireNonNull(policy, "policy");
  }

  /** Runs {@code d} if it opens, writes to or rolls back a stream: false for any other. */
  boolean run(Decision d) {
    if (d instanceof Decision.OpenStream o) {
      step(o.partition(), () -> streams.put(o.partition(), target.openStream(o.first())));
    } else if (d instanceof Decision.StreamChunk c) {
      step(
          c.partition(),
          () -> {
            streams.get(c.partition()).write(c.chunk());
            return null;
          });
    } else if (d instanceof Decision.StreamManifest m) {
      streams.get(m.partition()).manifest(m.manifest());
    } else if (d instanceof Decision.RollbackStream r) {
      rollback(r.partition());
    } else {
      return false;
    }
    return true;
  }

  /** Commits the stream at its marker: its result, or null when the commit failed (told). */
  BarrierResult commit(Decision.CommitStream c) {
    BarrierResult r =
        step(c.partition(), () -> streams.get(c.partition()).commit(c.marker(), c.positions()));
    if (r != null) {
      streams.remove(c.partition());
      retries.remove(c.partition()); // the outage of this partition's streams is over
    }
    return r;
  }

  void rollback(TopicPartitionKey tp) {
    TargetStream s = streams.remove(tp);
    if (s != null) {
      s.rollback();
    }
  }

  /** Rolls back the stream of a partition no longer held and forgets its retries. */
  void forget(TopicPartitionKey tp) {
    rollback(tp);
    retries.remove(tp);
  }

  /** Runs one stream step; a failure is rolled back and told to the buffer. Null then. */
  private <T> T step(TopicPartitionKey tp, Supplier<T> work) {
    try {
      return work.get();
    } catch (TargetStream.TransientFailure e) {
      rollback(tp);
      Backoff backoff = retries.computeIfAbsent(tp, k -> new Backoff(policy, ticker));
      long delay = backoff.nextDelayMillis();
      if (delay < 0) {
        retries.remove(tp);
        buffer.streamFailed(StreamFailure.REFUSED, exhausted(backoff, e));
        return null;
      }
      if (backoff.worthLogging()) {
        LOG.warn(
            "{}; rolled back, delivering it again from its first chunk in {} ms",
            e.getMessage(),
            delay);
      }
      retried.run();
      RetryPause.pause(sleeper, delay);
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

  private ApplyException exhausted(Backoff backoff, RuntimeException cause) {
    return new ApplyException(
        ApplyException.Reason.RETRIES_EXHAUSTED,
        null,
        null,
        null,
        "transient failure persisted for "
            + backoff.outageMillis()
            + " ms (retry.max.duration.ms "
            + policy.deadline().toMillis()
            + "): "
            + cause.getMessage(),
        cause);
  }
}
