package io.trellara.cli;

import io.trellara.cli.ConnectRest.ConnectorState;
import io.trellara.cli.ConnectRest.TaskState;
import io.trellara.cli.StatusQueries.Applied;
import io.trellara.cli.StatusQueries.Progress;
import io.trellara.cli.StatusQueries.SlotLag;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code trellara status}: connector and task states from a Connect worker's REST API, the source
 * slot's lag (with {@code --source-jdbc}), barrier waits, and the target's checkpoint tables (with
 * {@code --target-jdbc}), and the online snapshots ({@link OnlineSnapshotStatus}). Exit status 0
 * when every connector shown and all its tasks are RUNNING and every query answered, 1 otherwise.
 */
@Command(
    name = "status",
    description =
        "Show the connectors' state and tasks (Connect REST API), the source"
            + " slot's lag and the target's checkpoints (JDBC). Exit 1 when a connector or task is not RUNNING.")
final class StatusCommand implements Callable<Integer> {
  static final String DEFAULT_SLOT = "trellara";

  @Option(
      names = "--connect-url",
      required = true,
      paramLabel = "URL",
      description = "a Connect worker's REST URL, e.g. http://localhost:8083")
  String connectUrl;

  @Option(
      names = "--connector",
      paramLabel = "NAME",
      description = "only this connector (repeatable; default: every connector of the cluster)")
  List<String> connectors = new ArrayList<>();

  @Option(
      names = "--source-jdbc",
      paramLabel = "URL",
      description = "the source database (jdbc:postgresql://host:port/db), to read the slot's lag")
  String sourceJdbc;

  @Option(names = "--source-user", paramLabel = "USER")
  String sourceUser;

  @Option(
      names = "--source-password",
      paramLabel = "PASSWORD",
      defaultValue = "${env:TRELLARA_SOURCE_PASSWORD}",
      description = "default: $TRELLARA_SOURCE_PASSWORD")
  String sourcePassword;

  @Option(
      names = "--target-jdbc",
      paramLabel = "URL",
      description = "the target database, to read trellara_sink.progress and applied_transactions")
  String targetJdbc;

  @Option(names = "--target-user", paramLabel = "USER")
  String targetUser;

  @Option(
      names = "--target-password",
      paramLabel = "PASSWORD",
      defaultValue = "${env:TRELLARA_TARGET_PASSWORD}",
      description = "default: $TRELLARA_TARGET_PASSWORD")
  String targetPassword;

  @Option(
      names = "--jmx",
      paramLabel = "HOST:PORT",
      description =
          "a worker's JMX port (host:port, or a JMX service URL), to read its Trellara tasks'"
              + " stages (seconds since each last made progress) and barrier gauges; repeatable,"
              + " one per worker")
  List<String> jmx = new ArrayList<>();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private PrintWriter out;
  private int problems;

  @Override
  public Integer call() throws SQLException, java.io.IOException {
    out = spec.commandLine().getOut();
    try (TaskGauges gauges = jmx.isEmpty() ? null : new TaskGauges(jmx)) {
      return report(gauges);
    }
  }

  private int report(TaskGauges gauges) throws SQLException, java.io.IOException {
    ConnectRest rest = new ConnectRest(connectUrl);
    List<String> names = connectors.isEmpty() ? rest.connectors() : connectors;
    Set<String> sinks = new TreeSet<>();
    int running = 0;
    try (Connection source =
        sourceJdbc == null ? null : StatusQueries.connect(sourceJdbc, sourceUser, sourcePassword)) {
      for (String name : names) {
        ConnectorState c = rest.status(name);
        running += c.running() ? 1 : 0;
        printConnector(c);
        if (isTrellara(c) && "source".equals(c.type())) {
          printSlot(source, c.config().getOrDefault("slot.name", DEFAULT_SLOT));
        } else if (isTrellara(c) && "sink".equals(c.type())) {
          sinks.add(name);
        }
        if (isTrellara(c)) {
          printGauges(gauges, c);
        }
      }
    }
    if (targetJdbc != null) {
      printTarget(connectors.isEmpty() || sinks.isEmpty() ? null : sinks);
    }
    int notRunning = names.size() - running;
    problems += notRunning;
    out.println(
        "summary  connectors="
            + names.size()
            + "  running="
            + running
            + "  not_running="
            + notRunning);
    return problems == 0 ? 0 : 1;
  }

  private static boolean isTrellara(ConnectorState c) {
    return c.connectorClass().startsWith("io.trellara.");
  }

  private void printConnector(ConnectorState c) {
    out.println(
        "connector "
            + c.name()
            + "  type="
            + c.type()
            + "  state="
            + c.state()
            + "  worker="
            + c.workerId()
            + traceLine(c.trace()));
    if (c.tasks().isEmpty()) {
      out.println("  no tasks");
    }
    for (TaskState t : c.tasks()) {
      out.println(
          "  task "
              + t.id()
              + "  state="
              + t.state()
              + "  worker="
              + t.workerId()
              + traceLine(t.trace()));
    }
  }

