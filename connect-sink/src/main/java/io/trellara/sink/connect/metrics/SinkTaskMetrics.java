package io.trellara.sink.connect.metrics;

import io.trellara.connect.common.RateWindow;
import io.trellara.connect.common.TaskMBeans;
import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.postgres.ApplyMetrics;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.management.JMException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink task's metrics: the applier's counters, commit-to-applied latency measured when the
 * applier returns (its target commits are done by then), the barrier gauges of the task's pipeline,
 * and a ticker thread feeding the rate window once a second.
 */
public final class SinkTaskMetrics
    implements SinkTaskMetricsMXBean, AutoCloseable, SinkEngine.Listener {
  public static final String TYPE = "sink-task";
  static final int RATE_WINDOW_SECONDS = 60;
  static final int LATENCY_WINDOW = 1024;
  private static final Logger LOG = LoggerFactory.getLogger(SinkTaskMetrics.class);

  private final ApplyMetrics apply;
  private volatile SinkEngine engine;
  private final ObjectName name;
  private final RateWindow appliedRate = new RateWindow(RATE_WINDOW_SECONDS);
  private final LatencyWindow latency = new LatencyWindow(LATENCY_WINDOW);
  private volatile String lastCommitLsn;
  private volatile long lastCommitTimestampMs = -1;
  private ScheduledExecutorService ticker;

  public SinkTaskMetrics(String connector, String task, ApplyMetrics apply) {
    this.apply = apply;
    this.name = TaskMBeans.name(TYPE, connector, task);
  }

  public ObjectName objectName() {
    return name;
  }

  private volatile java.util.List<io.trellara.connect.common.liveness.Stage> stages =
      java.util.List.of();

  /** The watchdog stages whose progress this bean reports. */
  public SinkTaskMetrics stages(java.util.List<io.trellara.connect.common.liveness.Stage> s) {
    this.stages = java.util.List.copyOf(s);
    return this;
  }

  private io.trellara.connect.common.liveness.Stage stage(String name) {
    for (io.trellara.connect.common.liveness.Stage s : stages) {
      if (s.name().equals(name)) {
        return s;
      }
    }
    return null;
  }

  private long seconds(String stage) {
    io.trellara.connect.common.liveness.Stage s = stage(stage);
    return s == null ? 0 : s.secondsSinceProgress();
  }

  private String waitingFor(String stage) {
    io.trellara.connect.common.liveness.Stage s = stage(stage);
    return s == null || s.waitingFor() == null ? "" : s.waitingFor();
  }

  @Override
  public long getTargetStatementSecondsSinceProgress() {
    return seconds("target statement");
  }

  @Override
  public String getTargetStatementWaitingFor() {
    return waitingFor("target statement");
  }

  @Override
  public long getStreamedTransactionSecondsSinceProgress() {
    return seconds("streamed transaction");
  }

  @Override
  public String getStreamedTransactionWaitingFor() {
    return waitingFor("streamed transaction");
  }

  private volatile long stallBoundSeconds;

  /** The stall bound the stages run against. */
  public SinkTaskMetrics stallBound(java.time.Duration bound) {
    this.stallBoundSeconds = bound.toSeconds();
    return this;
  }

  @Override
  public long getStallBoundSeconds() {
    return stallBoundSeconds;
  }

  /** The engine whose barrier gauges this bean reports. */
  public SinkTaskMetrics engine(SinkEngine p) {
    this.engine = p;
    return this;
  }

  /**
   * Registers the MXBean and starts the ticker; a JMX failure is logged, never fatal to the task.
   */
  public SinkTaskMetrics start() {
    ticker = TaskMBeans.ticker(name);
    ticker.scheduleAtFixedRate(
        () -> appliedRate.tick(System.nanoTime(), apply.transactionsApplied()),
        0,
        1,
        TimeUnit.SECONDS);
    try {
      TaskMBeans.register(name, this);
    } catch (JMException | RuntimeException e) {
      LOG.warn("Cannot register the JMX metrics bean {}: {}", name, e.toString());
    }
    return this;
  }

  /**
   * After the applier returned: the latency of every transaction of {@code batch} it applied
   * (duplicates excluded). {@code result.applied()} is an in-order subsequence of the batch's keys.
   */
  @Override
  public void envelopesApplied(List<SourceTransaction> batch, ApplyResult result) {
    applied(batch, result);
  }

  @Override
  public void streamRetried() {
    apply.countRetry();
  }

  /** After a barrier's target commit: its latency (duplicates excluded). */
  @Override
  public void barrierApplied(TransactionManifest m, BarrierResult result) {
    if (result.duplicate()) {
      return;
    }
    latency.record(Math.max(0, System.currentTimeMillis() - m.getSourceCommitTimestampMs()));
    lastCommitLsn = m.getSourceCommitLsn();
    lastCommitTimestampMs = m.getSourceCommitTimestampMs();
  }

  public void applied(List<SourceTransaction> batch, ApplyResult result) {
    List<TransactionBoundaryKey> applied = result.applied();
    if (applied.isEmpty()) {
      return;
    }
    long now = System.currentTimeMillis();
    int next = 0;
    for (int i = 0; i < batch.size() && next < applied.size(); i++) {
      SourceTransaction t = batch.get(i);
      if (t.key().equals(applied.get(next))) {
        next++;
        TransactionEnvelope e = t.envelope();
        latency.record(Math.max(0, now - e.getCommitTimestampMs()));
        lastCommitLsn = e.getCommitLsn();
        lastCommitTimestampMs = e.getCommitTimestampMs();
      }
    }
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
  }

  private volatile String authenticationKeyId = "off";

  /** The key id records are now signed with ("none" when on and nothing was signed yet). */
  public void authenticatedWith(String keyId) {
    authenticationKeyId = keyId;
  }

  @Override
  public String getAuthenticationKeyId() {
    return authenticationKeyId;
  }

  @Override
  public String getBoundaryMode() {
    SinkEngine p = engine;
    return p == null ? BoundaryVocabulary.STRICT : p.boundaryMode();
  }

  @Override
  public long getTransactionsApplied() {
    return apply.transactionsApplied();
  }

  @Override
  public double getTransactionsAppliedPerSecond() {
    return appliedRate.rate(System.nanoTime(), apply.transactionsApplied());
  }

  @Override
  public long getDuplicatesSkipped() {
    return apply.duplicatesSkipped();
  }

  @Override
  public long getRowsInserted() {
    return apply.rowsInserted();
  }

  @Override
  public long getRowsUpdated() {
    return apply.rowsUpdated();
  }

  @Override
  public long getRowsDeleted() {
    return apply.rowsDeleted();
  }

  @Override
  public long getTruncates() {
    return apply.truncates();
  }

  @Override
  public long getDdlReplayed() {
    return apply.ddlReplayed();
  }

  @Override
  public long getDdlSkipped() {
    return apply.ddlSkipped();
  }

  @Override
  public long getMissingRowsIgnored() {
    return apply.missingRowsIgnored();
  }

  @Override
  public long getTargetCommits() {
    return apply.targetCommits();
  }

  @Override
  public long getRetries() {
    return apply.retries();
  }

  @Override
  public long getGroupsSplit() {
    return apply.groupsSplit();
  }

  @Override
  public long getTransactionsWaitingAtBarrier() {
    SinkEngine p = engine;
    return p == null ? 0 : p.transactionsWaitingAtBarrier();
  }

  @Override
  public long getBufferedLanes() {
    SinkEngine p = engine;
    return p == null ? 0 : p.waitingLanes();
  }

  @Override
  public long getBufferedBytes() {
    SinkEngine p = engine;
    return p == null ? 0 : p.queuedBytes();
  }

  @Override
  public long getBarriersApplied() {
    return apply.barriersApplied();
  }

  @Override
  public long getChunksStaged() {
    return apply.chunksStaged();
  }

  @Override
  public long getStagedBytes() {
    return apply.stagedBytes();
  }

  @Override
  public long getStagingVacuums() {
    return apply.stagingVacuums();
  }

  @Override
  public long getTransactionsSetAside() {
    return apply.transactionsSetAside();
  }

  @Override
  public long getBarrierLooks() {
    return apply.barrierLooks();
  }

  @Override
  public long getStagingWakeups() {
    return apply.stagingWakeups();
  }

  @Override
  public long getCommitToAppliedLatencyMs() {
    return latency.last();
  }

  @Override
  public long getCommitToAppliedLatencyP50Ms() {
    return latency.percentile(50);
  }

  @Override
  public long getCommitToAppliedLatencyP99Ms() {
    return latency.percentile(99);
  }

  @Override
  public int getCommitToAppliedLatencySamples() {
    return latency.size();
  }

  @Override
  public String getLastAppliedCommitLsn() {
    return lastCommitLsn;
  }

  @Override
  public long getLastAppliedCommitTimestampMs() {
    return lastCommitTimestampMs;
  }
}
