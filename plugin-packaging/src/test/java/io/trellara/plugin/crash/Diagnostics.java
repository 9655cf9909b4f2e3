package io.trellara.plugin.crash;

import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the harness prints when a step fails: the connectors' REST status with their traces, the
 * source offsets, the tasks' JMX figures, the worker threads that run Trellara tasks (from {@code
 * jstack}; the whole dump goes to a file), the target's sessions and locks, the source's slots and
 * walsenders, the topics' end offsets and the sink's committed offsets, and the workers' last
 * warnings.
 */
final class Diagnostics {
  private static final List<String> SOURCE_ATTRIBUTES =
      List.of(
          "SnapshotState",
          "SnapshotRows",
          "SnapshotTablesDone",
          "SnapshotTablesTotal",
          "TransactionsCaptured",
          "TransactionsPublished",
          "TransactionsAcknowledged",
          "RecordsQueued",
          "LastAcknowledgedLsn",
          "Reconnects",
          "LastReplicationError",
          "DdlEventsDropped");
  private static final List<String> SINK_ATTRIBUTES =
      List.of(
          "TransactionsApplied",
          "DuplicatesSkipped",
          "TargetCommits",
          "Retries",
          "TransactionsWaitingAtBarrier",
          "BufferedLanes",
          "BarriersApplied",
          "DdlReplayed",
          "DdlSkipped",
          "LastAppliedCommitLsn",
          "LastAppliedCommitTimestampMs");

  private Diagnostics() {}

