package io.trellara.source.connect;

import io.trellara.connect.common.PluginVersion;
import io.trellara.protocol.EventCounts;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.source.connect.metrics.SourceTaskMetrics;
import io.trellara.source.engine.CaptureEngine;
import io.trellara.source.engine.CommittedEnvelope;
import io.trellara.source.engine.SourcePreflight;
import io.trellara.source.engine.SourceProblem;
import io.trellara.source.engine.SourceSettings;
import io.trellara.source.engine.SourceSetup;
import io.trellara.source.engine.StrictPipeline;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * Thin adapter: starts the capture engine where Kafka's offsets (or the slot) say, turns committed envelopes
 * into records for the strict topic (partition 0, key = transaction boundary key), and acknowledges a
 * transaction's WAL to PostgreSQL only once Kafka has acknowledged its record.
 */
public class TrellaraSourceTask extends SourceTask {
    static final String OFFSET_COMMIT_LSN = "commit_lsn";
    static final String OFFSET_END_LSN = "end_lsn";
    static final String OFFSET_TRANSACTION_ID = "transaction_id";
    /** Added to each task's config by the connector; names the task's JMX bean. */
    static final String TASK_ID = "trellara.task.id";

    private CaptureEngine engine;
    private SourceTaskMetrics metrics;
    private Map<String, String> sourcePartition;
    private String topic;

    @Override
    public String version() {
        return PluginVersion.VERSION;
    }

    @Override
    public void start(Map<String, String> props) {
        TrellaraSourceConfig config = new TrellaraSourceConfig(props);
        List<String[]> configErrors = config.crossFieldErrors();
        if (!configErrors.isEmpty()) {
            throw new ConnectException(configErrors.get(0)[0] + ": " + configErrors.get(0)[1]);
        }
        SourceSettings settings = SourceSettingsMapper.settings(config);
        List<SourceProblem> problems = SourcePreflight.check(settings);
        if (!problems.isEmpty()) {
            throw new ConnectException("The source cannot start: " + problems.stream()
                    .map(p -> p.property() + ": " + p.message()).reduce((a, b) -> a + " | " + b).orElse(""));
        }
        try {
            SourceSetup.ensure(settings);
        } catch (SQLException e) {
            throw new ConnectException("Cannot create the publication, slot or DDL trigger: " + e.getMessage()
                    + " (SQLSTATE " + e.getSQLState() + ")", e);
        }
        topic = config.strictTopic();
        sourcePartition = Map.of("source_id", settings.sourceId(), "slot", settings.slotName());
        engine = new CaptureEngine(settings, resumeLsn(), StrictPipeline.factory(settings));
        engine.start();
        metrics = new SourceTaskMetrics(props.getOrDefault("name", settings.slotName()),
                props.getOrDefault(TASK_ID, "0"), engine).start();
    }

    /** Where Kafka says the last published transaction ended; 0 lets the slot decide. */
    private long resumeLsn() {
        Map<String, Object> offset = context.offsetStorageReader().offset(sourcePartition);
        if (offset == null || !(offset.get(OFFSET_END_LSN) instanceof Number n)) {
            return 0;
        }
        return n.longValue();
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        List<CommittedEnvelope> committed = engine.poll(500);
        if (committed.isEmpty()) {
            return null;
        }
        List<SourceRecord> records = new ArrayList<>(committed.size());
        for (CommittedEnvelope c : committed) {
            records.add(record(c));
            metrics.published(c.envelope().getCommitTimestampMs());
        }
        return records;
    }

    private SourceRecord record(CommittedEnvelope c) {
        TransactionEnvelope e = c.envelope();
        String key = new TransactionBoundaryKey(e.getSourceId(), e.getDatabaseId(), e.getCommitLsn(),
                e.getTransactionId()).display();
        Map<String, Object> offset = Map.of(OFFSET_COMMIT_LSN, e.getCommitLsn(), OFFSET_END_LSN, c.endLsn(),
                OFFSET_TRANSACTION_ID, e.getTransactionId());
        ConnectHeaders headers = new ConnectHeaders();
        headers.addString(MessageKind.HEADER, MessageKind.ENVELOPE.wireName());
        headers.addString("trellara.counts", new EventCounts(e.getChangesCount(), e.getDdlEventsCount()).render());
        // the value is the protobuf message itself: TrellaraConverter validates, checksums and encodes it once
        return new SourceRecord(sourcePartition, offset, topic, 0, Schema.STRING_SCHEMA, key, null, e,
                e.getCommitTimestampMs(), headers);
    }

    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        if (metadata != null && record.sourceOffset().get(OFFSET_END_LSN) instanceof Number end) {
            engine.acknowledge(end.longValue());
            metrics.acknowledged(record.timestamp() == null ? -1 : record.timestamp());
        }
    }

    @Override
    public void stop() {
        if (metrics != null) {
            metrics.close();
        }
        if (engine != null) {
            engine.close();
        }
    }
}
