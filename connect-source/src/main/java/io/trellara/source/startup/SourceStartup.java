package io.trellara.source.startup;

import io.trellara.protocol.LogText;
import io.trellara.protocol.Lsn;
import io.trellara.source.kafka.TopicTail;
import io.trellara.source.kafka.TopicTailReader;
import io.trellara.source.pg.PublicationReconciler;
import io.trellara.source.pg.PublishedTables;
import io.trellara.source.pg.ServerIdentity;
import io.trellara.source.pg.SourcePreflight;
import io.trellara.source.pg.SourceProblem;
import io.trellara.source.pg.SourceSetup;
import io.trellara.source.replication.CaptureEngine;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.replication.StrictPipeline;
import io.trellara.source.signal.KafkaSignalSettings;
import io.trellara.source.signal.Signal;
import io.trellara.source.signal.SignalPipeline;
import io.trellara.source.snapshot.ExportedSnapshot;
import io.trellara.source.snapshot.OnlineSnapshotProgress;
import io.trellara.source.snapshot.SnapshotMode;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A source task's start, step by step: check the source database, identify the server, decide where
 * to resume and whether to snapshot (Connect's offsets, the topic's tail, the slot), prepare the
 * slot and publication, read what the publication covers, create the snapshot's slot, and start the
 * capture engine. Free of Connect types: the task passes Connect's offset reader as a function.
 */
public final class SourceStartup {
  private static final Logger LOG = LoggerFactory.getLogger(SourceStartup.class);

  /**
   * What the start needs besides the engine's settings.
   *
   * @param connector the connector's name (messages, JMX)
   * @param tail where and how much of the source's topics to read back; null: nothing is read (no
   *     brokers of its own), Connect's offsets alone give the position
   */
  public record Options(
      SnapshotMode snapshotMode,
      boolean acceptNewHistory,
      String connector,
      TopicTailReader.Settings tail,
      Signal.TableRequest signalTable,
      KafkaSignalSettings kafkaSignals) {

    /** Without a signal table. */
    public Options(
        SnapshotMode snapshotMode,
        boolean acceptNewHistory,
        String connector,
        TopicTailReader.Settings tail) {
      this(snapshotMode, acceptNewHistory, connector, tail, null, null);
    }

    /** Without a signal topic. */
    public Options(
        SnapshotMode snapshotMode,
        boolean acceptNewHistory,
        String connector,
        TopicTailReader.Settings tail,
        Signal.TableRequest signalTable) {
      this(snapshotMode, acceptNewHistory, connector, tail, signalTable, null);
    }
  }

  /**
   * A started source.
   *
   * @param partition the source partition its records carry
   * @param decision where it resumed and why
   * @param onlineSnapshots what its signalled snapshots are doing (JMX)
   */
  public record Started(
      CaptureEngine engine,
      SourceSettings settings,
      ServerIdentity server,
      Map<String, String> partition,
      StartDecision decision,
      OnlineSnapshotProgress onlineSnapshots) {}

  private final SourceSettings settings;
  private final Options options;

  private SourceStartup(SourceSettings settings, Options options) {
    this.settings = settings;
    this.options = options;
  }

  /**
   * Starts the source; {@code offsets} is Connect's {@code OffsetStorageReader.offset}. Throws
   * {@link SourceStartException} naming what failed.
   */
  public static Started start(
      SourceSettings settings,
      Options options,
      Function<Map<String, String>, Map<String, Object>> offsets) {
    SourceStartup s = new SourceStartup(settings, options);
    s.checkSourceDatabase();
    ServerIdentity server = s.identifyServer();
    StartDecision decision = s.decide(server, offsets);
    s.prepareSlot(decision);
    boolean signalMessagesTrusted = s.reconcilePublication(decision);
    SourceSettings captured = s.withPublishedTables();
    ExportedSnapshot exported = s.exportSnapshot(decision);
    // the signal topic's snapshots are settled by Kafka's acknowledgement, which the engine keeps;
    // its pipelines (and so this supplier) are made only once the engine runs
    AtomicReference<CaptureEngine> running = new AtomicReference<>();
    SignalPipeline.KafkaSignals kafkaSignals =
        options.kafkaSignals() == null
            ? null
            : new SignalPipeline.KafkaSignals(
                options.kafkaSignals(), () -> running.get().acknowledgedLsn());
    OnlineSnapshotProgress online = new OnlineSnapshotProgress();
    CaptureEngine engine =
        new CaptureEngine(
            captured,
            decision.startLsn(),
            SignalPipeline.factory(
                captured,
                options.signalTable(),
                kafkaSignals,
                signalMessagesTrusted,
                StrictPipeline.factory(captured),
                online),
            decision.snapshot().plan(),
            exported);
    running.set(engine);
    engine.start();
    LOG.info(
        "Source task of slot {} started at LSN {} ({} mode, {})",
        settings.slotName(),
        decision.startLsn() == 0 ? "of the slot" : Lsn.format(decision.startLsn()),
        settings.boundary().wireMode(),
        server);
    return new Started(
        engine,
        captured,
        server,
        SourceOffsets.partition(settings.sourceId(), settings.slotName()),
        decision,
        online);
  }

