package io.trellara.source.connect.metrics;

import io.trellara.protocol.Lsn;
import io.trellara.source.snapshot.OnlineSnapshotProgress;
import io.trellara.source.snapshot.OnlineSnapshotProgress.Finished;
import io.trellara.source.snapshot.OnlineSnapshotProgress.Request;
import io.trellara.source.snapshot.SnapshotProgress;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The {@link OnlineSnapshotMXBean} attributes of a source task's bean, read from its {@link
 * OnlineSnapshotProgress}; a class of its own so the task's bean stays one screen of its own
 * figures.
 */
abstract class OnlineSnapshotAttributes implements OnlineSnapshotMXBean {
  private volatile OnlineSnapshotProgress online = new OnlineSnapshotProgress();

  /** The online snapshots these attributes report (an idle model until the task's is set). */
  void watch(OnlineSnapshotProgress progress) {
    this.online = progress;
  }

  @Override
  public String getOnlineSnapshotState() {
    return online.state().name();
  }

  @Override
  public String getOnlineSnapshotSignalId() {
    Request r = online.request();
    return r == null ? null : r.signalId();
  }

  @Override
  public String getOnlineSnapshotTables() {
    Request r = online.request();
    return r == null ? null : r.tablesText();
  }

  @Override
  public String getOnlineSnapshotConsistentPoint() {
    Request r = online.request();
    return r == null ? null : Lsn.format(r.consistentPoint());
  }

  @Override
  public long getOnlineSnapshotSinceSignalMs() {
    return online.sinceSignalMs();
  }

  @Override
  public long getOnlineSnapshotTablesQueued() {
    return online.tablesQueued();
  }

  @Override
  public long getOnlineSnapshotTablesDone() {
    return reading(SnapshotProgress::tablesDone, 0);
  }

  @Override
  public long getOnlineSnapshotTablesTotal() {
    Request r = online.request();
    return r == null ? 0 : r.tables().size();
  }

  @Override
  public String getOnlineSnapshotCurrentTable() {
    SnapshotProgress p = online.reading();
    return p == null || p.currentTable().isEmpty() ? null : p.currentTable();
  }

  @Override
  public long getOnlineSnapshotRows() {
    return reading(SnapshotProgress::rows, 0);
  }

  @Override
  public long getOnlineSnapshotBytes() {
    return reading(SnapshotProgress::bytes, 0);
  }

  @Override
  public long getOnlineSnapshotCurrentTableRows() {
    return reading(SnapshotProgress::tableRows, 0);
  }

  @Override
  public long getOnlineSnapshotChunksDone() {
    return reading(SnapshotProgress::chunksDone, 0);
  }

  @Override
  public long getOnlineSnapshotChunksTotal() {
    return reading(SnapshotProgress::chunksTotal, -1);
  }

  @Override
  public double getOnlineSnapshotRowsPerSecond() {
    return online.rowsPerSecond();
  }

  @Override
  public long getOnlineSnapshotEtaSeconds() {
    return online.etaSeconds();
  }

  @Override
  public long getOnlineSnapshotsCompleted() {
    return online.completedCount();
  }

  @Override
  public long getOnlineSnapshotsFailed() {
    return online.failedCount();
  }

  @Override
  public long getOnlineSnapshotsCancelled() {
    return online.cancelledCount();
  }

  @Override
  public long getOnlineSnapshotSignalsRefused() {
    return online.refusedCount();
  }

  @Override
  public String getOnlineSnapshotLastOutcome() {
    return last(f -> f.outcome().name());
  }

  @Override
  public String getOnlineSnapshotLastSignalId() {
    return last(f -> f.request().signalId());
  }

  @Override
  public String getOnlineSnapshotLastTables() {
    return last(f -> f.request().tablesText());
  }

  @Override
  public long getOnlineSnapshotLastRows() {
    return lastFigure(Finished::rows);
  }

  @Override
  public long getOnlineSnapshotLastBytes() {
    return lastFigure(Finished::bytes);
  }

  @Override
  public long getOnlineSnapshotLastElapsedMs() {
    return lastFigure(Finished::elapsedMs);
  }

  @Override
  public long getOnlineSnapshotLastEndedAtMs() {
    return lastFigure(Finished::endedAtMs);
  }

  @Override
  public String getOnlineSnapshotLastSummary() {
    return last(Finished::summary);
  }

  @Override
  public String getOnlineSnapshotLastRefusal() {
    OnlineSnapshotProgress.Refusal r = online.lastRefusal();
    return r == null ? null : r.summary();
  }

  private long reading(ToLongFunction<SnapshotProgress> figure, long none) {
    SnapshotProgress p = online.reading();
    return p == null ? none : figure.applyAsLong(p);
  }

  private String last(Function<Finished, String> text) {
    Finished f = online.last();
    return f == null ? null : text.apply(f);
  }

  private long lastFigure(ToLongFunction<Finished> figure) {
    Finished f = online.last();
    return f == null ? -1 : figure.applyAsLong(f);
  }
}
