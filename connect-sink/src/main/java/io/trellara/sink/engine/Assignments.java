package io.trellara.sink.engine;

import io.trellara.sink.buffer.FlowControl;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.Target;
import io.trellara.sink.port.TargetProgressLost;
import io.trellara.sink.port.TopicPartitionKey;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions Kafka assigns a task, seen from the consumer: where each resumes (the progress the
 * target records, claimed for this task), whether its first record is there, which are paused (flow
 * control, or fenced while another task owns them) and for how long a fenced task waits. It asks
 * the consumer for seeks, pauses and a call soon; what the engine holds for a partition it gives up
 * is dropped through {@code forget}.
 */
final class Assignments {
  private static final Logger LOG = LoggerFactory.getLogger(Assignments.class);
  private static final long FENCED_RECHECK_MILLIS = 1_000;

  private final String sinkName;
  private final Target target;
  private final SinkEngine.Consumer consumer;
  private final Consumer<Collection<TopicPartitionKey>> forget;
  private final LongSupplier nanoClock;
  private final FlowControl flow = new FlowControl();

  /** Partitions sought to their recorded progress whose first record has not arrived yet. */
  private final Map<TopicPartitionKey, Long> expectedFirst = new HashMap<>();

  /** Partitions another task has claimed while this one applied them (dropped and paused here). */
  private final Set<TopicPartitionKey> fenced = new LinkedHashSet<>();

  /** Partitions paused for fencing: resumed when Kafka assigns them to this task again. */
  private final Set<TopicPartitionKey> fencePaused = new LinkedHashSet<>();

  private long fencedSinceNanos;
  private ApplyException fenceCause;
  private Duration fenceWait = Duration.ofMinutes(10);

  Assignments(
      String sinkName,
      Target target,
      SinkEngine.Consumer consumer,
      Consumer<Collection<TopicPartitionKey>> forget,
      LongSupplier nanoClock) {
    this.sinkName = Objects.requireNonNull(sinkName, "sinkName");
    this.target = Objects.requireNonNull(target, "target");
    this.consumer = Objects.requireNonNull(consumer, "consumer");
    this.forget = forget;
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
  }

  void fenceWait(Duration wait) {
    this.fenceWait = Objects.requireNonNull(wait, "wait");
  }

  /**
   * Progress lives in the target: every assigned partition is claimed there for this task (fencing
   * an earlier owner) and resumes at the position recorded there.
   */
  void open(Collection<TopicPartitionKey> assigned) {
    Collection<TopicPartitionKey> partitions = assigned;
    if (!fenced.isEmpty()) {
      // a rebalance: the fenced partitions still assigned (a cooperative assignor keeps them
      // without opening them again) are claimed back with the new ones, read again from the target
      Set<TopicPartitionKey> all = new LinkedHashSet<>(fenced);
      all.retainAll(new LinkedHashSet<>(consumer.assignment()));
      all.addAll(assigned);
      partitions = List.copyOf(all);
      fenced.clear();
    }
    List<TopicPartitionKey> paused = partitions.stream().filter(fencePaused::remove).toList();
    if (!paused.isEmpty()) {
      LOG.info(
          "Sink {}: Kafka assigned {} to this task again after another task claimed them; it claims"
              + " them back and resumes",
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
        seek(tp, next, "resumes {} at offset {} (its progress recorded in the target)");
      } else {
        // not the consumer group's committed offset: a target restored from a backup, or a new
        // target fed from an existing group, would skip what it never applied
        consumer.seek(tp, 0);
        expectedFirst.remove(tp);
        LOG.info(
            "Sink {} has no progress recorded for {}: it starts from the partition's earliest record",
            sinkName,
            tp);
      }
    }
    forget.accept(partitions);
    resume(flow.assigned(partitions)); // nothing is queued for them any more
  }

  /** Revoked partitions: their next owner reads what was queued again from the target. */
  void close(Collection<TopicPartitionKey> partitions) {
    partitions.forEach(expectedFirst::remove);
    if (!fenced.isEmpty() && fenced.removeAll(partitions) && fenced.isEmpty()) {
      LOG.info(
          "Sink {}: Kafka revoked the partitions another task had claimed from this one", sinkName);
    }
    flow.revoked(partitions);
    forget.accept(partitions);
  }

