package io.trellara.testplatform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@EitherPlatform
class TrellaraStackIT {

  private static final Logger LOG = LoggerFactory.getLogger(TrellaraStackIT.class);
  private static TrellaraStack stack;

  private TestScope scope;

  @BeforeAll
  static void startStack() {
    stack = TrellaraStack.get();
    LOG.info("stack start-up (ms): {}", stack.startupMillis());
  }

  @BeforeEach
  void newScope(TestInfo test) {
    scope = stack.newScope(test.getTestMethod().orElseThrow().getName());
  }

  @AfterEach
  void closeScope() {
    scope.close();
  }

  @Test
  void runsTestsInAnUnusualJvmTimeZone() {
    assertThat(TimeZone.getDefault().getID()).isEqualTo("Pacific/Chatham");
  }

  @Test
  void sourcePostgresIsConfiguredForLogicalDecoding() {
    PostgresDatabase db = scope.sourceDatabase();
    assertThat(db.queryString("SHOW wal_level")).isEqualTo("logical");
    assertThat(db.queryString("SHOW server_version")).startsWith("17.");
    // server default (psql, walsenders, background workers); pgjdbc sessions send the JVM's zone
    // instead.
    // Only the embedded servers set it: a stock container keeps the image's own
    if (stack.servers().name().equals("embedded")) {
      assertThat(db.queryString("SHOW log_timezone")).isEqualTo(PostgresServer.DEFAULT_TIME_ZONE);
    }
    assertThat(db.queryString("SELECT boot_val FROM pg_settings WHERE name = 'TimeZone'"))
        .isNotNull();
    assertThat(db.queryString("SHOW TimeZone")).isEqualTo("Pacific/Chatham");
    assertThat(
            db.queryLong(
                "SELECT setting::int FROM pg_settings WHERE name = 'max_replication_slots'"))
        .isEqualTo(40);

    db.execute(
        "CREATE TABLE account (id bigint PRIMARY KEY, balance numeric NOT NULL)",
        "CREATE PUBLICATION " + scope.publicationName() + " FOR TABLE account");
    db.executeInTransaction(
        "INSERT INTO account VALUES (1, 100)", "INSERT INTO account VALUES (2, 50)");
    assertThat(db.queryLong("SELECT sum(balance) FROM account")).isEqualTo(150);

    db.execute("SELECT pg_create_logical_replication_slot('" + scope.slotName() + "', 'pgoutput')");
    assertThat(
            db.queryLong(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"
                    + scope.slotName()
                    + "'"))
        .isEqualTo(1);
    // TestScope.close() drops the slot, then the database
  }

