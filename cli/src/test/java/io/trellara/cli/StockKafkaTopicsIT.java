package io.trellara.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TestServers;
import io.trellara.testplatform.TrellaraStack;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End to end (it lives here because this module has source, sink and converter on its test class
 * path). The source against a broker at Kafka's stock settings: topic auto-creation on, {@code
 * message.max.bytes} at its default (1048588), no topic created beforehand, the sink registered
 * before the source as users do. The source creates its topics itself with the partition count and
 * {@code max.message.bytes} its records need, and refuses (instead of hanging on) a partitioned
 * topic with the wrong partition count.
 *
 * <p>The sink, subscribing first, has the broker create the strict topic at broker defaults (1
 * partition, 1 MB) before the source starts; the source finds it never written and raises its
 * {@code max.message.bytes}. A topic that holds records is never changed: one with too few
 * partitions is refused, naming topic and counts.
 */
@EitherPlatform
class StockKafkaTopicsIT {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final TrellaraStack STACK = TrellaraStack.get();
  private static KafkaBroker broker;
  private static ConnectWorker worker;

  @BeforeAll
  static void stockBrokerAndWorker() {
    // KafkaBroker's test defaults turn auto-creation off and raise message.max.bytes: undo both (a
    // container
    // broker runs at stock settings anyway)
    broker =
        TestServers.current()
            .kafka(KafkaBroker.builder().autoCreateTopics(true).set("message.max.bytes", "1048588"))
            .start();
    worker = ConnectWorker.builder(broker).groupId("stock-kafka-connect").build().start();
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  private static ConnectRestClient rest() {
    return worker.rest();
  }

  private static Map<String, String> source(
      TestScope scope,
      PostgresDatabase db,
      String topic,
      String tables,
      Map<String, String> extra) {
    Map<String, String> c = new HashMap<>(ConnectorConfigs.source(scope, db, topic, tables, extra));
    c.put("kafka.bootstrap.servers", broker.bootstrapServers());
    return c;
  }

  private static void deleteConnectors(TestScope scope) {
    for (String name : rest().connectors()) {
      if (name.startsWith(scope.prefix() + "-")) {
        rest().deleteAndAwait(name);
      }
    }
  }

  private static void bigTable(PostgresDatabase source, PostgresDatabase target) {
    String ddl = "CREATE TABLE big (id int PRIMARY KEY, payload text NOT NULL)";
    source.execute(ddl);
    target.execute(ddl);
  }

  /** Until the target's table equals the source's; fails at once when either connector fails. */
  private static void awaitApplied(
      String what, String src, String sink, PostgresDatabase source, PostgresDatabase target) {
    await(what)
        .atMost(WAIT)
        .failFast("source FAILED", () -> assertThat(rest().status(src).isFailed()).isFalse())
        .failFast("sink FAILED", () -> assertThat(rest().status(sink).isFailed()).isFalse())
        .until(() -> table(target).equals(table(source)));
  }

  private static String table(PostgresDatabase db) {
    return db.queryString(
        "SELECT count(*) || ':' || coalesce(md5(string_agg(b::text, ',' ORDER BY id)), '')"
            + " FROM big b");
  }

  @Test
  void withTheSinkRegisteredFirstAStrictEnvelopeAboveOneMegabyteReplicates() {
    try (TestScope scope = STACK.newScope("stockStrict")) {
      try {
        PostgresDatabase source = scope.sourceDatabase();
        PostgresDatabase target = scope.targetDatabase();
        bigTable(source, target);
        String topic = scope.topic("strict");
        assertThat(broker.topicExists(topic)).isFalse();

        String sink = scope.connectorName("sink");
        // the consumer's default (the test platform's sink config turns it off)
        rest()
            .createConnector(
                sink,
                ConnectorConfigs.sink(
                    target, topic, Map.of("consumer.override.allow.auto.create.topics", "true")));
        rest().awaitRunning(sink);
        await("the sink's consumer has the broker create the topic at its defaults")
            .atMost(WAIT)
            .until(() -> broker.topicExists(topic));
        String src = scope.connectorName("source");
        rest().createConnector(src, source(scope, source, topic, "public.big", Map.of()));
        rest().awaitRunning(src);

        // the source raised the never-written topic's limit to what its largest record needs
        assertThat(broker.describeTopic(topic).partitions()).hasSize(1);
        ConfigEntry maxMessage =
            broker
                .admin()
                .describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, topic)))
                .all()
                .toCompletionStage()
                .toCompletableFuture()
                .join()
                .values()
                .iterator()
                .next()
                .get("max.message.bytes");
        assertThat(Long.parseLong(maxMessage.value()))
            .isEqualTo(Long.parseLong(ConnectorConfigs.SOURCE_MAX_ENVELOPE_BYTES) + 16 * 1024);

        source.executeInTransaction(
            "INSERT INTO big SELECT g, repeat(md5(g::text), 4) FROM"
                + " generate_series(1, 20000) g");
        awaitApplied("the 20,000-row transaction applied", src, sink, source, target);

        List<KafkaRecord> records = broker.readAll(topic);
        assertThat(records).hasSize(1);
        assertThat(records.get(0).value().length)
            .as("one envelope above Kafka's default 1 MB limit")
            .isGreaterThan(1_048_588);
        System.out.printf(
            "stock Kafka: one envelope of %,d bytes for 20,000 rows%n",
            records.get(0).value().length);
      } finally {
        deleteConnectors(scope);
      }
    }
  }

  @Test
  void
      aPartitionedTopicWithTooFewPartitionsIsRefusedAtCreationAndFailsTheStartNamingTopicAndCounts()
          throws Exception {
    try (TestScope scope = STACK.newScope("stockLanes")) {
      try {
        PostgresDatabase source = scope.sourceDatabase();
        source.execute("CREATE TABLE big (id int PRIMARY KEY, payload text NOT NULL)");
        String strict = scope.topic("strict");
        String lanes = scope.topic("lanes");
        Map<String, String> config =
            source(
                scope,
                source,
                strict,
                "public.big",
                Map.of(
                    "dataset.mode",
                    "partitioned_scale_mode",
                    "topic.partitioned",
                    lanes,
                    "dataset.partitioned.partition_count",
                    "6"));
        String src = scope.connectorName("source");
        String expected =
            "Topic '"
                + lanes
                + "' has 3 partition(s), but dataset.partitioned.partition_count=6"
                + " requires exactly 6";

        // created STOPPED while the topic is absent (valid), then the topic appears with 3
        // partitions and
        // a record (a never-written one would be grown: see the next test)
        rest()
            .createConnector(
                new ObjectMapper()
                    .writeValueAsString(
                        Map.of("name", src, "config", config, "initial_state", "STOPPED")));
        broker.createTopic(lanes, 3);
        broker.produce(lanes, 0, new byte[] {1}, new byte[] {1});
        // a new connector is refused by validation ...
        assertThatThrownBy(() -> rest().createConnector(scope.connectorName("again"), config))
            .isInstanceOf(ConnectRestClient.ConnectRestException.class)
            .hasMessageContaining(expected);
        // ... and one that starts against the wrong topic fails at start instead of waiting forever
        rest().resume(src);
        ConnectorStatus status = rest().awaitFailed(src, Duration.ofSeconds(60));
        assertThat(status.firstTrace()).contains(expected, "--partitions 6");
        assertThat(broker.describeTopic(lanes).partitions()).hasSize(3);
        assertThat(broker.endOffsets(lanes).values()).containsExactlyInAnyOrder(1L, 0L, 0L);
      } finally {
        deleteConnectors(scope);
      }
    }
  }

  @Test
  void aNeverWrittenLanesTopicWithTooFewPartitionsIsGrownAndTheFlowReplicates() {
    try (TestScope scope = STACK.newScope("stockGrow")) {
      try {
        PostgresDatabase source = scope.sourceDatabase();
        PostgresDatabase target = scope.targetDatabase();
        bigTable(source, target);
        String strict = scope.topic("strict");
        String lanes = scope.topic("lanes");
        broker.createTopic(lanes, 1); // as the broker's auto-creation makes it: 1 partition, 1 MB
        String src = scope.connectorName("source");
        rest()
            .createConnector(
                src,
                source(
                    scope,
                    source,
                    strict,
                    "public.big",
                    Map.of(
                        "dataset.mode",
                        "partitioned_scale_mode",
                        "topic.partitioned",
                        lanes,
                        "dataset.partitioned.partition_count",
                        "4",
                        "snapshot.mode",
                        "never")));
        rest().awaitRunning(src);
        assertThat(broker.describeTopic(lanes).partitions()).hasSize(4);
        String sink = scope.connectorName("sink");
        rest().createConnector(sink, ConnectorConfigs.sink(target, strict + "," + lanes, Map.of()));
        rest().awaitRunning(sink);
        source.executeInTransaction(
            "INSERT INTO big SELECT g, md5(g::text) FROM generate_series(1, 2000) g");
        awaitApplied("the partitioned transaction applied", src, sink, source, target);
      } finally {
        deleteConnectors(scope);
      }
    }
  }
}
