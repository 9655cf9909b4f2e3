package io.trellara.source.connect;

import io.trellara.connect.common.PluginVersion;
import io.trellara.connect.common.liveness.StalledException;
import io.trellara.source.connect.TransactionRecords.TransactionRecord;
import io.trellara.source.connect.metrics.SourceTaskMetrics;
import io.trellara.source.replication.CaptureEngine;
import io.trellara.source.replication.Outbound;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.replication.ack.AckTracker;
import io.trellara.source.replication.ack.PublishLiveness;
import io.trellara.source.startup.SourceStartException;
import io.trellara.source.startup.SourceStartup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thin adapter: starts the source ({@link SourceStartup}), turns the engine's records into Kafka
 * records ({@link TransactionRecords}, in {@link KafkaTransactionBoundaries}), and acknowledges a
 * transaction's WAL to PostgreSQL only once Kafka has acknowledged every record of it and of every
 * transaction before it. A stage waiting past capture.stall.timeout.ms fails poll(): STALLED.
 */
public class TrellaraSourceTask extends SourceTask {
  private static final Logger LOG = LoggerFactory.getLogger(TrellaraSourceTask.class);

  /** Added to each task's config by the connector; names the task's JMX bean. */
  static final String TASK_ID = "trellara.task.id";

  private final AckTracker acks = new AckTracker();

  /** Set once a record is skipped or misplaced; then nothing is acknowledged, poll() fails. */
  private final AtomicReference<String> lost = new AtomicReference<>();

  /** Where wholly acknowledged WAL goes: the engine (a test may watch it instead). */
  LongConsumer acknowledgeWal = lsn -> this.engine.acknowledge(lsn);

  private CaptureEngine engine;
  private TransactionRecords records;
  private PublishLiveness publishing;
  private SourceTaskMetrics metrics;
  private KafkaTransactionBoundaries kafkaTransactions;
  private boolean dropSlotOnStop;
  private AcknowledgementCheck ackCheck = AcknowledgementCheck.NONE;

  @Override
  public String version() {
    return PluginVersion.VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    // the whole connector config (taskConfigs()): errors.tolerance and transforms refused here too
    TrellaraSourceConfig config = new TrellaraSourceConfig(props);
    TrellaraSourceConnector.refuseConfigErrors(config);
    TrellaraSourceConnector.ensureTopics(config);
    SourceSettings settings = SourceSettingsMapper.settings(config);
    dropSlotOnStop = config.getBoolean(TrellaraSourceConfig.SLOT_DROP_ON_STOP);
    ackCheck = AcknowledgementCheck.of(config);
    String connector = props.getOrDefault("name", settings.slotName());
    SourceStartup.Started started;
    try {
      started =
          SourceStartup.start(
              settings,
              SourceSettingsMapper.startupOptions(config, connector),
              partition -> context.offsetStorageReader().offset(partition));
    } catch (SourceStartException e) {
      throw new ConnectException(e.getMessage(), e.getCause());
    }
    engine = started.engine();
    records = TransactionRecords.of(started, config);
    kafkaTransactions = KafkaTransactionBoundaries.of(context, connector);
    publishing = new PublishLiveness(engine.watchdog(), acks);
    metrics =
        new SourceTaskMetrics(connector, props.getOrDefault(TASK_ID, "0"), engine, publishing)
            .signingWith(records.signingKeyId())
            .watching(started.onlineSnapshots())
            .start();
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    String skipped = lost.get();
    if (skipped != null) {
      throw new ConnectException(skipped);
    }
    List<Outbound> out;
    try {
      publishing.check();
      out = engine.poll(500);
    } catch (StalledException e) {
      throw new ConnectException(e.getMessage(), e);
    }
    if (out.isEmpty()) {
      return null;
    }
    List<SourceRecord> batch = new ArrayList<>(out.size());
    for (Outbound o : out) {
      TransactionRecord r = records.record(o);
      batch.add(r);
      kafkaTransactions.returned(o, r);
      acks.sent(o.sequence(), TransactionRecords.acknowledgedLsn(o), r.key().toString(), r.topic());
      if (o.closesTransaction()) {
        metrics.published(o.commitTimestampMs());
      }
    }
    publishing.handed();
    return batch;
  }

  /**
   * Kafka holds the record. Null metadata means Kafka does not: Connect skipped it (a failed send
   * tolerated by errors.tolerance, or a transform dropped it). Such a record is never counted, so
   * its transaction and every later one stay unacknowledged to PostgreSQL, and the next poll()
   * stops the task; so does one Kafka holds elsewhere than sent ({@link AcknowledgementCheck}).
   */
  @Override
  public void commitRecord(SourceRecord record, RecordMetadata metadata) {
    if (!(record instanceof TransactionRecord r)) {
      return;
    }
    String refused = metadata == null ? SkippedRecord.message(r) : ackCheck.problem(r, metadata);
    if (refused != null && lost.compareAndSet(null, refused)) {
      LOG.error(refused);
    }
    if (lost.get() != null) {
      return; // nothing past a skipped or misplaced record is acknowledged
    }
    long released = acks.acknowledged(r.sequence);
    if (publishing != null) {
      publishing.acknowledged();
    }
    if (released != 0) {
      acknowledgeWal.accept(released);
      if (metrics != null) {
        metrics.acknowledged(r.commitTimestampMs);
      }
    }
  }

  /**
   * Closes the engine, which releases the slot (see {@link CaptureEngine#close}). With {@code
   * slot.drop.on.stop} the slot and the connector's own publication are then dropped: Kafka Connect
   * calls stop() alike when the connector is deleted and when the task is rebalanced, restarted,
   * reconfigured or the worker shuts down, so each of those loses what commits until a task creates
   * the slot again (hence off by default).
   */
  @Override
  public void stop() {
    LOG.info("Source task stopping");
    if (metrics != null) {
      metrics.close();
    }
    if (engine != null) {
      engine.close();
      if (dropSlotOnStop) {
        SourceStartup.dropSlotOnStop(engine.settings());
      }
    }
  }
}
