package io.trellara.source.connect;

import static io.trellara.source.connect.SourceConnectorIT.STACK;
import static io.trellara.source.connect.SourceConnectorIT.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.Operation;
import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Issue 27: a transaction whose records are on the topic is not read or published again because
 * Connect had not flushed its offsets. A worker in a JVM of its own, flushing offsets once an hour,
 * is killed (SIGKILL) after the source published a snapshot or streamed transactions; the restarted
 * task resumes from the topic's tail. Every row is counted over every record of the topic: each
 * must be on it exactly once, in one snapshot at most.
 */
@EitherPlatform
class OffsetRecoveryIT {
  static final String TABLES = "public.alpha,public.beta,public.gamma";
  static final Duration RESTART = Duration.ofSeconds(120);

  private static void createTables(PostgresDatabase db, int rowsEach) {
    for (String t : new String[] {"alpha", "beta", "gamma"}) {
      db.execute("CREATE TABLE " + t + " (id int PRIMARY KEY, note text)");
      if (rowsEach > 0) {
        db.execute(
            "INSERT INTO "
                + t
                + " SELECT g, 'seed ' || g FROM generate_series(1, "
                + rowsEach
                + ") g");
      }
    }
  }

  /** A worker of its own that flushes source offsets once an hour: a kill loses them. */
  private static ConnectWorkerProcess worker(TestScope scope) {
    return ConnectWorker.builder(STACK.broker())
        .groupId(scope.prefix() + "-kill")
        .set("offset.flush.interval.ms", "3600000")
        .set("session.timeout.ms", "6000")
        .set("heartbeat.interval.ms", "1000")
        .jvmArg("-Xmx384m")
        .buildProcess();
  }

  /** How often each row (table/id) is inserted over every record of the topic. */
  static Map<String, Integer> insertsPerRow(String topic) {
    Map<String, Integer> rows = new TreeMap<>();
    for (KafkaRecord r : STACK.broker().readAll(topic)) {
      MessageKind kind = MessageKind.fromWireName(r.headerAsString(MessageKind.HEADER));
      List<ChangeRecord> changes =
          switch (kind) {
            case ENVELOPE -> TrellaraCodec.decodeEnvelope(r.value()).getChangesList();
            case CHUNK -> TrellaraCodec.decodeChunk(r.value()).getChangesList();
            default -> List.of();
          };
      for (ChangeRecord c : changes) {
        if (c.getOperation() == Operation.OPERATION_INSERT) {
          rows.merge(
              c.getRelation().getTable() + "/" + c.getAfter().getColumns(0).getText(),
              1,
              Integer::sum);
        }
      }
    }
    return rows;
  }

  /** Closing records (envelopes, commit markers) per transaction key. */
  static Map<String, Integer> closingRecordsPerTransaction(String topic) {
    Map<String, Integer> keys = new TreeMap<>();
    for (KafkaRecord r : STACK.broker().readAll(topic)) {
      String kind = r.headerAsString(MessageKind.HEADER);
      if (kind.equals("envelope") || kind.equals("commit_marker")) {
        keys.merge(r.keyAsString(), 1, Integer::sum);
      }
    }
    return keys;
  }

  static long snapshots(String topic) {
    return closingRecordsPerTransaction(topic).keySet().stream()
        .filter(k -> k.endsWith(":snapshot"))
        .count();
  }

  /** Records of the worker's offsets topic that belong to {@code connector}. */
  static long storedOffsets(String workerGroup, String connector) {
    return STACK.broker().readAll(workerGroup + "-offsets").stream()
        .filter(
            r -> new String(r.key(), StandardCharsets.UTF_8).startsWith("[\"" + connector + "\""))
        .count();
  }

  private static void killAndRestart(
      ConnectWorkerProcess worker, TestScope scope, PostgresDatabase db, String connector) {
    worker.kill();
    assertThat(storedOffsets(scope.prefix() + "-kill", connector))
        .as("Connect flushed no offset of the source before the kill")
        .isZero();
    await("slot released")
        .atMost(WAIT)
        .until(() -> db.activeReplicationSlots(scope.slotName()) == 0);
    worker.start();
    await("the restarted task streams")
        .atMost(RESTART)
        .until(() -> db.activeReplicationSlots(scope.slotName()) == 1);
  }

  private static void assertEachRowOnceAndOneSnapshot(String topic, int rows) {
    Map<String, Integer> counts = insertsPerRow(topic);
    assertThat(counts).hasSize(rows);
    assertThat(counts.entrySet().stream().filter(e -> e.getValue() != 1).toList())
        .as("rows published more than once")
        .isEmpty();
    assertThat(
            closingRecordsPerTransaction(topic).entrySet().stream()
                .filter(e -> e.getValue() != 1)
                .toList())
        .as("transactions published more than once")
        .isEmpty();
    assertThat(snapshots(topic)).as("snapshots on the topic").isLessThanOrEqualTo(1);
  }

