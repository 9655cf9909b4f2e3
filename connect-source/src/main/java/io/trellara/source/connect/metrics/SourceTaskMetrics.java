package io.trellara.source.connect.metrics;

import io.trellara.connect.common.RateWindow;
import io.trellara.connect.common.TaskMBeans;
import io.trellara.connect.common.liveness.Stage;
import io.trellara.protocol.Lsn;
import io.trellara.source.pg.SlotLagSampler;
import io.trellara.source.replication.CaptureEngine;
import io.trellara.source.replication.CaptureMetrics;
import io.trellara.source.replication.ack.PublishLiveness;
import io.trellara.source.snapshot.OnlineSnapshotProgress;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.management.JMException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source task's metrics: the engine's counters, what the task published and Kafka acknowledged,
 * and the slot's lag sampled every {@value #LAG_SAMPLE_SECONDS} s on one small daemon thread that
 * also feeds the rate windows once a second. The task's hot path only sets a few volatile fields
 * and bumps LongAdders.
 */
public final class SourceTaskMetrics extends OnlineSnapshotAttributes
    implements SourceTaskMetricsMXBean, AutoCloseable {
  public static final String TYPE = "source-task";
  static final int RATE_WINDOW_SECONDS = 60;
  static final int LAG_SAMPLE_SECONDS = 5;
  private static final Logger LOG = LoggerFactory.getLogger(SourceTaskMetrics.class);

  private final CaptureEngine engine;
  private final Stage producer;
  private final CaptureMetrics capture;
  private final SlotLagSampler lag;
  private final ObjectName name;
  private final RateWindow transactionRate = new RateWindow(RATE_WINDOW_SECONDS);
  private final RateWindow eventRate = new RateWindow(RATE_WINDOW_SECONDS);
  private final PublishCounts counts = new PublishCounts();
  private ScheduledExecutorService ticker;
  private volatile String authenticationKeyId = "off";

  public SourceTaskMetrics(
      String connector, String task, CaptureEngine engine, PublishLiveness publishing) {
    this.engine = engine;
    this.producer = publishing.stage();
    this.capture = engine.metrics();
    this.lag =
        new SlotLagSampler(
            engine.settings().endpoint(),
            engine.settings().slotName(),
            engine.settings().walGuard().slotLagWarnBytes());
    this.name = TaskMBeans.name(TYPE, connector, task);
  }

  public ObjectName objectName() {
    return name;
  }

  /**
   * Registers the MXBean and starts the ticker; a JMX failure is logged, never fatal to the task.
   */
  public SourceTaskMetrics start() {
    ticker = TaskMBeans.ticker(name);
    ticker.scheduleAtFixedRate(this::tick, 0, 1, TimeUnit.SECONDS);
    ticker.scheduleWithFixedDelay(lag::sample, 0, LAG_SAMPLE_SECONDS, TimeUnit.SECONDS);
    try {
      TaskMBeans.register(name, this);
    } catch (JMException | RuntimeException e) {
      LOG.warn("Cannot register the JMX metrics bean {}: {}", name, e.toString());
    }
    return this;
  }

  private void tick() {
    long now = System.nanoTime();
    transactionRate.tick(now, capture.transactions());
    eventRate.tick(now, capture.events());
  }

  /** A transaction was handed to Connect by poll(). */
  public void published(long commitTimestampMs) {
    counts.published(commitTimestampMs);
  }

  /** Kafka acknowledged a transaction's record. */
  public void acknowledged(long commitTimestampMs) {
    counts.acknowledged(commitTimestampMs);
  }

  @Override
  public void close() {
    try {
      TaskMBeans.unregister(name, this);
    } catch (JMException | RuntimeException e) {
      LOG.warn("Cannot unregister the JMX metrics bean {}: {}", name, e.toString());
    }
    if (ticker != null) {
      ticker.shutdownNow();
    }
    lag.close();
  }

  @Override
  public long getTransactionsCaptured() {
    return capture.transactions();
  }

  @Override
  public long getEventsCaptured() {
    return capture.events();
  }

  @Override
  public double getTransactionsCapturedPerSecond() {
    return transactionRate.rate(System.nanoTime(), capture.transactions());
  }

  @Override
  public double getEventsCapturedPerSecond() {
    return eventRate.rate(System.nanoTime(), capture.events());
  }

  @Override
  public long getTransactionsPublished() {
    return counts.published();
  }

  @Override
  public long getTransactionsAcknowledged() {
    return counts.acknowledged();
  }

  @Override
  public int getRecordsQueued() {
    return engine.queuedRecords();
  }

  @Override
  public long getBytesQueued() {
    return engine.queuedBytes();
  }

  @Override
  public long getPgOutputMessages() {
    return capture.messages();
  }

  @Override
  public long getReplicationLagBytes() {
    return slot().lagBytes();
  }

  @Override
  public long getReplicationLagSeconds() {
    return slot().lagSeconds();
  }

  @Override
  public String getCurrentWalLsn() {
    return slot().currentWalLsn();
  }

  @Override
  public String getSlotConfirmedFlushLsn() {
    return slot().confirmedFlushLsn();
  }

  @Override
  public String getSlotWalStatus() {
    return slot().walStatus();
  }

  @Override
  public long getSlotSafeWalBytes() {
    return slot().safeWalBytes();
  }

  @Override
  public long getReplicationLagSampledAtMs() {
    return slot().sampledAtMs();
  }

  @Override
  public String getReplicationLagError() {
    return lag.lastError();
  }

  @Override
  public long getPublishedLagMs() {
    return PublishCounts.since(counts.lastPublishedCommitMs());
  }

  @Override
  public long getAcknowledgedLagMs() {
    return PublishCounts.since(counts.lastAcknowledgedCommitMs());
  }

  /** The last slot sample, or {@link SlotLagSampler.Sample#UNKNOWN} before the first. */
  private SlotLagSampler.Sample slot() {
    SlotLagSampler.Sample s = lag.last();
    return s == null ? SlotLagSampler.Sample.UNKNOWN : s;
  }

  @Override
  public long getLastPublishedCommitTimestampMs() {
    return counts.lastPublishedCommitMs();
  }

  @Override
  public long getLastAcknowledgedCommitTimestampMs() {
    return counts.lastAcknowledgedCommitMs();
  }

  @Override
  public long getInFlightTransactions() {
    return capture.inFlightTransactions();
  }

  @Override
  public long getMemoryBytes() {
    return capture.memoryBytes();
  }

  @Override
  public long getSpilledTransactions() {
    return capture.spilledTransactions();
  }

  @Override
  public long getSpilledBytes() {
    return capture.spilledBytes();
  }

  @Override
  public long getDdlEventsDropped() {
    return capture.ddlEventsDropped();
  }

  /** The signing key id, or empty when records are not signed. */
  /** Reports {@code progress}: the task's online snapshots ({@link OnlineSnapshotMXBean}). */
  public SourceTaskMetrics watching(OnlineSnapshotProgress progress) {
    watch(progress);
    return this;
  }

  public SourceTaskMetrics signingWith(String keyId) {
    authenticationKeyId = keyId.isEmpty() ? "off" : keyId;
    return this;
  }

  @Override
  public String getAuthenticationKeyId() {
    return authenticationKeyId;
  }

  @Override
  public long getDdlMessagesRefused() {
    return capture.ddlMessagesRefused();
  }

  @Override
  public String getBoundaryMode() {
    return engine.settings().boundary().wireMode();
  }

  @Override
  public String getLastAcknowledgedLsn() {
    return Lsn.format(engine.acknowledgedLsn());
  }

  @Override
  public long getLastAcknowledgedLsnValue() {
    return engine.acknowledgedLsn();
  }

  @Override
  public String getReportedFlushLsn() {
    return Lsn.format(capture.confirmedFlushLsn());
  }

  @Override
  public long getReconnects() {
    return capture.reconnects();
  }

  @Override
  public String getLastReplicationError() {
    return capture.lastReplicationError();
  }

  @Override
  public long getDisconnectedMillis() {
    return capture.disconnectedMillis(System.currentTimeMillis());
  }

  @Override
  public long getHeartbeatsSent() {
    return capture.heartbeatsSent();
  }

  @Override
  public long getHeartbeatsReceived() {
    return capture.heartbeatsReceived();
  }

  @Override
  public String getLastHeartbeatLsn() {
    long lsn = capture.lastHeartbeatSentLsn();
    return lsn == 0 ? null : Lsn.format(lsn);
  }

  @Override
  public String getLastHeartbeatError() {
    return capture.lastHeartbeatError();
  }

  @Override
  public String getSnapshotState() {
    return engine.snapshotProgress().state().name();
  }

  @Override
  public long getSnapshotTablesTotal() {
    return engine.snapshotProgress().tablesTotal();
  }

  @Override
  public long getSnapshotTablesDone() {
    return engine.snapshotProgress().tablesDone();
  }

  @Override
  public long getSnapshotRows() {
    return engine.snapshotProgress().rows();
  }

  @Override
  public long getSnapshotBytes() {
    return engine.snapshotProgress().bytes();
  }

  @Override
  public double getSnapshotRowsPerSecond() {
    return engine.snapshotProgress().rowsPerSecond(System.currentTimeMillis());
  }

  @Override
  public long getSnapshotEtaSeconds() {
    return engine.snapshotProgress().etaSeconds(System.currentTimeMillis());
  }

  @Override
  public String getSnapshotCurrentTable() {
    return engine.snapshotProgress().currentTable();
  }

  @Override
  public long getStallBoundSeconds() {
    return engine.watchdog().bound().toSeconds();
  }

  @Override
  public long getReplicationStreamSecondsSinceProgress() {
    return seconds(engine.stage(CaptureEngine.STREAM_STAGE));
  }

  @Override
  public String getReplicationStreamWaitingFor() {
    return waitingFor(engine.stage(CaptureEngine.STREAM_STAGE));
  }

  @Override
  public long getSnapshotReadSecondsSinceProgress() {
    return seconds(engine.stage(CaptureEngine.SNAPSHOT_STAGE));
  }

  @Override
  public String getSnapshotReadWaitingFor() {
    return waitingFor(engine.stage(CaptureEngine.SNAPSHOT_STAGE));
  }

  @Override
  public long getProducerSecondsSinceProgress() {
    return seconds(producer);
  }

  @Override
  public String getProducerWaitingFor() {
    return waitingFor(producer);
  }

  private static long seconds(Stage s) {
    return s == null ? 0 : s.secondsSinceProgress();
  }

  private static String waitingFor(Stage s) {
    return s == null ? null : s.waitingFor();
  }
}
