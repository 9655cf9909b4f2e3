package io.trellara.source.connect;

import static io.trellara.source.connect.TrellaraSourceConfigTest.errors;
import static io.trellara.source.connect.TrellaraSourceConfigTest.with;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.source.kafka.SourceTopics;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The connector's topic.creation.* settings reach the topics the source creates (the reported
 * failure: topic.creation.default.max.message.bytes=68157440 was asked, both topics were created
 * with the source's own 1016384), and what the records cannot live with is refused on the setting
 * that asks for it.
 */
class TopicCreationRulesTest {

  private static Map<String, String> partitioned(String... kv) {
    Map<String, String> c =
        with(
            "dataset.mode",
            "partitioned_scale_mode",
            "dataset.partitioned.partition_count",
            "4",
            "topic.strict",
            "flow.strict",
            "topic.partitioned",
            "flow.lanes");
    for (int i = 0; i < kv.length; i += 2) {
      c.put(kv[i], kv[i + 1]);
    }
    return c;
  }

  private static Map<String, SourceTopics.Requirement> plan(Map<String, String> props) {
    TrellaraSourceConfig c = new TrellaraSourceConfig(props);
    assertThat(c.crossFieldErrors()).isEmpty();
    Map<String, SourceTopics.Requirement> byTopic = new java.util.HashMap<>();
    SourceSettingsMapper.topicPlan(c).topics().forEach(r -> byTopic.put(r.topic(), r));
    return byTopic;
  }

  @Test
  void aLargerMaxMessageBytesOfTheDefaultGroupIsKeptForBothTopics() {
    Map<String, SourceTopics.Requirement> plan =
        plan(
            partitioned(
                "topic.creation.default.max.message.bytes", "68157440",
                "topic.creation.default.partitions", "-1",
                "topic.creation.default.replication.factor", "1",
                "topic.creation.default.retention.ms", "604800000"));
    assertThat(plan.values())
        .allSatisfy(
            r -> {
              assertThat(r.creationMaxMessageBytes()).isEqualTo(68_157_440L);
              assertThat(r.topicConfigs())
                  .containsEntry("max.message.bytes", "68157440")
                  .containsEntry("retention.ms", "604800000")
                  .doesNotContainKeys("partitions", "replication.factor");
              assertThat(r.replicationFactor()).isEqualTo((short) 1);
            });
    assertThat(plan.get("flow.lanes").partitions()).isEqualTo(4);
  }

  @Test
  void withoutTopicCreationSettingsTheTopicsGetWhatTheirRecordsNeed() {
    assertThat(plan(partitioned()).values())
        .allSatisfy(
            r -> {
              assertThat(r.creationMaxMessageBytes()).isEqualTo(1_000_000L + 16 * 1024);
              assertThat(r.topicConfigs()).containsOnlyKeys("max.message.bytes");
              assertThat(r.replicationFactor()).isEqualTo((short) -1);
            });
  }

  @Test
  void aTopicTakesTheFirstGroupThatIncludesItAndDoesNotExcludeIt() {
    Map<String, SourceTopics.Requirement> plan =
        plan(
            partitioned(
                "topic.creation.groups", "other, lanes",
                "topic.creation.other.include", "nothing\\..*",
                "topic.creation.other.max.message.bytes", "99999999",
                "topic.creation.lanes.include", "flow\\..*",
                "topic.creation.lanes.exclude", "flow\\.strict",
                "topic.creation.lanes.partitions", "4",
                "topic.creation.lanes.max.message.bytes", "20000000",
                "topic.creation.default.max.message.bytes", "3000000"));
    assertThat(plan.get("flow.lanes").creationMaxMessageBytes()).isEqualTo(20_000_000L);
    assertThat(plan.get("flow.strict").creationMaxMessageBytes()).isEqualTo(3_000_000L);
  }

  @Test
  void aGroupWithoutItsOwnPartitionCountTakesTheDefaultGroupsAsConnectDoes() {
    Map<String, String> errors =
        errors(
            partitioned(
                "topic.creation.default.partitions", "1",
                "topic.creation.groups", "lanes",
                "topic.creation.lanes.include", "flow\\.lanes"));
    assertThat(errors.get("topic.creation.lanes.partitions"))
        .contains("Topic 'flow.lanes'")
        .contains("asks for 1 partition(s)");
    assertThat(errors).doesNotContainKey("topic.creation.default.partitions");
  }

  @Test
  void aMaxMessageBytesBelowTheLargestRecordIsRefusedNamingTheGroupSetting() {
    Map<String, String> errors =
        errors(partitioned("topic.creation.default.max.message.bytes", "1000000"));
    assertThat(errors.get("topic.creation.default.max.message.bytes"))
        .contains("Topic 'flow.strict'")
        .contains("Topic 'flow.lanes'")
        .contains("1016384 bytes (dataset.chunk.max_bytes=1000000")
        .contains("at least 1016384");
  }

  @Test
  void aGroupPartitionCountOtherThanTheTopicsIsRefused() {
    Map<String, String> errors = errors(partitioned("topic.creation.default.partitions", "6"));
    assertThat(errors.get("topic.creation.default.partitions"))
        .contains("Topic 'flow.strict'")
        .contains("requires exactly 1")
        .contains("Topic 'flow.lanes'")
        .contains("dataset.partitioned.partition_count=4 requires exactly 4");
  }

  @Test
  void compactionAContradictingReplicationFactorAndBadValuesAreRefused() {
    assertThat(
            errors(partitioned("topic.creation.default.cleanup.policy", "compact,delete"))
                .get("topic.creation.default.cleanup.policy"))
        .contains("same key");
    assertThat(
            errors(
                    partitioned(
                        "topic.replication.factor",
                        "3",
                        "topic.creation.default.replication.factor",
                        "1"))
                .get("topic.creation.default.replication.factor"))
        .contains("topic.replication.factor=3");
    assertThat(errors(partitioned("topic.creation.default.max.message.bytes", "lots")))
        .containsKey("topic.creation.default.max.message.bytes");
    assertThat(errors(partitioned("topic.creation.default.partitions", "0")))
        .containsKey("topic.creation.default.partitions");
    assertThat(
            errors(
                partitioned("topic.creation.groups", "g", "topic.creation.g.include", "flow\\.(")))
        .containsKey("topic.creation.g.include");
  }
}