  @Test
  void aPublishedSnapshotIsNotTakenAgainAfterAKillBeforeConnectFlushedItsOffsets() {
    try (TestScope scope = STACK.newScope("killAfterSnapshot");
        ConnectWorkerProcess worker = worker(scope)) {
      PostgresDatabase db = scope.sourceDatabase();
      createTables(db, 3_000);
      String topic = scope.createTopic("strict", 1);
      worker.start();
      ConnectRestClient rest = worker.rest();
      String name = scope.connectorName("source");
      rest.createConnector(name, ConnectorConfigs.source(scope, db, topic, TABLES, Map.of()));
      await("the snapshot's commit marker").atMost(WAIT).until(() -> snapshots(topic) == 1);
      assertThat(insertsPerRow(topic)).hasSize(9_000);

      killAndRestart(worker, scope, db, name);
      db.execute("INSERT INTO alpha VALUES (100001, 'after the restart')");
      db.execute("INSERT INTO beta VALUES (100001, 'after the restart')");
      await("rows inserted after the restart on the topic")
          .atMost(WAIT)
          .until(
              () ->
                  insertsPerRow(topic)
                      .keySet()
                      .containsAll(List.of("alpha/100001", "beta/100001")));

      assertEachRowOnceAndOneSnapshot(topic, 9_002);
      assertThat(snapshots(topic)).isEqualTo(1);
      assertThat(worker.logTail() + readLog(worker))
          .contains("Start position: the topic's: Connect holds no offset for this source");
      rest.deleteAndAwait(name);
    }
  }

  @Test
  void streamedTransactionsAreNotPublishedAgainAfterAKillBeforeConnectFlushedItsOffsets() {
    try (TestScope scope = STACK.newScope("killAfterStream");
        ConnectWorkerProcess worker = worker(scope)) {
      PostgresDatabase db = scope.sourceDatabase();
      createTables(db, 0); // an empty snapshot publishes nothing: only streamed transactions
      String topic = scope.createTopic("strict", 1);
      worker.start();
      ConnectRestClient rest = worker.rest();
      String name = scope.connectorName("source");
      rest.createConnector(name, ConnectorConfigs.source(scope, db, topic, TABLES, Map.of()));
      await().atMost(WAIT).until(() -> db.activeReplicationSlots(scope.slotName()) == 1);
      for (int i = 1; i <= 20; i++) {
        db.executeInTransaction(
            "INSERT INTO alpha VALUES (" + i + ", 'tx')",
            "INSERT INTO gamma VALUES (" + i + ", 'tx')");
      }
      await("20 transactions on the topic")
          .atMost(WAIT)
          .until(() -> closingRecordsPerTransaction(topic).size() == 20);

      killAndRestart(worker, scope, db, name);
      db.execute("INSERT INTO beta VALUES (1, 'after the restart')");
      await("the row inserted after the restart on the topic")
          .atMost(WAIT)
          .until(() -> insertsPerRow(topic).containsKey("beta/1"));

      assertEachRowOnceAndOneSnapshot(topic, 41);
      assertThat(snapshots(topic)).isZero();
      assertThat(closingRecordsPerTransaction(topic)).hasSize(21);
      rest.deleteAndAwait(name);
    }
  }

  /**
   * An offset stored under the partition key order an earlier version wrote about half of the time
   * ({@code {slot, source_id}}) is found: the connector resumes from it on a fresh topic whose tail
   * holds nothing, so only that offset can say a snapshot was taken.
   */
  @Test
  void anOffsetStoredUnderTheOtherKeyOrderIsFound() throws Exception {
    try (TestScope scope = STACK.newScope("legacyKeyOrder")) {
      PostgresDatabase db = scope.sourceDatabase();
      createTables(db, 100);
      String first = scope.createTopic("strict", 1);
      String second = scope.createTopic("strict2", 1);
      Map<String, String> config = ConnectorConfigs.source(scope, db, first, TABLES, Map.of());
      String name = scope.createConnector("source", config);
      await().atMost(WAIT).until(() -> snapshots(first) == 1);
      db.execute("INSERT INTO alpha VALUES (101, 'streamed')");
      await().atMost(WAIT).until(() -> insertsPerRow(first).containsKey("alpha/101"));
      ConnectRestClient rest = STACK.rest();
      rest.stop(name);
      rest.awaitState(name, "STOPPED");
      JsonNode stored = rest.offsets(name).get("offsets").get(0);
      String offset = stored.get("offset").toString();
      assertThat(offset).contains("end_lsn");
      rest.resetOffsets(name);
      rest.alterOffsets(
          name,
          "{\"offsets\":[{\"partition\":{\"slot\":\""
              + scope.slotName()
              + "\",\"source_id\":\""
              + config.get("source.id")
              + "\"},\"offset\":"
              + offset
              + "}]}");
      assertThat(rest.offsets(name).get("offsets").get(0).get("partition").fieldNames().next())
          .as("stored under the other key order")
          .isEqualTo("slot");
      Map<String, String> moved = new HashMap<>(config);
      moved.put("topic.strict", second);
      rest.putConnectorConfig(name, moved);
      rest.resume(name);
      rest.awaitRunning(name);
      db.execute("INSERT INTO beta VALUES (102, 'streamed after the move')");
      await().atMost(WAIT).until(() -> insertsPerRow(second).containsKey("beta/102"));
      assertThat(insertsPerRow(second))
          .as("no snapshot on the new topic: the offset said one was taken")
          .containsOnlyKeys("beta/102");
    }
  }

  private static String readLog(ConnectWorkerProcess worker) {
    try {
      return java.nio.file.Files.readString(worker.logFile());
    } catch (java.io.IOException e) {
      return "";
    }
  }
}
