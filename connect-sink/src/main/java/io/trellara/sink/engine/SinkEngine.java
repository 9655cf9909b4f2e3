package io.trellara.sink.engine;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a sink task does, behind Connect: where each assigned partition resumes (the progress the target records),
 * records in order through the {@link ApplyPipeline}, flow control, and which positions Kafka may have (durable,
 * and with asynchronous target commits flushed). It asks the consumer for seeks, pauses and a call soon through
 * {@link Consumer}, which the task implements with its {@code SinkTaskContext}; so it runs in unit tests against
 * an in-memory target and consumer.
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
    /** With asynchronous target commits: which applied positions the target has flushed (Kafka may have those). */
    private final FlushedPositions flushed = new FlushedPositions();

    public SinkEngine(String sinkName, Target target, ApplyPipeline pipeline, Consumer consumer) {
        this.sinkName = Objects.requireNonNull(sinkName, "sinkName");
        this.target = Objects.requireNonNull(target, "target");
        this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
        this.consumer = Objects.requireNonNull(consumer, "consumer");
    }

    /** Progress lives in the target: every assigned partition resumes at the position recorded there. */
    public void open(Collection<TopicPartitionKey> partitions) {
        Map<TopicPartitionKey, Long> positions = target.recordedPositions();
        for (TopicPartitionKey tp : partitions) {
            Long next = positions.get(tp);
            if (next != null) {
                consumer.seek(tp, next);
                LOG.info("Sink {} resumes {} at offset {} (its progress recorded in the target)", sinkName, tp, next);
            } else {
                LOG.info("Sink {} has no progress recorded for {}: it starts where the consumer's committed offset"
                        + " or auto.offset.reset says", sinkName, tp);
            }
        }
        pipeline.open(partitions);
        flushed.clear();
        resume(flow.assigned(partitions)); // nothing is queued for them any more
    }

    /** Revoked partitions: what was queued for them is read again by their next owner from the target's progress. */
    public void close(Collection<TopicPartitionKey> partitions) {
        flow.revoked(partitions);
        pipeline.close(partitions);
        flushed.clear();
    }

    /**
     * The next records, in order per partition (none: look at waiting barriers again). Throws what stops apply
     * ({@link ApplyPipeline#accept}); what precedes its cause is applied first.
     */
    public void put(List<ApplyPipeline.Input> inputs) {
        try {
            if (inputs.isEmpty()) {
                pipeline.poll();
            } else {
                pipeline.accept(inputs);
            }
        } catch (TargetProgressLost e) {
            readAgainFromTarget(e);
            return; // what this batch held is delivered again
        }
        pipeline.takeRewinds().forEach(consumer::seek);
        FlowControl.Decision d = flow.after(pipeline);
        if (!d.pause().isEmpty()) {
            consumer.pause(d.pause());
        }
        resume(d.resume());
        if (d.recheckSoon()) {
            consumer.callAgainWithin(pipeline.recheckWithinMillis());
        }
    }

    /**
     * What Kafka offsets may be committed up to, per partition: durable in the target (applied, or staged) and,
     * with asynchronous target commits, flushed. A partition holding an unapplied envelope or barrier commits no
     * further than its first record; none when the target's flush position cannot be read now.
     */
    public Map<TopicPartitionKey, Long> committable() {
        try {
            return target.flushedPositions(pipeline.durablePositions(), flushed);
        } catch (TargetProgressLost e) {
            readAgainFromTarget(e);
        } catch (ApplyException e) {
            LOG.warn("Sink {} commits no Kafka offsets this time: the target's WAL flush position cannot be read: {}",
                    sinkName, e.getMessage());
        }
        return Map.of();
    }

    /**
     * The target may have lost its last (asynchronous) commits and their progress: everything held in memory is
     * dropped and every assigned partition is read again from the progress the target records (or, where it
     * records none, from the first record taken since the partition was assigned).
     */
    private void readAgainFromTarget(TargetProgressLost lost) {
        LOG.warn("Sink {}: {}", sinkName, lost.getMessage());
        Map<TopicPartitionKey, Long> recorded = target.recordedPositions();
        Map<TopicPartitionKey, Long> firstTaken = pipeline.firstOffsets();
        List<TopicPartitionKey> partitions = List.copyOf(consumer.assignment());
        flow.revoked(partitions);
        pipeline.close(partitions);
        pipeline.open(partitions);
        flushed.clear();
        for (TopicPartitionKey k : partitions) {
            Long next = recorded.getOrDefault(k, firstTaken.get(k));
            if (next != null) {
                consumer.seek(k, next);
                LOG.info("Sink {} reads {} again from offset {}", sinkName, k, next);
            }
        }
        resume(flow.assigned(partitions));
    }

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
