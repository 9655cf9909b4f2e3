package io.trellara.sink.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class SinkConfigRulesTest {
  private static Map<String, String> valid() {
    Map<String, String> c = new HashMap<>();
    c.put("name", "s");
    c.put("topics", "t");
    c.put("connection.url", "jdbc:postgresql://localhost:5432/db");
    c.put("connection.user", "applier");
    c.put("relation.allowlist", "public.orders");
    c.put("value.converter", "io.trellara.converter.TrellaraConverter");
    c.put("consumer.override.allow.auto.create.topics", "false");
    return c;
  }

  private static List<String> errorsOf(Map<String, String> config, String key) {
    Config result = new TrellaraSinkConnector().validate(config);
    for (ConfigValue v : result.configValues()) {
      if (v.name().equals(key)) {
        return v.errorMessages();
      }
    }
    return List.of();
  }

  @Test
  void acceptsTheSafeMinimum() {
    assertThat(SinkConfigRules.check(valid())).isEmpty();
  }

  @Test
  void refusesAnEmptyAllowlistButAcceptsAStarOnPurpose() {
    Map<String, String> c = valid();
    c.remove("relation.allowlist");
    assertThat(errorsOf(c, "relation.allowlist"))
        .singleElement()
        .asString()
        .contains("'*' on purpose");
    c.put("relation.allowlist", "*");
    assertThat(errorsOf(c, "relation.allowlist")).isEmpty();
  }

  @Test
  void acceptsAConsumerAtKafkasDefaultWhichMayCreateItsTopics() {
    // the source grows a topic created so (never written, 1 partition, 1 MB) to what it needs
    Map<String, String> c = valid();
    c.remove("consumer.override.allow.auto.create.topics");
    assertThat(errorsOf(c, "consumer.override.allow.auto.create.topics")).isEmpty();
    c.put("consumer.override.allow.auto.create.topics", "true");
    assertThat(errorsOf(c, "consumer.override.allow.auto.create.topics")).isEmpty();
  }

  @Test
  void refusesAnOffsetResetThatWouldSkipTheStartOfAPartitionWithoutProgress() {
    Map<String, String> c = valid();
    c.put("consumer.override.auto.offset.reset", "latest");
    assertThat(errorsOf(c, "consumer.override.auto.offset.reset"))
        .singleElement()
        .asString()
        .contains("skipping every transaction before it");
    c.put("consumer.override.auto.offset.reset", "earliest");
    assertThat(errorsOf(c, "consumer.override.auto.offset.reset")).isEmpty();
  }

  @Test
  void refusesAConsumerThatWouldReadAbortedKafkaTransactions() {
    Map<String, String> c = valid();
    c.put("consumer.override.isolation.level", "read_uncommitted");
    assertThat(errorsOf(c, "consumer.override.isolation.level"))
        .singleElement()
        .asString()
        .contains("aborted Kafka transactions");
    assertThatThrownBy(() -> new TrellaraSinkConnector().start(c))
        .hasMessageContaining("consumer.override.isolation.level=read_uncommitted");
    c.put("consumer.override.isolation.level", "read_committed");
    assertThat(errorsOf(c, "consumer.override.isolation.level")).isEmpty();
  }

  @Test
  void replaysDdlTextOnlyWhenTheOperatorSaysItTrustsTheTopicsWriters() {
    Map<String, String> c = valid();
    c.put("ddl.apply", "replay");
    assertThat(errorsOf(c, "ddl.apply")).singleElement().asString().contains("trusts every writer");
    c.put("ddl.replay.trust.topic.writers", "true");
    assertThat(errorsOf(c, "ddl.apply")).isEmpty();
  }

  @Test
  void refusesAMappingIntoTheSinksOwnSchema() {
    Map<String, String> c = valid();
    c.put("relation.mapping", "public.orders:trellara_sink.progress");
    assertThat(errorsOf(c, "relation.mapping")).singleElement().asString().contains("never writes");
  }

  @Test
  void refusesStaticMembershipForMoreThanOneTask() {
    Map<String, String> c = valid();
    c.put("consumer.override.group.instance.id", "s");
    assertThat(errorsOf(c, "consumer.override.group.instance.id")).isEmpty();
    c.put("tasks.max", "3");
    assertThat(errorsOf(c, "consumer.override.group.instance.id"))
        .singleElement()
        .asString()
        .contains("fence each other")
        .contains("tasks.max=1");
  }

  @Test
  void refusesStaticMembershipUnderTheConsumerGroupProtocol() {
    Map<String, String> c = valid();
    c.put("consumer.override.group.protocol", "consumer");
    assertThat(errorsOf(c, "consumer.override.group.protocol")).isEmpty();
    c.put("consumer.override.group.instance.id", "s");
    assertThat(errorsOf(c, "consumer.override.group.instance.id"))
        .singleElement()
        .asString()
        .contains("UnreleasedInstanceIdException");
  }

  @Test
  void refusesClassicOnlyConsumerSettingsUnderTheConsumerGroupProtocol() {
    Map<String, String> c = valid();
    c.put("consumer.override.session.timeout.ms", "6000");
    c.put("consumer.override.heartbeat.interval.ms", "2000");
    assertThat(SinkConfigRules.check(c)).isEmpty();
    c.put("consumer.override.group.protocol", "CONSUMER");
    assertThat(errorsOf(c, "consumer.override.session.timeout.ms"))
        .singleElement()
        .asString()
        .contains("refused by the consumer");
    assertThat(errorsOf(c, "consumer.override.heartbeat.interval.ms")).hasSize(1);
  }

  @Test
  void warnsWhenALostWorkersPartitionsWouldWaitOutTheDefaultSessionTimeout() {
    Map<String, String> c = valid();
    assertThat(SinkConfigRules.warnings(c))
        .singleElement()
        .asString()
        .contains("45 s")
        .contains("consumer.override.group.instance.id");
    c.put("consumer.override.group.instance.id", "s");
    assertThat(SinkConfigRules.warnings(c)).isEmpty();

    c.remove("consumer.override.group.instance.id");
    c.put("tasks.max", "3");
    assertThat(SinkConfigRules.warnings(c))
        .singleElement()
        .asString()
        .contains("consumer.override.session.timeout.ms=6000");
    c.put("consumer.override.session.timeout.ms", "6000");
    assertThat(SinkConfigRules.warnings(c)).isEmpty();

    c.remove("consumer.override.session.timeout.ms");
    c.put("consumer.override.group.protocol", "consumer");
    assertThat(SinkConfigRules.warnings(c))
        .singleElement()
        .asString()
        .contains("group.consumer.session.timeout.ms")
        .contains("classic group protocol");
  }

  @Test
  void theConnectorRefusesToStartOnTheSameRules() {
    Map<String, String> c = valid();
    c.remove("relation.allowlist");
    assertThatThrownBy(() -> new TrellaraSinkConnector().start(c))
        .hasMessageContaining("relation.allowlist");
    assertThatThrownBy(() -> new TrellaraSinkTask().start(c))
        .hasMessageContaining("relation.allowlist");
  }

  /**
   * A transform runs between the converter that verified the checksum and the task: it could hand
   * the task a value other than the bytes the source wrote. Any is refused, at validate() and
   * start.
   */
  @Test
  void refusesAnySingleMessageTransform() {
    Map<String, String> c = valid();
    c.put("transforms", "route");
    c.put("transforms.route.type", "org.apache.kafka.connect.transforms.RegexRouter");
    assertThat(errorsOf(c, "transforms"))
        .singleElement()
        .asString()
        .contains("transforms=route")
        .contains("checksum");
    assertThatThrownBy(() -> new TrellaraSinkConnector().start(c))
        .hasMessageContaining("transforms: ");
    assertThatThrownBy(() -> new TrellaraSinkTask().start(c)).hasMessageContaining("transforms");
    c.put("transforms", " ");
    assertThat(errorsOf(c, "transforms")).isEmpty();
  }

  @Test
  void theFlowSettingsReachTheApplier() {
    Map<String, String> c = valid();
    c.put("source.ids", "shop-primary, shop-replica");
    c.put("dataset.ids", "orders");
    c.put("order.max.lsn.advance.bytes", "1048576");
    var bounds = new TrellaraSinkConfig(c).applyOptions("s").flowBounds();
    assertThat(bounds.sourceIds()).containsExactlyInAnyOrder("shop-primary", "shop-replica");
    assertThat(bounds.configured("shop-primary", "orders")).isTrue();
    assertThat(bounds.configured("intruder", "orders")).isFalse();
    assertThat(bounds.maxLsnAdvanceBytes()).isEqualTo(1L << 20);
    assertThat(new TrellaraSinkConfig(valid()).applyOptions("s").flowBounds().maxLsnAdvanceBytes())
        .isEqualTo(1L << 40);
  }

  /** A retention shorter than a barrier may wait would delete the chunks of a real barrier. */
  @Test
  void refusesAStagingRetentionThatABarrierMayOutwait() {
    Map<String, String> c = valid();
    c.put("staging.retention.ms", "600000");
    assertThat(errorsOf(c, "staging.retention.ms"))
        .singleElement()
        .asString()
        .contains("barrier.max.wait.ms");
    c.put("barrier.max.wait.ms", "60000");
    assertThat(errorsOf(c, "staging.retention.ms")).isEmpty();
  }
}
