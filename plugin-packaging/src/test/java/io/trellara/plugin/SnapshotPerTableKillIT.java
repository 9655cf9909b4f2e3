package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * snapshot.apply=per_table under a kill: the source on a worker of its own, the sink on another,
 * killed (SIGKILL) once it has committed some tables of the snapshot. Every read of the target
 * throughout sees each table empty or whole; after the restart the sink resumes after the last
 * table it committed (those tables are not written again: their rows keep the xmin of their first
 * commit) and the snapshot completes once.
 */
@EitherPlatform
class SnapshotPerTableKillIT {
  private static final int TABLES = 6;
  private static final int ROWS = Integer.getInteger("trellara.snapshotkill.table.rows", 60_000);
  private static final Duration WAIT = Duration.ofSeconds(180);

  @Test
  void aSinkKilledMidSnapshotResumesAfterTheLastTableItCommitted() throws Exception {
    TrellaraStack stack = TrellaraStack.get();
    Path pluginPath = PluginWorker.unpackArchive("it-plugin-path-snapshot-per-table");
    try (TestScope scope = stack.newScope("snapTable")) {
      PostgresDatabase source = scope.sourceDatabase();
      PostgresDatabase target = scope.targetDatabase();
      List<String> tables = new ArrayList<>();
      StringBuilder partial = new StringBuilder("SELECT count(*) FROM (VALUES ");
      for (int i = 1; i <= TABLES; i++) {
        String t = "t" + i;
        tables.add(t);
        String ddl = "CREATE TABLE " + t + " (id int PRIMARY KEY, note text NOT NULL)";
        source.execute(
            ddl,
            "INSERT INTO "
                + t
                + " SELECT g, repeat('n', 40) || g FROM generate_series(1, "
                + ROWS
                + ") g");
        target.execute(ddl);
        partial.append(i > 1 ? ", " : "").append("((SELECT count(*) FROM ").append(t).append("))");
      }
      partial.append(") v(c) WHERE c NOT IN (0, ").append(ROWS).append(')');
      String strict = scope.createTopic("strict", 1);
      ConnectWorkerProcess sourceWorker =
          PluginWorker.killableWorker(stack, scope.prefix() + "-src", pluginPath, "512m");
      ConnectWorkerProcess sinkWorker =
          PluginWorker.killableWorker(stack, scope.prefix() + "-snk", pluginPath, "512m");
      String sourceName = scope.connectorName("source");
      String sinkName = scope.connectorName("sink");
      PartialReads reader =
          new PartialReads(target, partial.toString(), -1); // any table in part counts
      Thread readerThread = new Thread(reader, "snapshot-per-table-reader");
      readerThread.setDaemon(true);
      try {
        sourceWorker.start();
        sinkWorker.start();
        readerThread.start();
        String list = String.join(",", tables.stream().map(t -> "public." + t).toList());
        sourceWorker
            .rest()
            .createConnector(
                sourceName, ConnectorConfigs.source(scope, source, strict, list, Map.of()));
        ConnectRestClient sinkRest = sinkWorker.rest();
        // a short consumer session: the restarted worker's new member need not wait out the dead
        // one's 45 s;
        // Kafka's default fetch size: a snapshot already whole on the topic is still streamed chunk
        // by chunk
        // (one that arrives whole in one batch is applied as one envelope, atomically)
        sinkRest.createConnector(
            sinkName,
            ConnectorConfigs.sink(
                target,
                strict,
                Map.of(
                    "snapshot.apply",
                    "per_table",
                    "consumer.override.session.timeout.ms",
                    "6000",
                    "consumer.override.max.partition.fetch.bytes",
                    "1048576")));
        await("the sink committing the snapshot's first table")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(5))
            .until(() -> committedTables(target) > 0);
        sinkWorker.kill();
        long killedAt = System.nanoTime();
        Map<String, String> committed = new LinkedHashMap<>();
        for (String t : tables) {
          long n = target.queryLong("SELECT count(*) FROM " + t);
          assertThat(n).as("rows of %s at the kill", t).isIn(0L, (long) ROWS);
          if (n == ROWS) {
            committed.put(
                t, target.queryString("SELECT string_agg(DISTINCT xmin::text, ',') FROM " + t));
          }
        }
        assertThat(committed).as("tables whole at the kill").isNotEmpty().hasSizeLessThan(TABLES);

        sinkWorker.start();
        sinkRest.awaitRunning(sinkName, 1, WAIT);
        await("the snapshot completed after the restart")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(50))
            .until(
                () ->
                    target.queryLong(
                            "SELECT count(*) FROM trellara_sink.applied_transactions"
                                + " WHERE transaction_id = 'snapshot'")
                        == 1);
        long appliedAt = System.nanoTime();
        reader.stop();
        readerThread.join(5_000);

        for (String t : tables) {
          String fingerprint =
              "SELECT count(*)::text || ':' || md5(string_agg(x::text, ',' ORDER BY id))"
                  + " FROM "
                  + t
                  + " x";
          assertThat(target.queryString(fingerprint))
              .as(t)
              .isEqualTo(source.queryString(fingerprint));
        }
        for (Map.Entry<String, String> c : committed.entrySet()) {
          assertThat(
                  target.queryString(
                      "SELECT string_agg(DISTINCT xmin::text, ',') FROM " + c.getKey()))
              .as("%s, committed before the kill, not written again", c.getKey())
              .isEqualTo(c.getValue());
        }
        assertThat(target.queryLong("SELECT count(*) FROM trellara_sink.snapshot_tables")).isZero();
        assertThat(reader.partial.get()).as("reads that saw a table in part").isZero();
        assertThat(reader.reads.get()).as("reads").isPositive();
        System.out.printf(
            Locale.ROOT,
            "SnapshotPerTableKillIT: %d tables x %,d rows, sink killed after %d"
                + " table(s) committed; kill → snapshot complete %.1f s; %,d reads, 0 partial%n",
            TABLES,
            ROWS,
            committed.size(),
            (appliedAt - killedAt) / 1e9,
            reader.reads.get());
      } finally {
        reader.stop();
        sinkWorker.stop();
        sourceWorker.stop();
      }
    }
  }

  private static long committedTables(PostgresDatabase target) {
    try {
      return target.queryLong("SELECT count(*) FROM trellara_sink.snapshot_tables");
    } catch (RuntimeException e) {
      return 0; // the sink's first task creates trellara_sink
    }
  }
}