  private void checkSourceDatabase() {
    List<SourceProblem> problems = SourcePreflight.check(settings.database());
    if (!problems.isEmpty()) {
      throw new SourceStartException(
          "The source cannot start: "
              + String.join(
                  " | ", problems.stream().map(p -> p.property() + ": " + p.message()).toList()),
          null);
    }
  }

  private ServerIdentity identifyServer() {
    try {
      return ServerIdentity.of(settings.endpoint());
    } catch (SQLException e) {
      throw failed(
          "Cannot identify the server (IDENTIFY_SYSTEM over a replication connection to "
              + settings.endpoint()
              + ")",
          e);
    }
  }

  /** Connect's offsets, the topic's tail and the slot: where to resume, and whether to snapshot. */
  private StartDecision decide(
      ServerIdentity server, Function<Map<String, String>, Map<String, Object>> offsets) {
    SourceOffsets.Lookup connect =
        SourceOffsets.lookup(settings.sourceId(), settings.slotName(), offsets);
    String changedDataset =
        DatasetGuard.refusal(
            offsets.apply(SourceOffsets.partition(settings.sourceId(), settings.slotName())),
            settings.datasetId(),
            options.connector());
    if (changedDataset != null) {
      LOG.error(changedDataset);
      throw new SourceStartException(changedDataset, null);
    }
    TopicTail tail =
        options.tail() == null
            ? TopicTail.notRead(
                "kafka.bootstrap.servers is not set: the source has no Kafka client of its own")
            : TopicTailReader.read(options.tail(), settings.sourceId(), settings.slotName());
    String slotStatus;
    try {
      slotStatus = SourceSetup.slotStatus(settings.database());
    } catch (SQLException e) {
      throw failed("Cannot inspect slot " + settings.slotName(), e);
    }
    StartDecision d =
        StartDecision.decide(
            connect,
            tail,
            slotStatus,
            options.snapshotMode(),
            server,
            options.acceptNewHistory(),
            options.connector(),
            settings.slotName());
    if (d.positionWarns()) {
      LOG.warn(d.positionMessage());
    } else {
      LOG.info(d.positionMessage());
    }
    switch (d.resume().verdict()) {
      case REFUSE -> {
        LOG.error(d.resume().message());
        throw new SourceStartException(d.resume().message(), null);
      }
      case NEW_HISTORY_ACCEPTED, NEW_TIMELINE -> LOG.warn(d.resume().message());
      default -> LOG.info(d.resume().message());
    }
    LOG.info(d.snapshot().message());
    return d;
  }

