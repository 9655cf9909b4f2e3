package io.trellara.plugin.crash;

import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresDatabase;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs one step against the pipeline and says what happened ("killed at 41 % of the snapshot's
 * rows", "landed while the sink copied 3,000 rows of the large transaction"). Every kill is {@code
 * kill -9} of the worker process, which a supervisor then starts again (a new JVM, same group and
 * REST port) after the step's {@code down} seconds.
 */
final class Faults {
  private static final long SNAPSHOT_WAIT_NANOS = 180_000_000_000L;

  private final Pipeline pipeline;
  private final KafkaBroker broker;
  private final PostgresDatabase source;
  private final PostgresDatabase target;
  private final Workload workload;
  private final Findings findings;
  private long snapshotStartedAt;

  Faults(
      Pipeline pipeline,
      KafkaBroker broker,
      PostgresDatabase source,
      PostgresDatabase target,
      Workload workload,
      Findings findings) {
    this.pipeline = pipeline;
    this.broker = broker;
    this.source = source;
    this.target = target;
    this.workload = workload;
    this.findings = findings;
  }

  /** The connectors were just created: the initial snapshot starts now. */
  void snapshotStarted() {
    snapshotStartedAt = System.nanoTime();
  }

  /** Runs the step; returns a line saying where it landed. */
  String run(Step step) throws SQLException {
    return switch (step.kind()) {
      case KILL_SNAPSHOT -> killDuringSnapshot(step);
      case KILL_PUBLISHED -> killWhenPublished(step);
      case KILL_LARGE_TX -> killDuringLargeTransaction(step);
      case KILL_STREAMING -> {
        park(step.number("after", 1));
        yield killAndRestart(step, "streaming");
      }
      case KILL_SWAP -> {
        pipeline.resetSourceOffsets();
        snapshotStartedAt = System.nanoTime();
        awaitSnapshotRunning();
        yield killDuringSnapshot(step);
      }
      case RESTART -> {
        pipeline.rest().restart(pipeline.connectorOf(step.text("which", "sink")), true, false);
        yield "restarted through REST";
      }
      case RECREATE -> {
        pipeline.recreate(step.text("which", "sink"));
        yield "deleted and created again";
      }
      case SOURCE_PG_RESTART -> {
        source.server().stop();
        park(step.number("down", 0));
        source.server().start();
        yield "source PostgreSQL restarted";
      }
      case TARGET_PG_RESTART -> {
        target.server().stop();
        park(step.number("down", 0));
        target.server().start();
        yield "target PostgreSQL restarted";
      }
      case TARGET_OUTAGE -> {
        pipeline.toTarget.refuse(true);
        pipeline.toTarget.cut();
        park(step.number("s", 5));
        pipeline.toTarget.refuse(false);
        yield "target unreachable for " + step.text("s", "5") + " s";
      }
      case BROKER_RESTART -> {
        broker.stop();
        park(step.number("down", 0));
        broker.start();
        yield "broker restarted";
      }
      case REBALANCE -> rebalance(step);
      case DDL -> "added " + workload.addColumn(step.text("table", "transfers"));
      case LARGE_TX -> {
        workload.largeTransaction((int) step.number("rows", 5000));
        yield "large transaction " + workload.lastBatch() + " committed";
      }
    };
  }