  static String collect(
      Pipeline pipeline,
      KafkaBroker broker,
      PostgresDatabase source,
      PostgresDatabase target,
      Path dir,
      String label) {
    StringBuilder out = new StringBuilder("---- diagnostics: ").append(label).append(" ----\n");
    for (String name : List.of(pipeline.sourceName, pipeline.sinkName)) {
      ConnectorStatus s = pipeline.statusOrNull(name);
      out.append("REST status ").append(name).append(": ");
      if (s == null) {
        out.append("(no worker answers)\n");
        continue;
      }
      out.append(s.state()).append(" on ").append(s.workerId()).append('\n');
      for (ConnectorStatus.TaskStatus t : s.tasks()) {
        out.append("  task ")
            .append(t.id())
            .append(' ')
            .append(t.state())
            .append(" on ")
            .append(t.workerId())
            .append('\n');
        if (t.trace() != null) {
          out.append(head(t.trace(), 25));
        }
      }
      if (s.trace() != null) {
        out.append(head(s.trace(), 25));
      }
    }
    try {
      out.append("source offsets: ")
          .append(pipeline.rest().offsets(pipeline.sourceName))
          .append('\n');
    } catch (RuntimeException e) {
      out.append("source offsets: (unavailable: ").append(e.getMessage()).append(")\n");
    }
    for (ConnectWorkerProcess w : pipeline.running()) {
      JmxProbe jmx = pipeline.jmx(w);
      out.append("JMX ").append(w.restUrl()).append(" source: ");
      out.append(jmx.attributes("source-task", SOURCE_ATTRIBUTES)).append('\n');
      out.append("JMX ").append(w.restUrl()).append(" sink: ");
      out.append(jmx.attributes("sink-task", SINK_ATTRIBUTES)).append('\n');
      out.append(threads(w, dir, label));
    }
    out.append("target sessions (pg_stat_activity):\n")
        .append(
            Db.table(
                target,
                "SELECT pid, application_name, state, wait_event_type || ':' || wait_event,"
                    + " backend_xid, round(extract(epoch FROM now() - xact_start)::numeric, 1)"
                    + " AS xact_s, pg_blocking_pids(pid)::text AS blocked_by,"
                    + " left(regexp_replace(query, '\\s+', ' ', 'g'), 200) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    + " AND state IS DISTINCT FROM 'idle' ORDER BY xact_start"));
    out.append("target locks on relations (not AccessShare, or not granted):\n")
        .append(
            Db.table(
                target,
                "SELECT l.pid, a.application_name, l.relation::regclass, l.mode, l.granted"
                    + " FROM pg_locks l JOIN pg_stat_activity a USING (pid)"
                    + " WHERE l.relation IS NOT NULL AND l.database = (SELECT oid FROM pg_database"
                    + " WHERE datname = current_database())"
                    + " AND (l.mode <> 'AccessShareLock' OR NOT l.granted)"
                    + " AND l.relation::regclass::text NOT LIKE 'pg_%' ORDER BY l.granted, l.pid"));
    out.append("source slots:\n")
        .append(
            Db.table(
                source,
                "SELECT slot_name, active, active_pid, restart_lsn, confirmed_flush_lsn, wal_status"
                    + " FROM pg_replication_slots WHERE database = current_database()"));
    out.append("source sessions:\n")
        .append(
            Db.table(
                source,
                "SELECT pid, backend_type, application_name, state, wait_event,"
                    + " left(regexp_replace(query, '\\s+', ' ', 'g'), 120) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    + " AND application_name NOT LIKE 'crash-%'"));
    out.append(kafka(pipeline, broker));
    for (ConnectWorkerProcess w : List.of(pipeline.a, pipeline.b)) {
      out.append(warnings(w));
    }
    String text = out.toString();
    write(dir.resolve(label.replaceAll("[^A-Za-z0-9_.-]+", "_") + ".txt"), text);
    return text;
  }

  private static String kafka(Pipeline pipeline, KafkaBroker broker) {
    StringBuilder out = new StringBuilder();
    try {
      out.append("topic end offsets: ").append(broker.endOffsets(pipeline.strictTopic));
      if (pipeline.lanesTopic != null) {
        out.append(' ').append(broker.endOffsets(pipeline.lanesTopic));
      }
      out.append("\nsink committed offsets: ")
          .append(broker.consumerGroupOffsets("connect-" + pipeline.sinkName))
          .append('\n');
      out.append("the source's records on the worker offsets topic (oldest first, last 12):\n");
      List<String> offsets = new ArrayList<>();
      for (KafkaRecord r : broker.readAll(pipeline.offsetsTopic())) {
        String key = r.keyAsString();
        if (key != null && key.contains(pipeline.sourceName)) {
          offsets.add("  " + r.offset() + " " + r.valueAsString() + "\n");
        }
      }
      offsets.subList(Math.max(0, offsets.size() - 12), offsets.size()).forEach(out::append);
    } catch (RuntimeException e) {
      out.append("kafka: (unavailable: ").append(e.getMessage()).append(")\n");
    }
    return out.toString();
  }

  /** The threads of a worker that run Trellara code or Connect tasks; the whole dump to a file. */
  private static String threads(ConnectWorkerProcess w, Path dir, String label) {
    long pid = w.pid();
    if (pid < 0) {
      return "";
    }
    String dump = jstack(pid);
    write(
        dir.resolve("jstack-" + pid + "-" + label.replaceAll("[^A-Za-z0-9_.-]+", "_") + ".txt"),
        dump);
    StringBuilder out = new StringBuilder("threads of worker pid " + pid + " (task threads):\n");
    for (String thread : dump.split("\n\n")) {
      if (thread.startsWith("\"task-thread-") || thread.contains("io.trellara.")) {
        out.append(head(thread, 30)).append('\n');
      }
    }
    return out.toString();
  }

  static String jstack(long pid) {
    try {
      Process p =
          new ProcessBuilder("jstack", Long.toString(pid)).redirectErrorStream(true).start();
      byte[] bytes = p.getInputStream().readAllBytes();
      p.waitFor(30, TimeUnit.SECONDS);
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(jstack failed: " + e + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(interrupted)";
    }
  }

  private static String warnings(ConnectWorkerProcess w) {
    try {
      if (!Files.exists(w.logFile())) {
        return "";
      }
      List<String> hits = new ArrayList<>();
      for (String line : Files.readAllLines(w.logFile(), StandardCharsets.UTF_8)) {
        if ((line.contains(" ERROR ") || line.contains(" WARN ")) && line.contains("trellara")) {
          hits.add(line.length() > 400 ? line.substring(0, 400) + "…" : line);
        }
      }
      StringBuilder out = new StringBuilder("last warnings of worker " + w.restUrl() + ":\n");
      for (String line : hits.subList(Math.max(0, hits.size() - 30), hits.size())) {
        out.append("  ").append(line).append('\n');
      }
      return out.toString();
    } catch (IOException | RuntimeException e) {
      return "(worker log unreadable: " + e + ")\n";
    }
  }

  static String head(String text, int lines) {
    String[] all = text.split("\n");
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < Math.min(lines, all.length); i++) {
      out.append("    ").append(all[i]).append('\n');
    }
    if (all.length > lines) {
      out.append("    … ").append(all.length - lines).append(" more lines\n");
    }
    return out.toString();
  }

  static void write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      // the text is printed as well
    }
  }
}
