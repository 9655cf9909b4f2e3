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
 * A worker killed (SIGKILL) while the sink writes the online snapshot a signal asked for (issue
 * 30): the target's copy of {@code item} was damaged by hand, and so was the copy of {@code other},
 * a table the signal does not name. At the kill the target still shows the damaged {@code item}
 * (the load is one open target transaction); after the restart the source resumes before the
 * signal, reads it again and snapshots {@code item} alone: {@code item} ends equal to the source,
 * every read saw it damaged or whole, and {@code other} is still damaged (no initial snapshot of
 * everything was taken again), its later changes streamed once.
 */
@EitherPlatform
class OnlineSnapshotWorkerKillIT {
  private static final int ROWS = Integer.getInteger("trellara.onlinekill.rows", 200_000);
  private static final int DAMAGED = 1_000;
  private static final Duration WAIT = Duration.ofSeconds(180);

  @Test
  void aWorkerKilledDuringAnOnlineSnapshotResnapshotsOnlyTheSignalledTableAfterTheRestart()
      throws Exception {
    TrellaraStack stack = TrellaraStack.get();
    Path pluginPath = PluginWorker.unpackArchive("it-plugin-path-online-kill");
    try (TestScope scope = stack.newScope("onlineKill")) {
      PostgresDatabase source = scope.sourceDatabase();
      PostgresDatabase target = scope.targetDatabase();
      String item = "CREATE TABLE item (id int PRIMARY KEY, note text NOT NULL)";
      String other = "CREATE TABLE other (id int PRIMARY KEY, note text NOT NULL)";
      source.execute(
          item,
          other,
          "CREATE TABLE signals (id text PRIMARY KEY, type text NOT NULL, data text)",
          "INSERT INTO item SELECT g, repeat('n', 40) || g FROM generate_series(1, " + ROWS + ") g",
          "INSERT INTO other SELECT g, 'o' || g FROM generate_series(1, 100) g");
      target.execute(item, other);
      String strict = scope.createTopic("strict", 1);
      ConnectWorkerProcess worker =
          PluginWorker.killableWorker(stack, scope.prefix() + "-online-kill", pluginPath, "512m");
      String sourceName = scope.connectorName("source");
      String sinkName = scope.connectorName("sink");
      // every read sees item damaged or whole, never in between
      PartialReads reader =
          new PartialReads(
              target,
              "SELECT CASE WHEN count(*) IN ("
                  + (ROWS - DAMAGED)
                  + ", "
                  + ROWS
                  + ") THEN 0 ELSE 1 END FROM item",
              0);
      Thread readerThread = new Thread(reader, "online-kill-reader");
      readerThread.setDaemon(true);
      try {
        worker.start();
        ConnectRestClient rest = worker.rest();
        rest.createConnector(
            sourceName,
            ConnectorConfigs.source(
                scope,
                source,
                strict,
                "public.item,public.other,public.signals",
                Map.of("signal.table", "public.signals")));
        rest.createConnector(sinkName, ConnectorConfigs.sink(target, strict, Map.of()));
        await("the initial snapshot applied")
            .atMost(WAIT)
            .until(
                () ->
                    target.queryLong("SELECT count(*) FROM item") == ROWS
                        && target.queryLong("SELECT count(*) FROM other") == 100);
        target.execute(
            "DELETE FROM item WHERE id <= " + DAMAGED, "DELETE FROM other WHERE id <= 10");
        readerThread.start();

        source.execute("INSERT INTO signals VALUES ('reload-item-1', 'snapshot', 'public.item')");
        // the sink's session in an open transaction whose last statement touched item: the load
        String writing =
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND backend_xid IS NOT NULL AND state IN ('active', 'idle in transaction')"
                + " AND query ILIKE '%item%' AND pid <> pg_backend_pid()";
        await("the sink writing the online snapshot into an open target transaction")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(5))
            .until(() -> target.queryLong(writing) > 0);
        worker.kill();
        long killedAt = System.nanoTime();
        assertThat(target.queryLong("SELECT count(*) FROM item"))
            .as("item at the kill: still the damaged copy")
            .isEqualTo(ROWS - DAMAGED);
        await("the dead worker's target transaction rolled back")
            .atMost(Duration.ofSeconds(30))
            .until(() -> target.queryLong(writing) == 0);

        worker.start();
        rest.awaitRunning(sourceName);
        rest.awaitRunning(sinkName, 1, WAIT);
        await("the signalled snapshot applied after the restart")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(50))
            .until(() -> target.queryLong("SELECT count(*) FROM item") == ROWS);
        long appliedAt = System.nanoTime();
        SourceTransactions.commit(
            source,
            "UPDATE item SET note = 'changed' WHERE id = 1",
            "UPDATE other SET note = note || '+' WHERE id > 10");
        await("the stream after the snapshot")
            .atMost(WAIT)
            .until(() -> target.queryLong("SELECT count(*) FROM other WHERE note LIKE '%+'") == 90);
        reader.stop();
        readerThread.join(5_000);

        String fingerprint =
            "SELECT count(*)::text || ':' || md5(string_agg(t::text, ',' ORDER BY id)) FROM %s t";
        await("item equal to the source")
            .atMost(WAIT)
            .until(
                () ->
                    target
                        .queryString(String.format(fingerprint, "item"))
                        .equals(source.queryString(String.format(fingerprint, "item"))));
        assertThat(target.queryString(String.format(fingerprint, "other")))
            .as("other: its damage kept (not re-loaded), its changes streamed once")
            .isEqualTo(
                source.queryString(
                    String.format(fingerprint, "(SELECT * FROM other WHERE id > 10)")))
            .startsWith("90:");
        long snapshots =
            target.queryLong(
                "SELECT count(*) FROM trellara_sink.applied_transactions"
                    + " WHERE transaction_id = 'snapshot'");
        assertThat(snapshots)
            .as("snapshots applied: the initial one and the signalled one")
            .isEqualTo(2);
        assertThat(
                source.queryLong(
                    "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE '%resnap'"))
            .as("the online snapshots' temporary slots are gone")
            .isZero();
        String log = java.nio.file.Files.readString(worker.logFile());
        assertThat(log)
            .as("the restarted source's start decision (worker log)")
            .contains("A position exists: streaming, no snapshot")
            .doesNotContain("the last snapshot did not finish");
        assertThat(log.split("Signal reload-item-1 \\(committed at", -1).length - 1)
            .as("the signal taken before the kill and again after the restart")
            .isEqualTo(2);
        assertThat(reader.partial.get()).as("reads that saw item half re-loaded").isZero();
        assertThat(reader.reads.get()).as("reads").isPositive();
        System.out.printf(
            Locale.ROOT,
            "OnlineSnapshotWorkerKillIT: %,d rows re-snapshotted, worker killed mid-load; kill →"
                + " applied %.1f s; %d snapshots applied in all; %,d reads, 0 partial%n",
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