  @Test
  void createsProducesAndReadsRawTopics() {
    KafkaBroker broker = stack.broker();
    String topic = scope.createTopic("raw", 2);
    assertThat(broker.describeTopic(topic).partitions()).hasSize(2);

    broker.produce(topic, 1, bytes("k1"), bytes("v1"), Map.of("kind", bytes("poison")));
    broker.produce(topic, 1, null, new byte[] {0, 1, 2});
    broker.produce(topic, 0, bytes("k0"), bytes("v0"));

    List<KafkaRecord> records = broker.readAll(topic);
    assertThat(records)
        .extracting(KafkaRecord::partition, KafkaRecord::offset)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0, 0L),
            org.assertj.core.groups.Tuple.tuple(1, 0L),
            org.assertj.core.groups.Tuple.tuple(1, 1L));
    assertThat(records.get(1).headerAsString("kind")).isEqualTo("poison");
    assertThat(records.get(1).valueAsString()).isEqualTo("v1");
    assertThat(records.get(2).key()).isNull();
    assertThat(records.get(2).value()).containsExactly(0, 1, 2);

    String group = scope.prefix() + "-group";
    broker.resetConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 1), 2L));
    assertThat(broker.consumerGroupOffsets(group)).containsEntry(new TopicPartition(topic, 1), 2L);
    broker.resetConsumerGroupToEarliest(group, topic);
    assertThat(broker.consumerGroupOffsets(group))
        .containsEntry(new TopicPartition(topic, 1), 0L)
        .containsEntry(new TopicPartition(topic, 0), 0L);

    broker.deleteTopic(topic);
    await().atMost(Duration.ofSeconds(30)).until(() -> !broker.topicExists(topic));
  }

  @Test
  void deploysAClasspathConnectorOverRestAndReadsItsRecords() {
    ConnectRestClient rest = stack.rest();
    assertThat(rest.connectorPluginClasses()).contains(CountingSourceConnector.class.getName());

    String topic = scope.createTopic("counting", 1);
    Map<String, String> config = countingConfig(topic, 250);
    ConnectRestClient.ValidationResult validation =
        rest.validate(CountingSourceConnector.class.getName(), config);
    assertThat(validation.errorCount()).as(validation.messages().toString()).isZero();

    String name = scope.createConnector("counting", config);
    rest.awaitRunning(name);
    await().atMost(Duration.ofSeconds(30)).until(() -> stack.broker().readAll(topic).size() >= 250);

    List<KafkaRecord> records = stack.broker().readAll(topic);
    assertThat(records).hasSize(250);
    assertThat(records.get(0).valueAsString()).isEqualTo("record-0");
    assertThat(records.get(249).headerAsString("seq")).isEqualTo("249");

    rest.pause(name);
    rest.awaitState(name, "PAUSED");
    rest.resume(name);
    rest.awaitRunning(name);
  }

  @Test
  void reportsValidationErrorsAndFailedTasks() {
    ConnectRestClient rest = stack.rest();
    String topic = scope.createTopic("failing", 1);

    ConnectRestClient.ValidationResult invalid =
        rest.validate(CountingSourceConnector.class.getName(), countingConfig(topic, 0));
    assertThat(invalid.errorCount()).isEqualTo(1);
    assertThat(invalid.errors()).containsOnlyKeys("count");

    Map<String, String> failing = new java.util.HashMap<>(countingConfig(topic, 100));
    failing.put("fail.after", "10");
    String name = scope.createConnector("failing", failing);
    ConnectorStatus failed = rest.awaitFailed(name);
    assertThat(failed.firstTrace()).contains("counting task failed on purpose after 10 records");
    assertThatThrownBy(() -> rest.awaitRunning(name)).hasMessageContaining("FAILED");
  }

  @Test
  void connectorComesBackAfterTheWorkerRestartsWithItsOffsets() {
    ConnectRestClient rest = stack.rest();
    String topic = scope.createTopic("restart", 1);
    String name = scope.createConnector("restart", countingConfig(topic, 100));
    rest.awaitRunning(name);
    await().atMost(Duration.ofSeconds(30)).until(() -> stack.broker().readAll(topic).size() >= 100);

    long t0 = System.nanoTime();
    stack.worker().restart();
    rest.awaitRunning(name);
    LOG.info(
        "worker restart until the connector is RUNNING again: {} ms",
        (System.nanoTime() - t0) / 1_000_000);

    // more records: the task resumes from its committed source offset, not from zero
    rest.putConnectorConfig(name, countingConfig(topic, 200));
    rest.awaitRunning(name);
    await().atMost(Duration.ofSeconds(30)).until(() -> distinctValues(topic).size() == 200);
    assertThat(stack.broker().readAll(topic)).hasSize(200);
  }

  @Test
  void postgresStopsAndStartsOnTheSameDataDirectoryAndPort() throws Exception {
    PostgresDatabase db = scope.targetDatabase();
    TestServers.Postgres target = db.server();
    db.execute("CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1), (2)");
    int port = target.port();

    try (Connection held = db.connect()) {
      long t0 = System.nanoTime();
      target.stop();
      LOG.info("PostgreSQL fast shutdown: {} ms", (System.nanoTime() - t0) / 1_000_000);
      assertThat(held.isValid(2)).isFalse();
      assertThatThrownBy(db::connect).isInstanceOf(IllegalStateException.class);
    } finally {
      long t1 = System.nanoTime();
      target.start();
      LOG.info(
          "PostgreSQL start on the existing data directory: {} ms",
          (System.nanoTime() - t1) / 1_000_000);
    }
    assertThat(target.port()).isEqualTo(port);
    assertThat(db.queryLong("SELECT count(*) FROM t")).isEqualTo(2);
    assertThat(db.queryString("SHOW wal_level")).isEqualTo("logical");
  }

  private static Map<String, String> countingConfig(String topic, long count) {
    return Map.of(
        "connector.class",
        CountingSourceConnector.class.getName(),
        "tasks.max",
        "1",
        "topic",
        topic,
        "count",
        Long.toString(count));
  }

  private static Set<String> distinctValues(String topic) {
    return stack.broker().readAll(topic).stream()
        .map(KafkaRecord::valueAsString)
        .collect(Collectors.toSet());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