  private String killDuringSnapshot(Step step) {
    long total = sourceRows();
    long deadline = System.nanoTime() + SNAPSHOT_WAIT_NANOS;
    String state = null;
    long rows = 0;
    boolean seenRunning = false;
    JmxProbe jmx = pipeline.jmxOf(pipeline.sourceName);
    while (System.nanoTime() < deadline) {
      Map<String, Object> read = jmx.read("source-task", "SnapshotState", "SnapshotRows");
      state = text(read.get("SnapshotState"));
      rows = number(read.get("SnapshotRows"));
      if (step.has("t")) {
        if (System.nanoTime() - snapshotStartedAt >= step.number("t", 1) * 1e9) {
          break;
        }
      } else if (rows >= step.number("at", 0.5) * total) {
        break;
      }
      seenRunning |= "RUNNING".equals(state);
      if ("COMPLETED".equals(state)
          || "FAILED".equals(state)
          || ("NOT_NEEDED".equals(state) && (seenRunning || elapsed() > 30))) {
        findings.note("the snapshot was " + state + " before the kill point of " + step);
        break;
      }
      LockSupport.parkNanos(2_000_000L);
    }
    String at =
        String.format(
            Locale.ROOT,
            "%.1f s into the snapshot, %,d of ~%,d rows read (%.0f %%), snapshot %s",
            (System.nanoTime() - snapshotStartedAt) / 1e9,
            rows,
            total,
            100.0 * rows / Math.max(1, total),
            state);
    String locks = sinkExclusiveLocks();
    return killAndRestart(step, at + (locks.isEmpty() ? "" : "; the sink held " + locks));
  }

  /**
   * Kills as soon as the snapshot is published ({@code when=published}: the source reports it
   * COMPLETED) or applied ({@code when=applied}, the default: the sink committed it), before
   * Connect's next offset flush.
   */
  private String killWhenPublished(Step step) {
    boolean applied = step.text("when", "applied").equals("applied");
    long deadline = System.nanoTime() + SNAPSHOT_WAIT_NANOS;
    String state = null;
    boolean seenRunning = false;
    JmxProbe jmx = pipeline.jmxOf(pipeline.sourceName);
    while (System.nanoTime() < deadline) {
      state = text(jmx.attribute("source-task", "SnapshotState"));
      seenRunning |= "RUNNING".equals(state);
      if ("FAILED".equals(state)
          || ("NOT_NEEDED".equals(state) && (seenRunning || elapsed() > 30))) {
        break;
      }
      if ("COMPLETED".equals(state) && (!applied || snapshotsApplied(target) > 0)) {
        break;
      }
      LockSupport.parkNanos(2_000_000L);
    }
    return killAndRestart(
        step,
        String.format(
            Locale.ROOT,
            "snapshot %s%s %.1f s after the start",
            state,
            snapshotsApplied(target) > 0 ? " and applied" : ", not yet applied",
            elapsed()));
  }

