package io.trellara.source.connect;

import io.trellara.connect.common.PluginVersion;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.Snapshots;
import io.trellara.source.connect.metrics.SourceTaskMetrics;
import io.trellara.source.engine.AckTracker;
import io.trellara.source.engine.CaptureEngine;
import io.trellara.source.engine.Outbound;
import io.trellara.source.engine.PublishedTables;
import io.trellara.source.engine.ServerIdentity;
import io.trellara.source.engine.SourcePreflight;
import io.trellara.source.engine.SourceProblem;
import io.trellara.source.engine.SourceSettings;
import io.trellara.source.engine.SourceSetup;
import io.trellara.source.engine.StrictPipeline;
import io.trellara.source.snapshot.ExportedSnapshot;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thin adapter: starts the capture engine where Kafka's offsets (or the slot) say, turns the
 * engine's records (envelopes; or chunks, manifests and commit markers) into Kafka records keyed by
 * the transaction boundary key, and acknowledges a transaction's WAL to PostgreSQL only once Kafka
 * has acknowledged every record of it and of every transaction before it.
 */
public class TrellaraSourceTask extends SourceTask {
  private static final Logger LOG = LoggerFactory.getLogger(TrellaraSourceTask.class);
  static final String OFFSET_COMMIT_LSN = "commit_lsn";
  static final String OFFSET_END_LSN = "end_lsn";
  static final String OFFSET_TRANSACTION_ID = "transaction_id";

  /**
   * The server the offset was written against (see {@link ServerIdentity}): system identifier, as
   * text.
   */
  static final String OFFSET_SYSTEM_ID = "system_id";

  static final String OFFSET_TIMELINE = "timeline";

  /** Added to each task's config by the connector; names the task's JMX bean. */
  static final String TASK_ID = "trellara.task.id";

  static final String HEADER_COUNTS = "trellara.counts";
  static final String HEADER_BOUNDARY = "trellara.boundary_mode";

  private final AckTracker acks = new AckTracker();

  /**
   * Set once Connect reports a record as skipped; from then on nothing is acknowledged and poll()
   * fails.
   */
  private final AtomicReference<String> lost = new AtomicReference<>();

  /** Where wholly acknowledged WAL goes: the engine (a test may watch it instead). */
  LongConsumer acknowledgeWal = lsn -> this.engine.acknowledge(lsn);

  private CaptureEngine engine;
  private SourceTaskMetrics metrics;
  private Map<String, String> sourcePartition;
  private String strictTopic;
  private String partitionedTopic;
  private Map<String, Object> lastOffset;
  private ServerIdentity server;
  private boolean dropSlotOnStop;

