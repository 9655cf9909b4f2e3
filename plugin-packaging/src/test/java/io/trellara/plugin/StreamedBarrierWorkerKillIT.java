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
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A worker killed (SIGKILL) while the sink applies a strict-chunked transaction as its chunks
 * arrive: the sink has written part of the transaction into its open target transaction when the
 * process dies. Nothing of it may be visible, then or ever in part; after the restart the
 * transaction is applied once and whole, and nothing was staged (the streamed path). A reader polls
 * the target throughout and must only ever see none or all of it. Connectors at their defaults
 * (strict chunked source, default fetch sizes: the transaction spans many batches).
 */
@EitherPlatform
class StreamedBarrierWorkerKillIT {
  private static final int ROWS = Integer.getInteger("trellara.streamkill.rows", 200_000);
  private static final Duration WAIT = Duration.ofSeconds(180);
  private static final String TABLE = "CREATE TABLE item (id int PRIMARY KEY, note text NOT NULL)";

  @Test
  void
      aTransactionStreamingIntoTheTargetWhenTheWorkerDiesIsNeverVisibleInPartAndAppliedOnceAfterTheRestart()
          throws Exception {
    TrellaraStack stack = TrellaraStack.get();
    Path pluginPath = PluginWorker.unpackArchive("it-plugin-path-stream-kill");
    try (TestScope scope = stack.newScope("streamKill")) {
      PostgresDatabase source = scope.sourceDatabase();
      PostgresDatabase target = scope.targetDatabase();
      source.execute(TABLE);
      target.execute(TABLE);
      String strict = scope.createTopic("strict", 1);
      ConnectWorkerProcess worker =
          PluginWorker.killableWorker(stack, scope.prefix() + "-stream-kill", pluginPath, "512m");
      String sourceName = scope.connectorName("source");
      String sinkName = scope.connectorName("sink");
      PartialReads reader =
          new PartialReads(target, "SELECT count(*) FROM item WHERE id > 0", ROWS);
      Thread readerThread = new Thread(reader, "stream-kill-reader");
      readerThread.setDaemon(true);
      try {
        worker.start();
        ConnectRestClient rest = worker.rest();
        Map<String, String> src =
            new HashMap<>(ConnectorConfigs.source(scope, source, strict, "public.item", Map.of()));
        src.put("dataset.strict_chunking.max_changes_per_chunk", "1000");
        // snapshot.mode=never: the test follows every source transaction by its xid; under the
        // default,
        // a worker lost before Connect's first offset flush after the snapshot snapshots again,
        // folding
        // the outage's transactions into the new snapshot (docs/snapshot.md)
        src.put("snapshot.mode", "never");
        rest.createConnector(sourceName, src);
        Map<String, String> sink = new HashMap<>(ConnectorConfigs.sink(target, strict, Map.of()));
        sink.remove(
            "consumer.override.max.partition.fetch.bytes"); // Kafka's default: ~1 MB a partition
        sink.put("consumer.override.session.timeout.ms", "6000");
        sink.put("consumer.override.heartbeat.interval.ms", "1000");
        rest.createConnector(sinkName, sink);
        rest.awaitRunning(sourceName);
        rest.awaitRunning(sinkName, 1, WAIT);
        SourceTransactions.commit(source, "INSERT INTO item VALUES (0, 'warm-up')");
        await("warm-up applied")
            .atMost(WAIT)
            .until(() -> target.queryLong("SELECT count(*) FROM item") == 1);
        readerThread.start();

        String xid =
            SourceTransactions.commit(
                source,
                "INSERT INTO item SELECT g, repeat('n', 40) || g FROM"
                    + " generate_series(1, "
                    + ROWS
                    + ") g");
        // kill once the sink's own transaction on the target has written rows of it (xid assigned)
        String writing =
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND backend_xid IS NOT NULL AND state IN ('active', 'idle in transaction')"
                + " AND pid <> pg_backend_pid()";
        await("the sink writing the transaction into an open target transaction")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(5))
            .until(() -> target.queryLong(writing) > 0);
        worker.kill();
        long killedAt = System.nanoTime();
        assertThat(target.queryLong("SELECT count(*) FROM item"))
            .as("rows visible at the kill")
            .isEqualTo(1);
        assertThat(
                target.queryLong(
                    "SELECT count(*) FROM trellara_sink.applied_transactions WHERE"
                        + " transaction_id = '"
                        + xid
                        + "'"))
            .as("recorded as applied at the kill")
            .isZero();
        await("the dead worker's target transaction rolled back")
            .atMost(Duration.ofSeconds(30))
            .until(() -> target.queryLong(writing) == 0);

        worker.start();
        rest.awaitRunning(sinkName, 1, WAIT);
        long restartedAt = System.nanoTime();
        await("the transaction applied after the restart")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(50))
            .until(() -> target.queryLong("SELECT count(*) FROM item") == ROWS + 1);
        long appliedAt = System.nanoTime();
        SourceTransactions.commit(source, "INSERT INTO item VALUES (-1, 'after')");
        await("a later transaction applied")
            .atMost(WAIT)
            .until(() -> target.queryLong("SELECT count(*) FROM item") == ROWS + 2);
        reader.stop();
        readerThread.join(5_000);

        String fingerprint =
            "SELECT count(*)::text || ':' || md5(string_agg(t::text, ',' ORDER BY id))"
                + " FROM item t";
        assertThat(target.queryString(fingerprint)).isEqualTo(source.queryString(fingerprint));
        assertThat(
                target.queryLong(
                    "SELECT count(*) FROM trellara_sink.applied_transactions WHERE"
                        + " transaction_id = '"
                        + xid
                        + "'"))
            .as("applied once")
            .isEqualTo(1);
        assertThat(target.queryLong("SELECT count(*) FROM trellara_sink.staged_chunks"))
            .as("nothing staged: applied as its chunks arrived")
            .isZero();
        assertThat(reader.partial.get()).as("reads that saw part of the transaction").isZero();
        assertThat(reader.reads.get()).as("reads").isPositive();
        System.out.printf(
            Locale.ROOT,
            "StreamedBarrierWorkerKillIT: %,d rows strict chunked, worker killed"
                + " while streaming; restart → applied %.1f s (kill → applied %.1f s); %,d reads, 0 partial%n",
            ROWS,
            (appliedAt - restartedAt) / 1e9,
            (appliedAt - killedAt) / 1e9,
            reader.reads.get());
      } finally {
        reader.stop();
        worker.stop();
      }
    }
  }
}