  /** Snapshots the sink has committed on the target (0 before the sink made its tables). */
  static long snapshotsApplied(PostgresDatabase target) {
    try {
      return Db.number(
          target,
          "SELECT CASE WHEN to_regclass('trellara_sink.applied_transactions') IS NULL"
              + " THEN 0 ELSE (SELECT count(*) FROM trellara_sink.applied_transactions"
              + " WHERE transaction_id = 'snapshot') END");
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private void awaitSnapshotRunning() {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (System.nanoTime() < deadline) {
      String state =
          text(pipeline.jmxOf(pipeline.sourceName).attribute("source-task", "SnapshotState"));
      if ("RUNNING".equals(state) || "COMPLETED".equals(state)) {
        return;
      }
      LockSupport.parkNanos(20_000_000L);
    }
    findings.note("the new snapshot was not seen RUNNING within 60 s of the offset reset");
  }

  private String killDuringLargeTransaction(Step step) throws SQLException {
    int rows = (int) step.number("rows", 5000);
    double at = step.number("at", 0.5);
    if (step.text("phase", "applying").equals("open")) {
      try (Workload.LargeTransaction tx = workload.openLargeTransaction(rows, 4)) {
        park(0.2 + 2 * at);
        String landed = killAndRestart(step, "source transaction " + tx.batch() + " open");
        tx.commit();
        return landed + ", then committed";
      }
    }
    Workload.LargeTransaction tx = workload.openLargeTransaction(rows, 1);
    tx.commit();
    tx.close();
    long committed = System.nanoTime();
    String landed = "before the sink began";
    while (true) {
      double elapsed = (System.nanoTime() - committed) / 1e9;
      long copied =
          Db.number(
              target,
              "SELECT coalesce(max(tuples_processed), -1) FROM pg_stat_progress_copy"
                  + " WHERE relid = to_regclass('public.bulk')");
      if (copied >= 0 && elapsed >= at) {
        landed = "the sink copying bulk rows (" + copied + " in the current COPY)";
        break;
      }
      if (Db.number(target, "SELECT count(*) FROM bulk_batches WHERE batch = " + tx.batch()) > 0) {
        landed = "after the sink applied it";
        break;
      }
      if (elapsed > 3 * Math.max(at, 0.3)) {
        break;
      }
      LockSupport.parkNanos(20_000_000L);
    }
    return killAndRestart(step, "large transaction " + tx.batch() + " committed, " + landed);
  }

  private String rebalance(Step step) {
    ConnectWorkerProcess b = pipeline.b;
    b.start();
    String port = ":" + b.restUrl().getPort();
    long deadline = System.nanoTime() + 30_000_000_000L;
    String moved = "no task moved to the second worker within 30 s";
    while (System.nanoTime() < deadline) {
      StringBuilder on = new StringBuilder();
      for (String name : new String[] {pipeline.sourceName, pipeline.sinkName}) {
        ConnectorStatus s = pipeline.statusOrNull(name);
        if (s != null) {
          s.tasks().stream()
              .filter(t -> t.workerId() != null && t.workerId().endsWith(port))
              .forEach(
                  t ->
                      on.append(name.endsWith("source") ? "source" : "sink")
                          .append(" task ")
                          .append(t.id())
                          .append(' '));
        }
      }
      if (on.length() > 0) {
        moved = on.toString().trim() + " moved to the second worker";
        break;
      }
      LockSupport.parkNanos(200_000_000L);
    }
    park(step.number("hold", 3));
    if (step.text("leave", "stop").equals("kill")) {
      pipeline.jmxB.disconnect();
      b.kill();
      return moved + "; second worker killed";
    }
    b.stop();
    return moved + "; second worker stopped";
  }

  private double elapsed() {
    return (System.nanoTime() - snapshotStartedAt) / 1e9;
  }

  private String killAndRestart(Step step, String at) {
    String offset;
    try {
      offset = pipeline.rest().offsets(pipeline.sourceName).path("offsets").toString();
    } catch (RuntimeException e) {
      offset = "(unavailable)";
    }
    findings.note(
        "source offsets in Connect just before the kill of " + findings.step() + ": " + offset);
    pipeline.killAll();
    park(step.number("down", 0));
    pipeline.a.start();
    return "killed " + at;
  }

  /** Relations the sink holds ACCESS EXCLUSIVE on right now (a replacing snapshot). */
  private String sinkExclusiveLocks() {
    try {
      String locks =
          Db.text(
              target,
              "SELECT string_agg(DISTINCT l.relation::regclass::text, ', ') FROM pg_locks l"
                  + " JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'trellara-sink'"
                  + " AND l.mode = 'AccessExclusiveLock' AND l.granted AND l.relation IS NOT NULL");
      return locks == null ? "" : "ACCESS EXCLUSIVE on " + locks;
    } catch (RuntimeException e) {
      return "";
    }
  }

  private long sourceRows() {
    StringBuilder sql = new StringBuilder("SELECT 0");
    for (Workload.Table t : workload.tables()) {
      sql.append(" + (SELECT count(*) FROM ").append(t.name()).append(')');
    }
    return Db.number(source, sql.toString());
  }

  static void park(double seconds) {
    long until = System.nanoTime() + (long) (seconds * 1e9);
    while (System.nanoTime() < until) {
      LockSupport.parkNanos(Math.min(until - System.nanoTime(), 100_000_000L));
    }
  }

  private static String text(Object o) {
    return o == null ? null : o.toString();
  }

  private static long number(Object o) {
    return o instanceof Number n ? n.longValue() : 0;
  }
}
