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
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A worker killed (SIGKILL) in the middle of the initial snapshot of a table that already holds
 * 200,000 rows, the connectors at their defaults (snapshot.mode=initial, plain strict: the snapshot
 * travels chunked): the kill lands while the sink writes the snapshot into its open target
 * transaction. Nothing of it may be visible, then or ever in part; after the restart the target
 * holds the table whole, the source holds one slot, and streaming goes on.
 */
@EitherPlatform
class SnapshotWorkerKillIT {
  private static final int ROWS = Integer.getInteger("trellara.snapshotkill.rows", 200_000);
  private static final Duration WAIT = Duration.ofSeconds(180);
  private static final String TABLE = "CREATE TABLE item (id int PRIMARY KEY, note text NOT NULL)";

  @Test
  void aWorkerKilledMidSnapshotLeavesNothingVisibleAndTheSnapshotCompletesWholeAfterTheRestart()
      throws Exception {
    TrellaraStack stack = TrellaraStack.get();
    Path pluginPath = PluginWorker.unpackArchive("it-plugin-path-snapshot-kill");
    try (TestScope scope = stack.newScope("snapKill")) {
      PostgresDatabase source = scope.sourceDatabase();
      PostgresDatabase target = scope.targetDatabase();
      source.execute(
          TABLE,
          "INSERT INTO item SELECT g, repeat('n', 40) || g FROM generate_series(1, "
              + ROWS
              + ") g");
      target.execute(TABLE);
      String strict = scope.createTopic("strict", 1);
      ConnectWorkerProcess worker =
          PluginWorker.killableWorker(stack, scope.prefix() + "-snapshot-kill", pluginPath, "512m");
      String sourceName = scope.connectorName("source");
      String sinkName = scope.connectorName("sink");
      PartialReads reader =
          new PartialReads(target, "SELECT count(*) FROM item WHERE id > 0", ROWS);
      Thread readerThread = new Thread(reader, "snapshot-kill-reader");
      readerThread.setDaemon(true);
      try {
        worker.start();
        ConnectRestClient rest = worker.rest();
        readerThread.start();
        rest.createConnector(
            sourceName, ConnectorConfigs.source(scope, source, strict, "public.item", Map.of()));
        rest.createConnector(sinkName, ConnectorConfigs.sink(target, strict, Map.of()));
        String writing =
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND backend_xid IS NOT NULL AND state IN ('active', 'idle in transaction')"
                + " AND pid <> pg_backend_pid()";
        await("the sink writing the snapshot into an open target transaction")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(5))
            .until(() -> target.queryLong(writing) > 0);
        worker.kill();
        long killedAt = System.nanoTime();
        assertThat(target.queryLong("SELECT count(*) FROM item"))
            .as("rows visible at the kill")
            .isZero();
        await("the dead worker's target transaction rolled back")
            .atMost(Duration.ofSeconds(30))
            .until(() -> target.queryLong(writing) == 0);

        worker.start();
        rest.awaitRunning(sourceName);
        rest.awaitRunning(sinkName, 1, WAIT);
        await("the snapshot applied after the restart")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(50))
            .until(() -> target.queryLong("SELECT count(*) FROM item") == ROWS);
        long appliedAt = System.nanoTime();
        SourceTransactions.commit(
            source,
            "INSERT INTO item VALUES (-1, 'after')",
            "UPDATE item SET note = 'changed' WHERE id = 1");
        await("the stream after the snapshot")
            .atMost(WAIT)
            .until(() -> target.queryLong("SELECT count(*) FROM item") == ROWS + 1);
        reader.stop();
        readerThread.join(5_000);

        String fingerprint =
            "SELECT count(*)::text || ':' || md5(string_agg(t::text, ',' ORDER BY id))"
                + " FROM item t";
        await()
            .atMost(WAIT)
            .until(() -> target.queryString(fingerprint).equals(source.queryString(fingerprint)));
        assertThat(
                source.queryLong(
                    "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"
                        + scope.slotName()
                        + "'"))
            .as("the source's slot")
            .isEqualTo(1);
        long snapshots =
            target.queryLong(
                "SELECT count(*) FROM trellara_sink.applied_transactions"
                    + " WHERE transaction_id = 'snapshot'");
        assertThat(snapshots)
            .as(
                "snapshots applied (a second one replaces the first when the source's"
                    + " offsets were not yet flushed at the kill)")
            .isBetween(1L, 2L);
        assertThat(reader.partial.get()).as("reads that saw part of the snapshot").isZero();
        assertThat(reader.reads.get()).as("reads").isPositive();
        System.out.printf(
            Locale.ROOT,
            "SnapshotWorkerKillIT: %,d rows, worker killed mid-snapshot; kill →"
                + " applied %.1f s; %d snapshot(s) applied; %,d reads, 0 partial%n",
            ROWS,
            (appliedAt - killedAt) / 1e9,
            snapshots,
            reader.reads.get());
      } finally {
        reader.stop();
        worker.stop();
      }
    }
  }
}