  /**
   * True while fenced: nothing of a batch fetched before the pause is taken (nor its offsets
   * committed). A rebalance normally follows within a poll; if none comes within the retry time,
   * two deployments share this sink's name and target, and the task stops, naming the other owner.
   */
  boolean holdFenced() {
    if (fenced.isEmpty()) {
      return false;
    }
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
              + " (another Connect cluster, the same name) write this target? The claim: "
              + fenceCause.getMessage(),
          fenceCause);
    }
    consumer.callAgainWithin(FENCED_RECHECK_MILLIS);
    return true;
  }

  /**
   * The first record of a partition sought to its recorded progress must be there: a later one
   * means the records between are gone from the topic, and the target would miss them without
   * anyone noticing. One offset is allowed for the commit marker of a transactional producer
   * (Connect's exactly-once source support writes one after each transaction), which takes an
   * offset the consumer never delivers.
   */
  void checkNoGap(List<Input> inputs) {
    for (int i = 0; i < inputs.size() && !expectedFirst.isEmpty(); i++) {
      Input in = inputs.get(i);
      Long expected = expectedFirst.remove(in.partition());
      if (expected != null && in.offset() > expected + 1) {
        expectedFirst.put(in.partition(), expected); // fails again, should the task restart as is
        throw gap(in.partition(), expected, in.offset());
      }
    }
  }

  /** After a batch: seeks the buffer asked for, pauses and resumes, and a call soon. */
  void afterBatch(
      Map<TopicPartitionKey, Long> rewinds,
      Set<TopicPartitionKey> backlogged,
      boolean waiting,
      long recheckMillis) {
    rewinds.forEach(consumer::seek);
    FlowControl.Pauses d = flow.after(backlogged, waiting);
    if (!d.pause().isEmpty()) {
      consumer.pause(d.pause());
    }
    resume(d.resume());
    if (d.recheckSoon()) {
      consumer.callAgainWithin(recheckMillis);
    }
  }

  /**
   * The target may have lost its last (asynchronous) commits and their progress: everything held in
   * memory is dropped and every assigned partition is read again from the progress the target
   * records (or, where it records none, from {@code firstTaken}, the first record taken since the
   * partition was assigned).
   */
  void readAgain(TargetProgressLost lost, Map<TopicPartitionKey, Long> firstTaken) {
    LOG.warn("Sink {}: {}", sinkName, lost.getMessage());
    List<TopicPartitionKey> partitions = List.copyOf(consumer.assignment());
    Map<TopicPartitionKey, Long> recorded = target.claim(partitions);
    flow.revoked(partitions);
    forget.accept(partitions);
    for (TopicPartitionKey k : partitions) {
      Long next = recorded.getOrDefault(k, firstTaken.get(k));
      if (next != null) {
        seek(k, next, "reads {} again from offset {}");
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
  void fenced(ApplyException e) {
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
    forget.accept(partitions);
    partitions.forEach(expectedFirst::remove);
    if (!partitions.isEmpty()) {
      consumer.pause(partitions);
      fencePaused.addAll(partitions);
    }
    consumer.callAgainWithin(FENCED_RECHECK_MILLIS);
  }

  private ApplyException gap(TopicPartitionKey tp, long expected, long offset) {
    return new ApplyException(
        ApplyException.Reason.PROGRESS_GAP,
        null,
        tp + "@" + offset,
        "sink "
            + sinkName
            + " resumes "
            + tp
            + " at offset "
            + expected
            + " (its progress in the target), but the first record Kafka delivered is at offset "
            + offset
            + ": records "
            + expected
            + ".."
            + (offset - 1)
            + " are no longer in the topic (retention or deleted records removed them before this"
            + " sink applied them, or the topic was re-created), so the target would miss them."
            + " Nothing after the gap is applied. To accept the loss (the target is re-seeded, or"
            + " the topic re-created), delete this partition's progress row: DELETE FROM"
            + " trellara_sink.progress WHERE sink_name = '"
            + sinkName
            + "' AND topic = '"
            + tp.topic()
            + "' AND kafka_partition = "
            + tp.partition());
  }

  private void seek(TopicPartitionKey tp, long offset, String logFormat) {
    consumer.seek(tp, offset);
    expectedFirst.put(tp, offset);
    LOG.info("Sink {} " + logFormat, sinkName, tp, offset);
  }

  private void resume(List<TopicPartitionKey> partitions) {
    if (!partitions.isEmpty()) {
      consumer.resume(partitions);
    }
  }
}
