package io.trellara.sink.connect;

import io.trellara.connect.common.PluginVersion;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.KindDetector;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.apply.ApplyException;
import io.trellara.sink.apply.ApplyResult;
import io.trellara.sink.apply.CheckpointStore;
import io.trellara.sink.apply.JdbcConnectionFactory;
import io.trellara.sink.apply.SourceTransaction;
import io.trellara.sink.apply.TopicPartitionKey;
import io.trellara.sink.apply.TransactionApplier;
import io.trellara.sink.connect.metrics.SinkTaskMetrics;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * Thin adapter: verified messages in (through TrellaraConverter, or verified here for ByteArrayConverter),
 * whole transactions applied by the engine, progress read back from the target on every assignment so Kafka's
 * committed offsets are only a hint.
 */
public class TrellaraSinkTask extends SinkTask {
    /** Added to each task's config by the connector; names the task's JMX bean. */
    static final String TASK_ID = "trellara.task.id";

    private TransactionApplier applier;
    private SinkTaskMetrics metrics;
    private CheckpointStore checkpoints;
    private String sinkName;

    @Override
    public String version() {
        return PluginVersion.VERSION;
    }

    @Override
    public void start(Map<String, String> props) {
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
        metrics = new SinkTaskMetrics(sinkName, props.getOrDefault(TASK_ID, "0"), applier.metrics()).start();
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
        for (TopicPartition tp : partitions) {
            Long next = positions.get(new TopicPartitionKey(tp.topic(), tp.partition()));
            if (next != null) {
                context.offset(tp, next);
            }
        }
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        if (records.isEmpty()) {
            return;
        }
        List<SourceTransaction> batch = new ArrayList<>(records.size());
        for (SinkRecord r : records) {
            TransactionEnvelope envelope;
            try {
                envelope = envelope(r);
            } catch (DataException rejected) {
                apply(batch); // what came before the bad record is whole and verified: apply it, then stop
                throw rejected;
            }
            batch.add(new SourceTransaction(envelope, new TopicPartitionKey(r.topic(), r.kafkaPartition()),
                    r.kafkaOffset() + 1));
        }
        apply(batch);
    }

    private void apply(List<SourceTransaction> batch) {
        if (batch.isEmpty()) {
            return;
        }
        ApplyResult result;
        try {
            result = applier.apply(batch);
        } catch (ApplyException e) {
            throw new ConnectException(e.getMessage(), e);
        }
        metrics.applied(batch, result);
    }

    /** The verified envelope of a record; chunked and partitioned boundaries are not supported yet. */
    private static TransactionEnvelope envelope(SinkRecord r) {
        Object value = r.value();
        try {
            if (value instanceof byte[] bytes) {
                value = TrellaraCodec.decode(kind(r, bytes), bytes); // ByteArrayConverter: verify here
            }
        } catch (ProtocolViolationException e) {
            throw new DataException(where(r) + ": Trellara message rejected: " + e.getMessage(), e);
        }
        if (value instanceof TransactionEnvelope e) {
            return e;
        }
        throw new DataException(where(r) + ": expected a Trellara transaction envelope, got "
                + (value == null ? "null" : value.getClass().getName()) + ". This release applies strict"
                + " transaction order only (no chunks, manifests or commit markers); use TrellaraConverter or"
                + " ByteArrayConverter as value.converter.");
    }

    private static MessageKind kind(SinkRecord r, byte[] bytes) {
        Header h = r.headers().lastWithName(MessageKind.HEADER);
        if (h != null && h.value() != null) {
            return MessageKind.fromWireName(h.value().toString());
        }
        return KindDetector.detect(bytes).orElse(MessageKind.ENVELOPE);
    }

    private static String where(SinkRecord r) {
        return r.topic() + "-" + r.kafkaPartition() + "@" + r.kafkaOffset() + " key " + r.key();
    }

    @Override
    public void stop() {
        if (metrics != null) {
            metrics.close();
        }
        if (applier != null) {
            applier.close();
        }
    }
}
