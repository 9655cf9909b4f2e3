package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Exactly once into Kafka (KIP-618): a worker with {@code exactly.once.source.support=enabled} runs
 * the source with {@code transaction.boundary=connector} and is killed (SIGKILL) while a large
 * strict-chunked transaction is being published. The topic, read committed, must then hold none of
 * it; after the restart it must hold every source transaction exactly once and whole: one commit
 * marker, one manifest, every chunk once (none twice, none missing), while the log, read
 * uncommitted, shows the dead task's chunks that were aborted. The sink (on the plugin worker,
 * which is not killed) reads committed and the target ends equal to the source.
 */
@EitherPlatform
@ExtendWith(PluginWorker.class)
class ExactlyOnceWorkerKillIT {
  private static final int ROWS = Integer.getInteger("trellara.eoskill.rows", 200_000);
  private static final int CHUNK = 1000;

  /** connector (the defence); poll shows what it defends against: the test fails then. */
  private static final String BOUNDARY =
      System.getProperty("trellara.eoskill.boundary", "connector");

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String TABLE = "CREATE TABLE item (id int PRIMARY KEY, note text NOT NULL)";
  private static final String KIND = "trellara.kind";
  private static final Pattern DML = Pattern.compile("dml=(\\d+)");

  @Test
  void aWorkerKilledMidTransactionLeavesEachSourceTransactionOnTheTopicExactlyOnceAndWhole()
      throws Exception {
    TrellaraStack stack = TrellaraStack.get();
    Path pluginPath = PluginWorker.unpackArchive("it-plugin-path-eos-kill");
    try (TestScope scope = stack.newScope("eosKill")) {
      PostgresDatabase source = scope.sourceDatabase();
      PostgresDatabase target = scope.targetDatabase();
      source.execute(TABLE);
      target.execute(TABLE);
      String strict = scope.createTopic("strict", 1);
      ConnectWorkerProcess worker =
          PluginWorker.killableWorkerBuilder(
                  stack, scope.prefix() + "-eos-kill", pluginPath, "512m")
              .exactlyOnceSource()
              .buildProcess();
      String sourceName = scope.connectorName("source");
      String sinkName = scope.connectorName("sink");
      try {
        worker.start();
        ConnectRestClient rest = worker.rest();
        Map<String, String> src =
            new HashMap<>(ConnectorConfigs.source(scope, source, strict, "public.item", Map.of()));
        src.put("dataset.strict_chunking.max_changes_per_chunk", Integer.toString(CHUNK));
        src.put("snapshot.mode", "never"); // the test follows every transaction by its xid
        src.put("exactly.once.support", "required");
        src.put("transaction.boundary", BOUNDARY);
        rest.createConnector(sourceName, src);
        rest.awaitRunning(sourceName);
        Map<String, String> sink =
            new HashMap<>(
                ConnectorConfigs.sink(
                    target, strict, Map.of("consumer.override.isolation.level", "read_committed")));
        PluginWorker.rest().createConnector(sinkName, sink);
        PluginWorker.rest().awaitRunning(sinkName, 1, WAIT);

        String warmUp = SourceTransactions.commit(source, "INSERT INTO item VALUES (0, 'warm-up')");
        await("warm-up applied")
            .atMost(WAIT)
            .until(() -> target.queryLong("SELECT count(*) FROM item") == 1);
        long warmEnd = logEnd(stack, strict);

        String xid =
            SourceTransactions.commit(
                source,
                "INSERT INTO item SELECT g, repeat('n', 40) || g FROM generate_series(1, "
                    + ROWS
                    + ") g");
        // kill once the open Kafka transaction holds a few dozen of its chunks
        await("chunks of the large transaction in the open Kafka transaction")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(10))
            .until(() -> logEnd(stack, strict) > warmEnd + 30);
        worker.kill();
        long killedAt = System.nanoTime();

        List<KafkaRecord> uncommittedAtKill =
            ofTransaction(stack.broker().readAll(strict, IsolationLevel.READ_UNCOMMITTED), xid);
        assertThat(kinds(uncommittedAtKill))
            .as("killed in the middle: chunks written, no commit marker")
            .containsKey("chunk")
            .doesNotContainKey("commit_marker");
        assertThat(ofTransaction(stack.broker().readAll(strict), xid))
            .as("records of the transaction visible read_committed at the kill")
            .isEmpty();
        assertThat(target.queryLong("SELECT count(*) FROM item")).isEqualTo(1);

        worker.start();
        rest.awaitRunning(sourceName, 1, WAIT);
        await("the transaction applied after the restart")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> target.queryLong("SELECT count(*) FROM item") == ROWS + 1);
        long appliedAt = System.nanoTime();
        String after = SourceTransactions.commit(source, "INSERT INTO item VALUES (-1, 'after')");
        await("a later transaction applied")
            .atMost(WAIT)
            .until(() -> target.queryLong("SELECT count(*) FROM item") == ROWS + 2);

        List<KafkaRecord> committed = stack.broker().readAll(strict);
        List<KafkaRecord> big = ofTransaction(committed, xid);
        List<KafkaRecord> chunks =
            big.stream().filter(r -> "chunk".equals(r.headerAsString(KIND))).toList();
        Set<String> distinctChunks = new HashSet<>();
        chunks.forEach(r -> distinctChunks.add(java.util.Arrays.toString(digest(r.value()))));
        assertThat(kinds(big))
            .as("the large transaction on the topic, read committed")
            .containsEntry("manifest", 1L)
            .containsEntry("commit_marker", 1L)
            .containsEntry("chunk", (long) ((ROWS + CHUNK - 1) / CHUNK));
        assertThat(distinctChunks).as("no chunk twice").hasSize(chunks.size());
        assertThat(chunks.stream().mapToLong(r -> dml(r)).sum())
            .as("no change missing: the chunks' changes add up")
            .isEqualTo(ROWS);
        for (String other : List.of(warmUp, after)) {
          // a one-row transaction is one chunk, its manifest and its marker: each once
          assertThat(kinds(ofTransaction(committed, other)))
              .as("transaction " + other)
              .containsExactlyInAnyOrderEntriesOf(
                  Map.of("chunk", 1L, "manifest", 1L, "commit_marker", 1L));
        }
        long aborted =
            ofTransaction(stack.broker().readAll(strict, IsolationLevel.READ_UNCOMMITTED), xid)
                    .size()
                - big.size();
        assertThat(aborted)
            .as("the dead task's chunks, in the log but aborted")
            .isGreaterThanOrEqualTo(kinds(uncommittedAtKill).get("chunk"));

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
        System.out.printf(
            Locale.ROOT,
            "ExactlyOnceWorkerKillIT: %,d rows in %,d chunks, worker killed with %,d chunks in the"
                + " open Kafka transaction; %,d aborted records in the log, 0 committed twice;"
                + " kill → applied %.1f s%n",
            ROWS,
            chunks.size(),
            kinds(uncommittedAtKill).get("chunk"),
            aborted,
            (appliedAt - killedAt) / 1e9);
      } finally {
        worker.stop();
        PluginWorker.deleteConnectors(scope);
      }
    }
  }

  private static long logEnd(TrellaraStack stack, String topic) {
    return stack.broker().endOffsets(topic).values().stream().mapToLong(Long::longValue).sum();
  }

  /** The records whose key (the display key {@code source/db:lsn:xid}) names {@code xid}. */
  private static List<KafkaRecord> ofTransaction(List<KafkaRecord> records, String xid) {
    return records.stream().filter(r -> r.keyAsString().endsWith(":" + xid)).toList();
  }

  private static Map<String, Long> kinds(List<KafkaRecord> records) {
    return records.stream()
        .collect(
            Collectors.groupingBy(
                r -> r.headerAsString(KIND), TreeMap::new, Collectors.counting()));
  }

  private static long dml(KafkaRecord r) {
    Matcher m = DML.matcher(r.headerAsString("trellara.counts"));
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  private static byte[] digest(byte[] value) {
    try {
      return java.security.MessageDigest.getInstance("SHA-256").digest(value);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
