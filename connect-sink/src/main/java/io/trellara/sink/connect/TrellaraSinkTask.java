package io.trellara.sink.connect;

import io.trellara.connect.common.PluginVersion;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.engine.ApplyException;
import io.trellara.sink.engine.ApplyOptions;
import io.trellara.sink.engine.ApplyPipeline;
import io.trellara.sink.target.CheckpointStore;
import io.trellara.sink.engine.FlowControl;
import io.trellara.sink.engine.FlushedPositions;
import io.trellara.sink.engine.TargetProgressLost;
import io.trellara.sink.target.JdbcConnectionFactory;
import io.trellara.sink.engine.TopicPartitionKey;
import io.trellara.sink.target.TransactionApplier;
import io.trellara.sink.connect.metrics.SinkTaskMetrics;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * Thin adapter: verified messages in (through TrellaraConverter, or verified here for ByteArrayConverter), handed
 * in order to the engine's {@link ApplyPipeline} (envelopes applied whole; chunks staged in the target; barriers
 * applied once complete), progress read back from the target on every assignment so Kafka's committed offsets
 * are only a hint, and committed to Kafka only up to what is durable in the target.
 */
public class TrellaraSinkTask extends SinkTask {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TrellaraSinkTask.class);
    /** Added to each task's config by the connector; names the task's JMX bean. */
    static final String TASK_ID = "trellara.task.id";

    private TransactionApplier applier;
    private ApplyPipeline pipeline;
    private SinkTaskMetrics metrics;
    private CheckpointStore checkpoints;
    private String sinkName;
    private final FlowControl flow = new FlowControl();
    /** With asynchronous target commits: which applied positions the target has flushed (Kafka may have those). */
    private final FlushedPositions flushed = new FlushedPositions();

    @Override
    public String version() {
        return PluginVersion.VERSION;
    }

    @Override
    public void start(Map<String, String> props) {
        List<SinkConfigRules.Problem> problems = SinkConfigRules.check(props);
        if (!problems.isEmpty()) {
            throw new ConnectException(SinkConfigRules.describe(problems));
        }
        TrellaraSinkConfig config = new TrellaraSinkConfig(props);
        sinkName = props.getOrDefault("name", "trellara-sink");
        JdbcConnectionFactory connections = new JdbcConnectionFactory(config.getString(TrellaraSinkConfig.URL),
                config.getString(TrellaraSinkConfig.USER),
                TrellaraSinkConfig.secret(config.getPassword(TrellaraSinkConfig.PASSWORD)), config.driverProperties());
        checkpoints = new CheckpointStore(connections);
        try {
            checkpoints.createSchema();
            checkpoints.requireCompatibleVersions();
        } catch (IllegalStateException e) {
            throw new ConnectException(e.getMessage(), e);
        } catch (SQLException e) {
            throw new ConnectException("Cannot create the sink's checkpoint schema trellara_sink on the target: "
                    + e.getMessage() + " (SQLSTATE " + e.getSQLState() + "). Grant CREATE on the database or create"
                    + " it as an administrator.", e);
        }
        applier = new TransactionApplier(connections, config.relationMapper(), config.applyOptions(sinkName));
        metrics = new SinkTaskMetrics(sinkName, props.getOrDefault(TASK_ID, "0"), applier.metrics());
        pipeline = new ApplyPipeline(applier, metrics)
                .maxBarrierWait(Duration.ofMillis(config.getLong(TrellaraSinkConfig.BARRIER_MAX_WAIT_MS)));
        metrics.pipeline(pipeline).start();
        ApplyOptions o = applier.options();
        LOG.info("Sink task {} started: allowlist {}, ddl.apply={}, schema evolution {}, {} transaction(s) per target"
                        + " commit, synchronous_commit {}, retries for up to {} s", sinkName,
                config.getList(TrellaraSinkConfig.ALLOWLIST), o.ddlPolicy(), o.schemaEvolution(),
                o.groupMaxTransactions(), o.synchronousCommitOff() ? "off" : "on", o.maxRetryDuration().toSeconds());
    }

    /** Progress lives in the target: seek every assigned partition to the checkpoint recorded there. */
    @Override
    public void open(Collection<TopicPartition> partitions) {
        Map<TopicPartitionKey, Long> positions;
        try {
            positions = checkpoints.positions(sinkName);
        } catch (SQLException e) {
            throw new ConnectException("Cannot read the sink's checkpoints from the target: " + e.getMessage(), e);
        }
        List<TopicPartitionKey> keys = new ArrayList<>(partitions.size());
        for (TopicPartition tp : partitions) {
            TopicPartitionKey key = key(tp);
            keys.add(key);
            Long next = positions.get(key);
            if (next != null) {
                context.offset(tp, next);
                LOG.info("Sink {} resumes {} at offset {} (its progress recorded in the target)", sinkName, tp, next);
            } else {
                LOG.info("Sink {} has no progress recorded for {}: it starts where the consumer's committed offset"
                        + " or auto.offset.reset says", sinkName, tp);
            }
        }
        pipeline.open(keys);
        flushed.clear();
        resume(flow.assigned(keys)); // nothing is queued for them any more
    }

    /** Revoked partitions: what was queued for them is re-read by their next owner from the target's progress. */
    @Override
    public void close(Collection<TopicPartition> partitions) {
        if (pipeline == null) {
            return;
        }
        List<TopicPartitionKey> keys = partitions.stream().map(TrellaraSinkTask::key).toList();
        flow.revoked(keys);
        pipeline.close(keys);
        flushed.clear();
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        List<ApplyPipeline.Input> inputs = new ArrayList<>(records.size());
        DataException rejected = null;
        for (SinkRecord r : records) {
            try {
                inputs.add(RecordInputs.input(r));
            } catch (DataException e) {
                rejected = e; // what came before the bad record is whole and verified: take it, then stop
                break;
            }
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
        } catch (ApplyPipeline.InputRejectedException e) {
            throw new DataException(e.getMessage(), e.getCause());
        } catch (ApplyException | ProtocolViolationException e) {
            throw new ConnectException(e.getMessage(), e);
        }
        if (rejected != null) {
            throw rejected;
        }
        pipeline.takeRewinds().forEach((k, offset) -> context.offset(partition(k), offset));
        flowControl();
    }

    /** Pauses partitions whose records queue behind a waiting barrier; asks to be called again while one waits. */
    private void flowControl() {
        FlowControl.Decision d = flow.after(pipeline);
        if (!d.pause().isEmpty()) {
            context.pause(d.pause().stream().map(TrellaraSinkTask::partition).toArray(TopicPartition[]::new));
        }
        resume(d.resume());
        if (d.recheckSoon()) {
            context.timeout(ApplyPipeline.DEFAULT_RECHECK_MILLIS); // put() again soon, records or not
        }
    }

    /**
     * The target may have lost its last (asynchronous) commits and their progress: everything held in memory is
     * dropped and every assigned partition is read again from the progress the target records (or, where it
     * records none, from the first record taken since the partition was assigned).
     */
    private void readAgainFromTarget(TargetProgressLost lost) {
        LOG.warn("Sink {}: {}", sinkName, lost.getMessage());
        Map<TopicPartitionKey, Long> recorded;
        try {
            recorded = applier.recordedPositions();
        } catch (ApplyException e) {
            throw new ConnectException("Cannot read the sink's progress from the target again: " + e.getMessage(), e);
        }
        Map<TopicPartitionKey, Long> firstTaken = pipeline.firstOffsets();
        List<TopicPartitionKey> keys = context.assignment().stream().map(TrellaraSinkTask::key).toList();
        flow.revoked(keys);
        pipeline.close(keys);
        pipeline.open(keys);
        flushed.clear();
        for (TopicPartitionKey k : keys) {
            Long next = recorded.getOrDefault(k, firstTaken.get(k));
            if (next != null) {
                context.offset(partition(k), next);
                LOG.info("Sink {} reads {} again from offset {}", sinkName, partition(k), next);
            }
        }
        resume(flow.assigned(keys));
    }

    private void resume(List<TopicPartitionKey> keys) {
        if (!keys.isEmpty()) {
            context.resume(keys.stream().map(TrellaraSinkTask::partition).toArray(TopicPartition[]::new));
        }
    }

    /**
     * Kafka offsets are committed only up to what is durable in the target: applied, or staged, and (with
     * asynchronous target commits) flushed. A partition holding an unapplied envelope or barrier commits no
     * further than its first record. (The target's progress, not Kafka's offset, says where a task resumes.)
     */
    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        Map<TopicPartitionKey, Long> durable = pipeline == null ? Map.of() : flushedPositions();
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : currentOffsets.entrySet()) {
            Long position = durable.get(key(e.getKey()));
            if (position != null) {
                out.put(e.getKey(), new OffsetAndMetadata(Math.min(position, e.getValue().offset())));
            }
        }
        return out;
    }

    private Map<TopicPartitionKey, Long> flushedPositions() {
        try {
            return applier.flushedPositions(pipeline.durablePositions(), flushed);
        } catch (TargetProgressLost e) {
            readAgainFromTarget(e);
        } catch (ApplyException e) {
            LOG.warn("Sink {} commits no Kafka offsets this time: the target's WAL flush position cannot be read: {}",
                    sinkName, e.getMessage());
        }
        return Map.of();
    }

    private static TopicPartitionKey key(TopicPartition tp) {
        return new TopicPartitionKey(tp.topic(), tp.partition());
    }

    private static TopicPartition partition(TopicPartitionKey k) {
        return new TopicPartition(k.topic(), k.partition());
    }

    @Override
    public void stop() {
        if (pipeline != null) {
            pipeline.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        if (applier != null) {
            applier.close();
        }
    }
}