  /**
   * Drops the slot a snapshot replaces, then creates what capture needs (a snapshot's slot is
   * created with its snapshot; initial_only, its snapshot taken, needs none).
   */
  private void prepareSlot(StartDecision d) {
    try {
      if (d.snapshot().dropSlot()) {
        SourceSetup.dropSlot(settings.database());
      }
      boolean createSlot = d.snapshot().plan().stream() && !d.snapshot().plan().read();
      if (SourceSetup.ensure(settings.database(), createSlot) && d.startLsn() != 0) {
        // the server starts a new slot where WAL is now, whatever the position asks: the gap is not
        // captured
        LOG.warn(
            "Slot {} did not exist and was created now, although the source had captured up to {}:"
                + " transactions committed after that and before now are not captured (the slot was"
                + " dropped, e.g. by slot.drop.on.stop=true or an administrator, or the server is"
                + " another one). Re-synchronise the target if they matter.",
            settings.slotName(),
            Lsn.format(d.startLsn()));
      }
    } catch (SQLException e) {
      throw failed("Cannot prepare slot " + settings.slotName() + " or its publication", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SourceStartException("Interrupted while dropping slot " + settings.slotName(), e);
    }
  }

  /**
   * {@code publication.autocreate.mode=filtered}: adds to the publication the tables {@code
   * table.include.list} gained and drops those it lost ({@link PublicationReconciler}); the added
   * tables are snapshotted online, ordered with the stream, unless an initial snapshot reads them
   * anyway. Returns whether {@code trellara.signal} messages are trusted (PUBLIC may not write
   * logical messages).
   */
  private boolean reconcilePublication(StartDecision d) {
    try {
      boolean initial = d.snapshot().plan().read();
      PublicationReconciler.Plan plan =
          PublicationReconciler.reconcile(
              settings.database(), !initial, "table.include.list@" + System.currentTimeMillis());
      if (!plan.empty()) {
        LOG.info(
            "Publication {} reconciled with table.include.list: {}; {}",
            LogText.escape(settings.publicationName()),
            LogText.escape(plan.describe()),
            plan.added().isEmpty()
                ? "removed tables are no longer captured (the target keeps their rows)"
                : initial
                    ? "the initial snapshot reads the added tables"
                    : "the added tables are snapshotted online, ordered with the stream, while the"
                        + " others stream on");
      }
      return PublicationReconciler.signalMessagesTrusted(settings.endpoint());
    } catch (PublicationReconciler.UntrustedSignalException e) {
      LOG.error(e.getMessage());
      throw new SourceStartException(e.getMessage(), e);
    } catch (SQLException e) {
      throw failed(
          "Cannot reconcile publication " + settings.publicationName() + " with table.include.list",
          e);
    }
  }

  private SourceSettings withPublishedTables() {
    try {
      SourceSettings s =
          settings.withCapturedTables(
              PublishedTables.load(settings.database(), settings.capturedTables().ddlRoles()));
      LOG.info(
          "Source task captures publication {} ({}); DDL capture {}",
          LogText.escape(s.publicationName()),
          LogText.escape(String.valueOf(s.capturedTables())),
          s.ddlCapture() ? "on" : "off (trellara.ddl messages are ignored)");
      return s;
    } catch (SQLException e) {
      throw failed("Cannot read the tables of publication " + settings.publicationName(), e);
    }
  }

  /**
   * The snapshot's slot, created here and not on the capture thread: once the task reports itself
   * started, whatever commits is after the consistent point and streamed (this waits, like any slot
   * creation, for running transactions).
   */
  private ExportedSnapshot exportSnapshot(StartDecision d) {
    if (!d.snapshot().plan().read()) {
      return null;
    }
    try {
      LOG.info(
          "Creating slot {}{} with an exported snapshot",
          settings.slotName(),
          d.snapshot().plan().temporarySlot() ? " (temporary: snapshot.mode=initial_only)" : "");
      return ExportedSnapshot.create(
          settings.endpoint(), settings.slotName(), d.snapshot().plan().temporarySlot());
    } catch (SQLException e) {
      throw failed("Cannot create slot " + settings.slotName() + " with an exported snapshot", e);
    }
  }

  private static SourceStartException failed(String what, SQLException e) {
    return new SourceStartException(
        what + ": " + e.getMessage() + " (SQLSTATE " + e.getSQLState() + ")", e);
  }

  /**
   * {@code slot.drop.on.stop}: drops the slot and the connector's own publication once capture
   * stopped; what commits until a task creates the slot again is not captured (logged as a WARN).
   * Failures are logged, never thrown: the task is stopping.
   */
  public static void dropSlotOnStop(SourceSettings settings) {
    try {
      LOG.warn(
          "slot.drop.on.stop=true: dropped {}; transactions committed until a task creates the slot"
              + " again are not captured",
          SourceSetup.drop(settings.database()));
    } catch (SQLException e) {
      LOG.error(
          "slot.drop.on.stop=true, but slot {} (or publication {}) could not be dropped: {}"
              + " (SQLSTATE {}); drop it by hand if the connector is gone, or it keeps retaining WAL",
          settings.slotName(),
          settings.publicationName(),
          e.getMessage(),
          e.getSQLState());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.error("Interrupted while dropping slot {}; drop it by hand", settings.slotName());
    }
  }
}
