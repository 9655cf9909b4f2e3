package io.trellara.source.connect;

import static io.trellara.source.connect.TrellaraSourceConfigTest.errors;
import static io.trellara.source.connect.TrellaraSourceConfigTest.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;

/**
 * Without kafka.bootstrap.servers, Kafka Connect's topic creation makes the topics: validate() and
 * the start require what it needs for the flow's records (partition counts per boundary mode, a
 * max.message.bytes for the largest record) and refuse what needs the source's own Kafka access.
 */
class BrokerlessRulesTest {
  private static final String LARGEST = Long.toString(64L * 1024 * 1024 + 16 * 1024);

  /** Strict, no brokers, with everything Connect's topic creation needs. */
  static Map<String, String> brokerless(String... kv) {
    Map<String, String> c =
        with(
            "kafka.bootstrap.servers",
            null,
            "snapshot.mode",
            "never",
            "topic.creation.default.partitions",
            "1",
            "topic.creation.default.replication.factor",
            "-1",
            "topic.creation.default.max.message.bytes",
            LARGEST);
    for (int i = 0; i < kv.length; i += 2) {
      if (kv[i + 1] == null) {
        c.remove(kv[i]);
      } else {
        c.put(kv[i], kv[i + 1]);
      }
    }
    return c;
  }

  /** Partitioned over 4 lanes, the lanes topic in a group of its own. */
  static Map<String, String> partitioned(String... kv) {
    Map<String, String> c =
        brokerless(
            "dataset.mode", "partitioned_scale_mode",
            "dataset.partitioned.partition_count", "4",
            "topic.strict", "flow.strict",
            "topic.partitioned", "flow.lanes",
            "topic.creation.default.max.message.bytes", "1016384",
            "topic.creation.groups", "lanes",
            "topic.creation.lanes.include", "flow\\.lanes",
            "topic.creation.lanes.partitions", "4",
            "topic.creation.lanes.max.message.bytes", "1016384",
            "producer.override.max.request.size", null,
            "producer.override.buffer.memory", null);
    for (int i = 0; i < kv.length; i += 2) {
      c.put(kv[i], kv[i + 1]);
    }
    return c;
  }

  @Test
  void aStrictFlowWithConnectsTopicCreationSettingsIsAccepted() {
    assertThat(errors(brokerless())).isEmpty();
  }

  @Test
  void aPartitionedFlowWithTheLanesInAGroupOfTheirOwnIsAccepted() {
    assertThat(errors(partitioned())).isEmpty();
  }

  @Test
  void withTheBrokersSetNoneOfTheseRulesApply() {
    assertThat(errors(with("snapshot.mode", "initial"))).isEmpty();
  }

  @Test
  void theDefaultGroupsPartitionsAndReplicationFactorAreRequired() {
    Map<String, String> e =
        errors(
            brokerless(
                "topic.creation.default.partitions",
                null,
                "topic.creation.default.replication.factor",
                null));
    assertThat(e.get("topic.creation.default.partitions"))
        .contains("kafka.bootstrap.servers is not set", "topic.creation.default.partitions=1");
    assertThat(e.get("topic.creation.default.replication.factor"))
        .contains("Connect applies topic.creation.* only when");
  }

  @Test
  void theStrictTopicMustBeCreatedWithExactlyOnePartition() {
    for (String partitions : new String[] {"-1", "3"}) {
      assertThat(errors(brokerless("topic.creation.default.partitions", partitions)))
          .as(partitions)
          .containsKey("topic.creation.default.partitions")
          .extractingByKey("topic.creation.default.partitions")
          .asString()
          .contains("requires exactly 1", "kafka.bootstrap.servers is not set")
          .doesNotContain("\n") // one message: TopicCreationRules' (which offers -1) is not added
          .doesNotContain("or -1");
    }
  }

  @Test
  void theLanesTopicMustBeCreatedWithExactlyTheLaneCount() {
    Map<String, String> sameGroup = partitioned("topic.creation.groups", "");
    assertThat(errors(sameGroup).get("topic.creation.default.partitions"))
        .contains("'flow.lanes'", "dataset.partitioned.partition_count=4 requires exactly 4");
    assertThat(errors(partitioned("topic.creation.lanes.partitions", "-1")))
        .extractingByKey("topic.creation.lanes.partitions")
        .asString()
        .contains("the broker's default partition count", "requires exactly 4");
  }

  @Test
  void aMaxMessageBytesForTheLargestRecordMustBeStated() {
    assertThat(errors(brokerless("topic.creation.default.max.message.bytes", null)))
        .extractingByKey("topic.creation.default.max.message.bytes")
        .asString()
        .contains(
            "sets no max.message.bytes", "topic.creation.default.max.message.bytes=" + LARGEST);
    assertThat(errors(brokerless("topic.creation.default.max.message.bytes", "1048588")))
        .extractingByKey("topic.creation.default.max.message.bytes")
        .asString()
        .contains("Raise topic.creation.default.max.message.bytes to at least " + LARGEST);
  }

  @Test
  void aSnapshottingModeNeedsExactlyOnceOffsets() {
    for (String mode : new String[] {"initial", "initial_only", "when_needed"}) {
      assertThat(errors(brokerless("snapshot.mode", mode)))
          .as(mode)
          .extractingByKey("snapshot.mode")
          .asString()
          .contains(
              "snapshot.mode=" + mode, "strict topic's tail", "exactly.once.support=required");
      assertThat(errors(brokerless("snapshot.mode", mode, "exactly.once.support", "required")))
          .as(mode)
          .isEmpty();
    }
    assertThat(errors(brokerless("snapshot.mode", "initial", "exactly.once.support", "requested")))
        .containsKey("snapshot.mode");
  }

  @Test
  void adminClientSettingsAndTheSourcesReplicationFactorHaveNoUseWithoutBrokers() {
    assertThat(errors(brokerless("kafka.admin.security.protocol", "SSL")))
        .extractingByKey("kafka.admin.security.protocol")
        .asString()
        .contains("opens only with kafka.bootstrap.servers");
    assertThat(errors(brokerless("topic.replication.factor", "3")))
        .extractingByKey("topic.replication.factor")
        .asString()
        .contains("topic.creation.default.replication.factor=3");
    assertThat(
            errors(
                brokerless(
                    "topic.replication.factor", "3",
                    "topic.creation.default.replication.factor", "3")))
        .isEmpty();
  }

  @Test
  void validateReportsTheRulesOnTheirSettingsAndTheStartRefusesThem() {
    Map<String, ConfigValue> values =
        SourceSettingsMapper.byName(
            new TrellaraSourceConnector()
                .validate(brokerless("topic.creation.default.partitions", "2")));
    assertThat(values.get("topic.creation.default.partitions").errorMessages())
        .anySatisfy(m -> assertThat(m).contains("requires exactly 1"));
    assertThatThrownBy(
            () -> new TrellaraSourceConnector().start(brokerless("snapshot.mode", "initial")))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("snapshot.mode=initial needs to tell a finished snapshot");
  }

  @Test
  void theConnectorStartsWithoutAnyKafkaClient() {
    // with brokers, start() would try 127.0.0.1:1 and fail after topic.check.timeout.ms
    TrellaraSourceConnector connector = new TrellaraSourceConnector();
    connector.start(brokerless());
    assertThat(connector.taskConfigs(1))
        .singleElement()
        .satisfies(t -> assertThat(t).doesNotContainKey("kafka.bootstrap.servers"));
    connector.stop();
  }
}
