package io.trellara.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code trellara status} against the real worker, source and target of a running pipeline; then
 * again after an online snapshot (a signal), which it shows from the source task's JMX and the
 * target's snapshot transaction.
 */
@EitherPlatform
class StatusCommandIT {
  private static final TrellaraStack STACK = TrellaraStack.get();

  @Test
  void showsBothConnectorsTheSlotsLagTheTasksStagesAndTheTargetsCheckpoints() throws Exception {
    try (TestScope scope = STACK.newScope("status")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      String ddl = "CREATE TABLE item (id int PRIMARY KEY, name text)";
      src.execute(ddl);
      dst.execute(ddl);
      src.execute("CREATE TABLE signals (id text PRIMARY KEY, type text NOT NULL, data text)");
      String topic = scope.createTopic("strict", 1);
      String source =
          scope.createConnector(
              "source",
              ConnectorConfigs.source(
                  scope,
                  src,
                  topic,
                  "public.item,public.signals",
                  Map.of("signal.table", "public.signals")));
      String sink = scope.createConnector("sink", ConnectorConfigs.sink(dst, topic, Map.of()));
      STACK.rest().awaitRunning(source);
      STACK.rest().awaitRunning(sink);

      src.executeInTransaction("INSERT INTO item VALUES (1, 'a'), (2, 'b')");
      src.executeInTransaction("UPDATE item SET name = 'c' WHERE id = 1");
      src.executeInTransaction("DELETE FROM item WHERE id = 2");
      await().atMost(Duration.ofSeconds(120)).until(() -> applied(dst) == 3);
      String newest =
          dst.queryString("SELECT max(commit_lsn)::text FROM trellara_sink.applied_transactions");

      // the worker runs in this JVM: its platform MBeanServer holds the tasks' beans
      int jmxPort = freePort();
      java.rmi.registry.Registry registry =
          java.rmi.registry.LocateRegistry.createRegistry(jmxPort);
      javax.management.remote.JMXConnectorServer jmx =
          javax.management.remote.JMXConnectorServerFactory.newJMXConnectorServer(
              new javax.management.remote.JMXServiceURL(
                  "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"),
              null,
              java.lang.management.ManagementFactory.getPlatformMBeanServer());
      jmx.start();
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      StringWriter after = new StringWriter();
      int status;
      String[] args;
      try {
        args =
            new String[] {
              "status",
              "--connect-url",
              STACK.worker().restUrl().toString(),
              "--connector",
              source,
              "--connector",
              sink,
              "--source-jdbc",
              src.jdbcUrl(),
              "--source-user",
              src.user(),
              "--source-password",
              src.password(),
              "--target-jdbc",
              dst.jdbcUrl(),
              "--target-user",
              dst.user(),
              "--target-password",
              dst.password(),
              "--jmx",
              "127.0.0.1:" + jmxPort
            };
        status = TrellaraCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        // an online snapshot of item, signalled: status shows the last one ended, and what the
        // target applied of it
        src.execute("INSERT INTO signals VALUES ('reload-1', 'snapshot', 'public.item')");
        await().atMost(Duration.ofSeconds(120)).until(() -> snapshotsApplied(dst) == 1);
        TrellaraCli.run(new PrintWriter(after, true), new PrintWriter(err, true), args);
      } finally {
        jmx.stop();
        java.rmi.server.UnicastRemoteObject.unexportObject(registry, true);
      }

      String text = out.toString();
      assertThat(status).as(text + err).isZero();
      assertThat(text)
          .contains("connector " + source + "  type=source  state=RUNNING")
          .contains("connector " + sink + "  type=sink  state=RUNNING")
          .contains("  task 0  state=RUNNING")
          .containsPattern(
              "  slot "
                  + scope.slotName()
                  + "  active=true  lag_bytes=\\d+"
                  + "  confirmed_flush_lsn=[0-9A-F]+/[0-9A-F]+  current_wal_lsn=[0-9A-F]+/[0-9A-F]+"
                  + "  wal_status=(reserved|extended)  safe_wal_bytes=unlimited")
          .containsPattern("  task 0  stages  .*producer=\\d+s.*replication_stream=\\d+s")
          .containsPattern("  task 0  stages  .*target_statement=\\d+s.*  stall_bound=300s")
          .containsPattern(
              "  task 0  slot_lag  bytes=-?\\d+  seconds=-?\\d+  safe_wal_bytes=-?\\d+")
          .contains("  task 0  barrier  waiting_transactions=0  buffered_lanes=0")
          .contains(
              "  progress  sink=" + sink + "  topic=" + topic + "  partition=0  next_offset=3")
          .containsPattern(
              "partition=0  next_offset=3  updated_at=[^ ]+ [^ ]+  owner="
                  + sink
                  + " task 0 on \\d+@[^ ]+ \\([0-9a-f]{8}\\) since ")
          .contains(
              "  applied  sink="
                  + sink
                  + "  source="
                  + scope.prefix()
                  + "-src  transactions=3"
                  + "  newest_commit_lsn="
                  + newest)
          .contains("summary  connectors=2  running=2  not_running=0")
          .contains("  task 0  online_snapshot  state=IDLE")
          .contains(
              "  task 0  online_snapshot_counts  completed=0  failed=0  cancelled=0"
                  + "  signals_refused=0")
          .doesNotContain("online_snapshot_last")
          .doesNotContain("snapshot_applied");
      String snapshotLsn =
          dst.queryString(
              "SELECT commit_lsn::text FROM trellara_sink.applied_transactions"
                  + " WHERE transaction_id = 'snapshot'");
      assertThat(after.toString())
          .as(after + err.toString())
          .contains("  task 0  online_snapshot  state=IDLE")
          .containsPattern(
              "  task 0  online_snapshot_last  outcome=COMPLETED  signal=reload-1"
                  + "  tables=public.item  rows=1  bytes=\\d+  elapsed_ms=\\d+  ended_at=20")
          .contains(
              "  task 0  online_snapshot_counts  completed=1  failed=0  cancelled=0"
                  + "  signals_refused=0")
          .containsPattern(
              "  snapshot_applied  sink="
                  + sink
                  + "  source="
                  + scope.prefix()
                  + "-src  snapshots=1  last_commit_lsn="
                  + snapshotLsn
                  + "  last_rows=1  last_applied_at=20");
    }
  }

  private static long snapshotsApplied(PostgresDatabase target) {
    return target.queryLong(
        "SELECT count(*) FROM trellara_sink.applied_transactions WHERE transaction_id = 'snapshot'");
  }

  private static int freePort() throws java.io.IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static long applied(PostgresDatabase target) {
    try {
      return target.queryLong("SELECT count(*) FROM trellara_sink.applied_transactions");
    } catch (RuntimeException e) {
      return -1; // the sink has not created its tables yet
    }
  }
}
