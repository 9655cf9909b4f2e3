package io.trellara.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectorConfigs;
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
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The source deployed by REST without {@code kafka.bootstrap.servers} (and without source.id,
 * database.id and dataset.id, which default to the connector's and the database's names), against a
 * broker and a worker at their stock settings (topic auto-creation on, {@code message.max.bytes}
 * 1048588, worker {@code topic.creation.enable} at its default). No topic exists beforehand: Kafka
 * Connect's topic creation makes them from the connector's {@code topic.creation.*} at the first
 * record, the source checks every acknowledgement, and the target equals the source.
 */
@EitherPlatform
class BrokerlessSourceIT {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final TrellaraStack STACK = TrellaraStack.get();
  private static KafkaBroker broker;
  private static ConnectWorker worker;

  @BeforeAll
  static void stockBrokerAndWorker() {
    broker =
        TestServers.current()
            .kafka(KafkaBroker.builder().autoCreateTopics(true).set("message.max.bytes", "1048588"))
            .start();
    worker = ConnectWorker.builder(broker).groupId("brokerless-connect").build().start();
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

  /** The platform's source JSON without brokers and identities, with Connect's topic creation. */
  private static Map<String, String> source(
      TestScope scope, PostgresDatabase db, String topic, Map<String, String> extra) {
    Map<String, String> c =
        new HashMap<>(ConnectorConfigs.source(scope, db, topic, "public.big", Map.of()));
    for (String key :
        List.of("kafka.bootstrap.servers", "source.id", "database.id", "dataset.id")) {
      c.remove(key);
    }
    c.put("snapshot.mode", "never");
    c.put("topic.creation.default.partitions", "1");
    c.put("topic.creation.default.replication.factor", "-1");
    c.put("topic.creation.default.max.message.bytes", ConnectorConfigs.MAX_MESSAGE_BYTES);
    c.putAll(extra);
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

  private static String topicConfig(String topic, String key) throws Exception {
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Config config = broker.admin().describeConfigs(List.of(r)).all().get().get(r);
    return config.get(key).value();
  }

  @Test
  void aStrictSourceWithoutBrokersReplicatesThroughConnectsTopicCreation() throws Exception {
    try (TestScope scope = STACK.newScope("brokerlessStrict")) {
      try {
        PostgresDatabase source = scope.sourceDatabase();
        PostgresDatabase target = scope.targetDatabase();
        bigTable(source, target);
        String topic = scope.topic("strict");
        assertThat(broker.topicExists(topic)).isFalse();

        String src = scope.connectorName("source");
        rest().createConnector(src, source(scope, source, topic, Map.of()));
        rest().awaitRunning(src);
        assertThat(broker.topicExists(topic))
            .as("nothing created before the first record")
            .isFalse();
        String sink = scope.connectorName("sink");
        rest().createConnector(sink, ConnectorConfigs.sink(target, topic, Map.of()));
        rest().awaitRunning(sink);

        source.executeInTransaction(
            "INSERT INTO big SELECT g, repeat(md5(g::text), 4) FROM generate_series(1, 20000) g");
        for (int i = 1; i <= 20; i++) {
          source.executeInTransaction(
              "UPDATE big SET payload = 'moved " + i + "' WHERE id = " + i,
              "DELETE FROM big WHERE id = " + (20000 - i));
        }
        awaitApplied("the transactions applied", src, sink, source, target);

        // Connect created the topic as the connector's topic.creation.* asked
        assertThat(broker.describeTopic(topic).partitions()).hasSize(1);
        assertThat(topicConfig(topic, "max.message.bytes"))
            .isEqualTo(ConnectorConfigs.MAX_MESSAGE_BYTES);
        List<KafkaRecord> records = broker.readAll(topic);
        assertThat(records).hasSize(21);
        assertThat(records.get(0).value().length)
            .as("one envelope above the broker's 1 MB default")
            .isGreaterThan(1_048_588);
        // the identities defaulted: source.id = the connector's name, dataset/database = dbname
        assertThat(target.queryLong("SELECT count(*) FROM trellara_sink.applied_transactions"))
            .isEqualTo(21);
        assertThat(
                target.queryString(
                    "SELECT string_agg(DISTINCT source_id, ',') FROM"
                        + " trellara_sink.applied_transactions"))
            .isEqualTo(src);
        assertThat(rest().status(src).isFailed()).isFalse();
        System.out.printf(
            "brokerless strict: %d records, first envelope %,d bytes%n",
            records.size(), records.get(0).value().length);
      } finally {
        deleteConnectors(scope);
      }
    }
  }

  @Test
  void aPartitionedSourceWithoutBrokersGetsItsLanesFromAGroupOfItsOwn() {
    try (TestScope scope = STACK.newScope("brokerlessLanes")) {
      try {
        PostgresDatabase source = scope.sourceDatabase();
        PostgresDatabase target = scope.targetDatabase();
        bigTable(source, target);
        String strict = scope.topic("strict");
        String lanes = scope.topic("lanes");
        Map<String, String> extra = new HashMap<>();
        extra.put("dataset.mode", "partitioned_scale_mode");
        extra.put("dataset.partitioned.partition_count", "4");
        extra.put("topic.partitioned", lanes);
        extra.put("topic.creation.default.max.message.bytes", "1016384");
        extra.put("topic.creation.groups", "lanes");
        extra.put("topic.creation.lanes.include", lanes.replace(".", "\\."));
        extra.put("topic.creation.lanes.partitions", "4");
        extra.put("topic.creation.lanes.max.message.bytes", "1016384");
        String src = scope.connectorName("source");
        rest().createConnector(src, source(scope, source, strict, extra));
        rest().awaitRunning(src);
        String sink = scope.connectorName("sink");
        rest().createConnector(sink, ConnectorConfigs.sink(target, strict + "," + lanes, Map.of()));
        rest().awaitRunning(sink);
        source.executeInTransaction(
            "INSERT INTO big SELECT g, md5(g::text) FROM generate_series(1, 2000) g");
        source.executeInTransaction("UPDATE big SET payload = 'x' WHERE id % 7 = 0");
        awaitApplied("the partitioned transactions applied", src, sink, source, target);
        assertThat(broker.describeTopic(strict).partitions()).hasSize(1);
        assertThat(broker.describeTopic(lanes).partitions()).hasSize(4);
      } finally {
        deleteConnectors(scope);
      }
    }
  }

  @Test
  void withoutBrokersValidationRefusesASnapshotAndMissingTopicCreationByName() {
    try (TestScope scope = STACK.newScope("brokerlessRefused")) {
      try {
        PostgresDatabase source = scope.sourceDatabase();
        source.execute("CREATE TABLE big (id int PRIMARY KEY, payload text NOT NULL)");
        Map<String, String> config = source(scope, source, scope.topic("strict"), Map.of());
        config.remove("snapshot.mode"); // initial, the default
        config.remove("topic.creation.default.max.message.bytes");
        ConnectRestClient.ValidationResult v =
            rest().validate(ConnectorConfigs.SOURCE_CLASS, config);
        assertThat(v.errors().get("snapshot.mode"))
            .anySatisfy(m -> assertThat(m).contains("snapshot.mode=initial needs to tell"));
        assertThat(v.errors().get("topic.creation.default.max.message.bytes"))
            .anySatisfy(m -> assertThat(m).contains("sets no max.message.bytes"));
        assertThatThrownBy(() -> rest().createConnector(scope.connectorName("source"), config))
            .isInstanceOf(ConnectRestClient.ConnectRestException.class)
            .hasMessageContaining("exactly.once.support=required");
      } finally {
        deleteConnectors(scope);
      }
    }
  }
}
