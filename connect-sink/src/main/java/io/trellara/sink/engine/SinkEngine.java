package io.trellara.sink.engine;

import io.trellara.sink.buffer.FlowControl;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.Target;
import io.trellara.sink.port.TargetProgressLost;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a sink task does, behind Connect: where each assigned partition resumes (the progress the
 * target records), records in order through the {@link ApplyPipeline}, flow control, and which
 * positions Kafka may have (durable, and with asynchronous target commits flushed). It asks the
 * consumer for seeks, pauses and a call soon through {@link Consumer}, which the task implements
 * with its {@code SinkTaskContext}; so it runs in unit tests against an in-memory target and
 * consumer.
 */
public final class SinkEngine implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SinkEngine.class);

  /** What the engine asks of the Kafka consumer. */
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

  private final String sinkName;
  private final Target target;
  private final ApplyPipeline pipeline;
  private final Consumer consumer;
  private final FlowControl flow = new FlowControl();

  /**
   * Partitions sought to their recorded progress whose first record has not arrived yet: where it
   * must be.
   */
  private final Map<TopicPartitionKey, Long> expectedFirst = new HashMap<>();

  /**
   * Partitions another task has claimed while this one applied them (dropped and paused here until
   * Kafka revokes or assigns them again), since when, and the refusal that said so.
   */
  private final Set<TopicPartitionKey> fenced = new LinkedHashSet<>();

  /**
   * Partitions paused for fencing: resumed when Kafka assigns them to this task again (Connect
   * keeps the pause).
   */
  private final Set<TopicPartitionKey> fencePaused = new LinkedHashSet<>();

  private long fencedSinceNanos;
  private final LongSupplier nanoClock;
  private ApplyException fenceCause;

  /** How long a fenced task waits for Kafka to move its partitions before it stops. */
  private java.time.Duration fenceWait = java.time.Duration.ofMinutes(10);

  public SinkEngine(String sinkName, Target target, ApplyPipeline pipeline, Consumer consumer) {
    this(sinkName, target, pipeline, consumer, System::nanoTime);
  }

  /**
   * With a clock for how long a fenced task waits for Kafka to move its partitions (tests advance
   * it).
   */
  public SinkEngine(
      String sinkName,
      Target target,
      ApplyPipeline pipeline,
      Consumer consumer,
      LongSupplier nanoClock) {
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.sinkName = Objects.requireNonNull(sinkName, "sinkName");
    this.target = Objects.requireNonNull(target, "target");
    this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
    this.consumer = Objects.requireNonNull(consumer, "consumer");
  }

  /**
   * How long a fenced task waits for the rebalance that moves its partitions
   * (retry.max.duration.ms).
   */
  public SinkEngine fenceWait(java.time.Duration wait) {
    this.fenceWait = java.util.Objects.requireNonNull(wait, "wait");
    return this;
  }

  /**
   * Progress lives in the target: every assigned partition is claimed there for this task (fencing
   * an earlier owner) and resumes at the position recorded there.
   */
  public void open(Collection<TopicPartitionKey> assigned) {
    Collection<TopicPartitionKey> partitions = assigned;
    if (!fenced.isEmpty()) {
      // a rebalance: the fenced partitions still assigned (a cooperative assignor keeps them
      // without opening
      // them again) are claimed back with the new ones and read again from the target's progress
      Set<TopicPartitionKey> all = new LinkedHashSet<>(fenced);
      all.retainAll(new LinkedHashSet<>(consumer.assignment()));
      all.addAll(assigned);
      partitions = List.copyOf(all);
      fenced.clear();
    }
    List<TopicPartitionKey> paused = partitions.stream().filter(fencePaused::remove).toList();
    if (!paused.isEmpty()) {
      LOG.info(
          "Sink {}: Kafka assigned {} to this task again after another task claimed them; it claims them"
              + " back and resumes",
          sinkName,
          paused);
      resume(paused);
    }
    // the target is told every partition this task holds now (a fence is judged against them all)
    Set<TopicPartitionKey> all = new LinkedHashSet<>(consumer.assignment());
    all.addAll(partitions);
    Map<TopicPartitionKey, Long> positions = target.claim(List.copyOf(all));
    for (TopicPartitionKey tp : partitions) {
      Long next = positions.get(tp);
      if (next != null) {
        consumer.seek(tp, next);
        expectedFirst.put(tp, next);
        LOG.info(
            "Sink {} resumes {} at offset {} (its progress recorded in the target)",
            sinkName,
            tp,
            next);
      } else {
        // not the consumer group's committed offset: a target restored from a backup, or a new
        // target
        // fed from an existing group, would skip what it never applied
        consumer.seek(tp, 0);
        expectedFirst.remove(tp);
        LOG.info(
            "Sink {} has no progress recorded for {}: it starts from the partition's earliest record",
            sinkName,
            tp);
      }
    }
    pipeline.open(partitions);
    resume(flow.assigned(partitions)); // nothing is queued for them any more
  }

  /**
   * Revoked partitions: what was queued for them is read again by their next owner from the
   * target's progress.
   */
  public void close(Collection<TopicPartitionKey> partitions) {
    partitions.forEach(expectedFirst::remove);
    if (!fenced.isEmpty() && fenced.removeAll(partitions) && fenced.isEmpty()) {
      LOG.info(
          "Sink {}: Kafka revoked the partitions another task had claimed from this one", sinkName);
    }
    flow.revoked(partitions);
    pipeline.close(partitions);
  }

  /**
   * The next records, in order per partition (none: look at waiting barriers again). Throws what
   * stops apply ({@link ApplyPipeline#accept}); what precedes its cause is applied first.
   */
  public void put(List<Input> inputs) {
    if (!fenced.isEmpty()) {
      waitFenced();
      return; // fetched before the pause: nothing of it is taken (nor its offsets committed)
    }
    if (!expectedFirst.isEmpty()) {
      checkNoGap(inputs);
    }
    try {
      if (inputs.isEmpty()) {
        pipeline.poll();
      } else {
        pipeline.accept(inputs);
      }
    } catch (TargetProgressLost e) {
      readAgainFromTarget(e);
      return; // what this batch held is delivered again
    } catch (ApplyException e) {
      if (e.reason().action() != io.trellara.connect.common.retry.FailureAction.FENCE) {
        throw e;
      }
      fenced(e);
      return;
    }
    pipeline.takeRewinds().forEach(consumer::seek);
    FlowControl.Pauses d = flow.after(pipeline.backlogged(), pipeline.waiting());
    if (!d.pause().isEmpty()) {
      consumer.pause(d.pause());
    }
    resume(d.resume());
    if (d.recheckSoon()) {
      consumer.callAgainWithin(pipeline.recheckWithinMillis());
    }
  }

  /**
   * The first record of a partition sought to its recorded progress must be there: a later one
   * means the records between are gone from the topic, and the target would miss them without
   * anyone noticing. One offset is allowed for the commit marker of a transactional producer
   * (Connect's exactly-once source support writes one after each transaction), which takes an
   * offset the consumer never delivers.
   */
  private void checkNoGap(List<Input> inputs) {
    for (Input in : inputs) {
      Long expected = expectedFirst.remove(in.partition());
      if (expected != null && in.offset() > expected + 1) {
        expectedFirst.put(
            in.partition(), expected); // fails again, should the task be restarted as it is
        throw new ApplyException(
            ApplyException.Reason.PROGRESS_GAP,
            null,
            in.partition() + "@" + in.offset(),
            "sink "
                + sinkName
                + " resumes "
                + in.partition()
                + " at offset "
                + expected
                + " (its progress"
                + " in the target), but the first record Kafka delivered is at offset "
                + in.offset()
                + ": records "
                + expected
                + ".."
                + (in.offset() - 1)
                + " are no longer in the topic"
                + " (retention or deleted records removed them before this sink applied them, or the"
                + " topic was re-created), so the target would miss them. Nothing after the gap is"
                + " applied. To accept the loss (the target is re-seeded, or the topic re-created),"
                + " delete this partition's progress row: DELETE FROM trellara_sink.progress WHERE"
                + " sink_name = '"
                + sinkName
                + "' AND topic = '"
                + in.partition().topic()
                + "' AND kafka_partition = "
                + in.partition().partition());
      }
      if (expectedFirst.isEmpty()) {
        return;
      }
    }
  }

  /**
   * What Kafka offsets may be committed up to, per partition: durable in the target (applied, or
   * staged) and, with asynchronous target commits, flushed. A partition holding an unapplied
   * envelope or barrier commits no further than its first record; none when the target's flush
   * position cannot be read now.
   */
  public Map<TopicPartitionKey, Long> committable() {
    try {
      return target.durable(pipeline.durablePositions());
    } catch (TargetProgressLost e) {
      readAgainFromTarget(e);
    } catch (ApplyException e) {
      LOG.warn(
          "Sink {} commits no Kafka offsets this time: the target's WAL flush position cannot be read: {}",
          sinkName,
          e.getMessage());
    }
    return Map.of();
  }

  /**
   * The target may have lost its last (asynchronous) commits and their progress: everything held in
   * memory is dropped and every assigned partition is read again from the progress the target
   * records (or, where it records none, from the first record taken since the partition was
   * assigned).
   */
  private void readAgainFromTarget(TargetProgressLost lost) {
    LOG.warn("Sink {}: {}", sinkName, lost.getMessage());
    List<TopicPartitionKey> assigned = List.copyOf(consumer.assignment());
    Map<TopicPartitionKey, Long> recorded = target.claim(assigned);
    Map<TopicPartitionKey, Long> firstTaken = pipeline.firstOffsets();
    List<TopicPartitionKey> partitions = List.copyOf(consumer.assignment());
    flow.revoked(partitions);
    pipeline.close(partitions);
    pipeline.open(partitions);
    for (TopicPartitionKey k : partitions) {
      Long next = recorded.getOrDefault(k, firstTaken.get(k));
      if (next != null) {
        consumer.seek(k, next);
        expectedFirst.put(k, next);
        LOG.info("Sink {} reads {} again from offset {}", sinkName, k, next);
      }
    }
    resume(flow.assigned(partitions));
  }

  /**
   * Another task owns what this task was applying (its commit was refused and rolled back): Kafka
   * has, or will at this consumer's next poll, assigned the partitions elsewhere. Everything held
   * for them is dropped and they are paused until Kafka assigns them again ({@link #open}, which
   * claims them back); Kafka offsets for them stay where the target's progress is.
   */
  private void fenced(ApplyException e) {
    LOG.warn(
        "Sink {}: {}. This task drops what it holds and pauses its partitions until Kafka assigns them"
            + " again (at most {} s, retry.max.duration.ms)",
        sinkName,
        e.getMessage(),
        fenceWait.toSeconds());
    fenceCause = e;
    fencedSinceNanos = nanoClock.getAsLong();
    List<TopicPartitionKey> partitions = List.copyOf(consumer.assignment());
    fenced.addAll(partitions);
    flow.revoked(partitions);
    pipeline.close(partitions);
    pipeline.open(partitions);
    partitions.forEach(expectedFirst::remove);
    if (!partitions.isEmpty()) {
      consumer.pause(partitions);
      fencePaused.addAll(partitions);
    }
    consumer.callAgainWithin(FENCED_RECHECK_MILLIS);
  }

  /**
   * Fenced and still assigned: a rebalance normally follows within a poll. If none comes within the
   * retry time, two deployments share this sink's name and target, and the task stops, naming the
   * other owner.
   */
  private void waitFenced() {
    long waitedMillis = (nanoClock.getAsLong() - fencedSinceNanos) / 1_000_000L;
    if (waitedMillis > fenceWait.toMillis()) {
      throw new ApplyException(
          ApplyException.Reason.FENCED,
          null,
          fenceCause.eventKey(),
          null,
          "still fenced "
              + waitedMillis
              + " ms after another task claimed this task's partitions, and Kafka has not"
              + " assigned them elsewhere: does a second deployment of sink "
              + sinkName
              + " (another Connect"
              + " cluster, the same name) write this target? The claim: "
              + fenceCause.getMessage(),
          fenceCause);
    }
    consumer.callAgainWithin(FENCED_RECHECK_MILLIS);
  }

  private static final long FENCED_RECHECK_MILLIS = 1_000;

  private void resume(List<TopicPartitionKey> partitions) {
    if (!partitions.isEmpty()) {
      consumer.resume(partitions);
    }
  }

  @Override
  public void close() {
    pipeline.close();
  }
}