  /** The tasks' stages and, for a sink, its barrier gauges, from the workers' JMX. */
  private void printGauges(TaskGauges gauges, ConnectorState c) throws java.io.IOException {
    if (gauges == null) {
      out.println("  stages  unknown (pass --jmx HOST:PORT of the worker to read them)");
      return;
    }
    java.util.Map<String, java.util.Map<String, Object>> tasks = gauges.tasks(c.name());
    if (tasks.isEmpty()) {
      out.println("  stages  no task of this connector on the JMX ports given");
    }
    for (java.util.Map.Entry<String, java.util.Map<String, Object>> t : tasks.entrySet()) {
      java.util.Map<String, Object> a = t.getValue();
      out.println(
          "  task "
              + t.getKey()
              + "  stages  "
              + TaskGauges.stages(a)
              + "  stall_bound="
              + a.getOrDefault("StallBoundSeconds", "?")
              + "s"
              + (a.containsKey("AuthenticationKeyId")
                  ? "  auth_key_id=" + a.get("AuthenticationKeyId")
                  : ""));
      if (a.containsKey("ReplicationLagSeconds")) { // a source task's own view of its slot
        out.println(
            "  task "
                + t.getKey()
                + "  slot_lag  bytes="
                + a.get("ReplicationLagBytes")
                + "  seconds="
                + a.get("ReplicationLagSeconds")
                + "  safe_wal_bytes="
                + a.get("SlotSafeWalBytes"));
      }
      OnlineSnapshotStatus.fromJmx(t.getKey(), a).forEach(out::println);
      if (a.containsKey("TransactionsWaitingAtBarrier")) {
        out.println(
            "  task "
                + t.getKey()
                + "  barrier  waiting_transactions="
                + a.get("TransactionsWaitingAtBarrier")
                + "  buffered_lanes="
                + a.get("BufferedLanes")
                + "  buffered_bytes="
                + a.get("BufferedBytes"));
      }
    }
  }

  private static String traceLine(String trace) {
    if (trace == null || trace.isBlank()) {
      return "";
    }
    int end = trace.indexOf('\n');
    return "  error=" + (end < 0 ? trace : trace.substring(0, end)).strip();
  }

  private void printSlot(Connection source, String slot) {
    if (source == null) {
      out.println("  slot " + slot + "  lag_bytes=unknown (pass --source-jdbc to read the slot)");
      return;
    }
    try {
      SlotLag lag = StatusQueries.slot(source, slot);
      if (lag == null) {
        problems++;
        out.println("  slot " + slot + "  MISSING on the source database");
      } else {
        out.println(
            "  slot "
                + slot
                + "  active="
                + lag.active()
                + "  lag_bytes="
                + lag.lagBytes()
                + "  confirmed_flush_lsn="
                + lag.confirmedFlushLsn()
                + "  current_wal_lsn="
                + lag.currentWalLsn()
                + "  wal_status="
                + lag.walStatus()
                + "  safe_wal_bytes="
                + (lag.safeWalBytes() < 0 ? "unlimited" : Long.toString(lag.safeWalBytes())));
        if ("lost".equals(lag.walStatus()) || "unreserved".equals(lag.walStatus())) {
          problems++; // the slot has lost, or is about to lose, WAL it needs
        }
      }
      StatusQueries.SnapshotCopy copy = StatusQueries.snapshotCopy(source, slot);
      if (copy != null) {
        out.println(copy.line("snapshot"));
      }
      OnlineSnapshotStatus.fromSource(source, slot).forEach(out::println);
    } catch (SQLException e) {
      problems++;
      out.println("  slot " + slot + "  cannot be read: " + e.getMessage());
    }
  }

  /** The checkpoint tables, for {@code onlySinks} (null: every sink recorded there). */
  private void printTarget(Set<String> onlySinks) throws SQLException {
    out.println("target " + ConnectionStrings.masked(targetJdbc));
    try (Connection target = StatusQueries.connect(targetJdbc, targetUser, targetPassword)) {
      List<Progress> progress = StatusQueries.progress(target);
      List<Applied> applied = StatusQueries.applied(target);
      java.util.Map<String, String> owners = StatusQueries.owners(target);
      for (Progress p : progress) {
        if (onlySinks == null || onlySinks.contains(p.sinkName())) {
          String owner = owners.get(p.sinkName() + '/' + p.topic() + '/' + p.partition());
          out.println(
              "  progress  sink="
                  + p.sinkName()
                  + "  topic="
                  + p.topic()
                  + "  partition="
                  + p.partition()
                  + "  next_offset="
                  + p.nextOffset()
                  + "  updated_at="
                  + p.updatedAt()
                  + (owner == null ? "" : "  owner=" + owner));
        }
      }
      for (Applied a : applied) {
        if (onlySinks == null || onlySinks.contains(a.sinkName())) {
          out.println(
              "  applied  sink="
                  + a.sinkName()
                  + "  source="
                  + a.sourceId()
                  + "  transactions="
                  + a.transactions()
                  + "  newest_commit_lsn="
                  + a.newestCommitLsn()
                  + "  newest_commit="
                  + a.newestCommit()
                  + "  last_applied_at="
                  + a.lastAppliedAt());
        }
      }
      OnlineSnapshotStatus.fromTarget(target, onlySinks).forEach(out::println);
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState())) {
        problems++;
        out.println(
            "  no checkpoint tables (trellara_sink.progress, trellara_sink.applied_transactions):"
                + " no Trellara sink has started against this database");
        return;
      }
      throw e;
    }
  }
}