  @Override
  public String version() {
    return PluginVersion.VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    TrellaraSourceConfig config = new TrellaraSourceConfig(props);
    // the task's config is what the connector's taskConfigs() returned: the whole connector config,
    // so
    // errors.tolerance and transforms are visible (and refused) here as well
    TrellaraSourceConnector.refuseConfigErrors(config);
    TrellaraSourceConnector.ensureTopics(config);
    SourceSettings settings = SourceSettingsMapper.settings(config);
    List<SourceProblem> problems = SourcePreflight.check(settings);
    if (!problems.isEmpty()) {
      throw new ConnectException(
          "The source cannot start: "
              + problems.stream()
                  .map(p -> p.property() + ": " + p.message())
                  .reduce((a, b) -> a + " | " + b)
                  .orElse(""));
    }
    dropSlotOnStop = config.getBoolean(TrellaraSourceConfig.SLOT_DROP_ON_STOP);
    strictTopic = config.strictTopic();
    partitionedTopic = config.partitionedTopic();
    sourcePartition = Map.of("source_id", settings.sourceId(), "slot", settings.slotName());
    lastOffset = context.offsetStorageReader().offset(sourcePartition);
    Map<String, Object> storedOffset =
        lastOffset; // a new history's offset still says a snapshot was taken
    try {
      server = ServerIdentity.of(settings.endpoint());
    } catch (SQLException e) {
      throw new ConnectException(
          "Cannot identify the server (IDENTIFY_SYSTEM over a replication connection"
              + " to "
              + settings.endpoint()
              + "): "
              + e.getMessage()
              + " (SQLSTATE "
              + e.getSQLState()
              + ")",
          e);
    }
    ResumeDecision resume =
        ResumeDecision.decide(
            lastOffset,
            server,
            config.getBoolean(TrellaraSourceConfig.OFFSETS_ACCEPT_NEW_HISTORY),
            props.getOrDefault("name", settings.slotName()));
    switch (resume.verdict()) {
      case REFUSE -> {
        LOG.error(resume.message());
        throw new ConnectException(resume.message());
      }
      case NEW_HISTORY_ACCEPTED -> {
        LOG.warn(resume.message());
        // the old offset's LSN means nothing here: records before this server's first transaction
        // must not carry it (nor its identity) forward
        lastOffset = null;
      }
      case NEW_TIMELINE -> LOG.warn(resume.message());
      default -> LOG.info(resume.message());
    }
    SnapshotDecision snapshot;
    try {
      snapshot =
          SnapshotDecision.decide(
              config.snapshotMode(),
              storedOffset,
              SourceSetup.slotStatus(settings),
              settings.slotName());
      LOG.info(snapshot.message());
      if (snapshot.dropSlot()) {
        SourceSetup.dropSlot(settings);
      }
    } catch (SQLException e) {
      throw new ConnectException(
          "Cannot inspect or drop slot "
              + settings.slotName()
              + ": "
              + e.getMessage()
              + " (SQLSTATE "
              + e.getSQLState()
              + ")",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("Interrupted while dropping slot " + settings.slotName(), e);
    }
    long startLsn = snapshot.plan().read() ? 0 : resume.startLsn();
    try {
      // a snapshot creates its slot itself; initial_only, its snapshot taken, needs none
      boolean createSlot = snapshot.plan().stream() && !snapshot.plan().read();
      if (SourceSetup.ensure(settings, createSlot) && startLsn != 0) {
        // the server starts a new slot where WAL is now, whatever the offset asks: the gap is not
        // captured
        LOG.warn(
            "Slot {} did not exist and was created now, although the offsets say the source had"
                + " captured up to {}: transactions committed after that and before now are not captured"
                + " (the slot was dropped, e.g. by {}=true or an administrator, or the server is another"
                + " one). Re-synchronise the target if they matter.",
            settings.slotName(),
            io.trellara.protocol.Lsn.format(startLsn),
            TrellaraSourceConfig.SLOT_DROP_ON_STOP);
      }
    } catch (SQLException e) {
      throw new ConnectException(
          "Cannot create the publication, slot or DDL trigger: "
              + e.getMessage()
              + " (SQLSTATE "
              + e.getSQLState()
              + ")",
          e);
    }
    try {
      settings = settings.withCapturedTables(PublishedTables.load(settings));
    } catch (SQLException e) {
      throw new ConnectException(
          "Cannot read the tables of publication "
              + settings.publicationName()
              + ": "
              + e.getMessage()
              + " (SQLSTATE "
              + e.getSQLState()
              + ")",
          e);
    }
    LOG.info(
        "Source task captures publication {} ({}); DDL capture {}",
        settings.publicationName(),
        settings.capturedTables(),
        settings.ddlCapture() ? "on" : "off (trellara.ddl messages are ignored)");
    ExportedSnapshot exported = null;
    if (snapshot.plan().read()) {
      // created here, not on the capture thread: once the task reports itself started, whatever
      // commits is
      // after the consistent point and streamed (waits, like any slot creation, for running
      // transactions)
      try {
        LOG.info(
            "Creating slot {}{} with an exported snapshot",
            settings.slotName(),
            snapshot.plan().temporarySlot() ? " (temporary: snapshot.mode=initial_only)" : "");
        exported =
            ExportedSnapshot.create(
                settings.endpoint(), settings.slotName(), snapshot.plan().temporarySlot());
      } catch (SQLException e) {
        throw new ConnectException(
            "Cannot create slot "
                + settings.slotName()
                + " with an exported snapshot: "
                + e.getMessage()
                + " (SQLSTATE "
                + e.getSQLState()
                + ")",
            e);
      }
    }
    engine =
        new CaptureEngine(
            settings, startLsn, StrictPipeline.factory(settings), snapshot.plan(), exported);
    engine.start();
    metrics =
        new SourceTaskMetrics(
                props.getOrDefault("name", settings.slotName()),
                props.getOrDefault(TASK_ID, "0"),
                engine)
            .start();
    LOG.info(
        "Source task of slot {} started at LSN {} ({} mode, {})",
        settings.slotName(),
        startLsn == 0 ? "of the slot" : io.trellara.protocol.Lsn.format(startLsn),
        settings.boundary().wireMode(),
        server);
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    String skipped = lost.get();
    if (skipped != null) {
      throw new ConnectException(skipped);
    }
    List<Outbound> out = engine.poll(500);
    if (out.isEmpty()) {
      return null;
    }
    List<SourceRecord> records = new ArrayList<>(out.size());
    for (Outbound o : out) {
      records.add(record(o));
      acks.sent(o.sequence(), o.endLsn());
      if (o.closesTransaction()) {
        metrics.published(o.commitTimestampMs());
      }
    }
    return records;
  }

  /** A record that remembers which transaction it belongs to, for acknowledgement. */
  static final class TransactionRecord extends SourceRecord {
    final long sequence;
    final long commitTimestampMs;

    TransactionRecord(
        Map<String, ?> partition,
        Map<String, ?> offset,
        String topic,
        Integer kafkaPartition,
        String key,
        Object value,
        long timestamp,
        ConnectHeaders headers,
        long sequence) {
      super(
          partition,
          offset,
          topic,
          kafkaPartition,
          Schema.STRING_SCHEMA,
          key,
          null,
          value,
          timestamp,
          headers);
      this.sequence = sequence;
      this.commitTimestampMs = timestamp;
    }
  }

  /**
   * Envelopes, manifests and markers go to the strict topic's one partition, chunks to the strict
   * topic (strict chunked) or to their lane of the partitioned topic. Only the closing record
   * (envelope or commit marker) moves the source offset; the records before it repeat the previous
   * transaction's offset, so a restart never resumes past a transaction Kafka does not wholly hold.
   */
  private SourceRecord record(Outbound o) {
    String key = o.key().display();
    Map<String, ?> recordOffset;
    if (o.closesTransaction()) {
      lastOffset = offset(o.key().commitLsn(), o.endLsn(), o.key().transactionId(), server);
      recordOffset = lastOffset;
    } else {
      // a snapshot's records before its marker: a restart that sees this takes the snapshot again
      recordOffset =
          Snapshots.isSnapshot(o.key().transactionId())
              ? SnapshotDecision.RUNNING_OFFSET
              : lastOffset;
    }
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString(MessageKind.HEADER, o.kind().wireName());
    headers.addString(HEADER_COUNTS, o.counts().render());
    headers.addString(HEADER_BOUNDARY, o.boundaryMode());
    // envelopes: the protobuf message, encoded once by TrellaraConverter; the others were encoded
    // by the
    // barrier planner (their checksums are listed in the manifest) and the converter verifies them
    String topic =
        o.destination() == Outbound.Destination.PARTITIONED ? partitionedTopic : strictTopic;
    return new TransactionRecord(
        sourcePartition,
        recordOffset,
        topic,
        o.partition(),
        key,
        o.value(),
        o.commitTimestampMs(),
        headers,
        o.sequence());
  }

  /**
   * A source offset: where the transaction ended, and the server (WAL history) that LSN belongs to.
   */
  static Map<String, Object> offset(
      String commitLsn, long endLsn, String transactionId, ServerIdentity server) {
    return Map.of(
        OFFSET_COMMIT_LSN,
        commitLsn,
        OFFSET_END_LSN,
        endLsn,
        OFFSET_TRANSACTION_ID,
        transactionId,
        OFFSET_SYSTEM_ID,
        server.systemId(),
        OFFSET_TIMELINE,
        server.timeline());
  }

  /**
   * Kafka holds the record. Null metadata means Kafka does not: Connect skipped it (a failed send
   * tolerated by errors.tolerance, or a transform dropped it). Such a record is never counted, so
   * its transaction and every later one stay unacknowledged to PostgreSQL, and the next poll()
   * stops the task.
   */
  @Override
  public void commitRecord(SourceRecord record, RecordMetadata metadata) {
    if (!(record instanceof TransactionRecord r)) {
      return;
    }
    if (metadata == null) {
      String message =
          "Kafka did not receive a record of transaction "
              + r.key()
              + " (topic "
              + r.topic()
              + (r.kafkaPartition() == null ? "" : ", partition " + r.kafkaPartition())
              + "): Kafka Connect"
              + " reported it as skipped, which happens when a failed send is tolerated (errors.tolerance) or"
              + " a transform drops it. The task stops without acknowledging this transaction or any later"
              + " one to PostgreSQL, so the replication slot still holds them. Remove errors.tolerance and"
              + " transforms from the source, fix the failed send named in the worker log (e.g."
              + " RecordTooLargeException: the topic's max.message.bytes or producer.override.max.request.size),"
              + " then restart the task.";
      if (lost.compareAndSet(null, message)) {
        LOG.error(message);
      }
      return;
    }
    if (lost.get() != null) {
      return; // nothing past a skipped record is acknowledged
    }
    long released = acks.acknowledged(r.sequence);
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
        dropSlot(engine.settings());
      }
    }
  }

  private static void dropSlot(SourceSettings settings) {
    try {
      String dropped = SourceSetup.drop(settings);
      LOG.warn(
          "{}=true: dropped {}; transactions committed until a task creates the slot again are not"
              + " captured",
          TrellaraSourceConfig.SLOT_DROP_ON_STOP,
          dropped);
    } catch (SQLException e) {
      LOG.error(
          "{}=true, but slot {} (or publication {}) could not be dropped: {} (SQLSTATE {}); drop it by"
              + " hand if the connector is gone, or it keeps retaining WAL",
          TrellaraSourceConfig.SLOT_DROP_ON_STOP,
          settings.slotName(),
          settings.publicationName(),
          e.getMessage(),
          e.getSQLState());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.error(
          "Interrupted while dropping slot {}; drop it by hand if the connector is gone",
          settings.slotName());
    }
  }
}
