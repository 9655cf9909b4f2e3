package io.trellara.source.connect;

import static io.trellara.source.connect.TrellaraSourceConfigTest.errors;
import static io.trellara.source.connect.TrellaraSourceConfigTest.with;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.source.signal.KafkaSignalSettings;
import org.junit.jupiter.api.Test;

/** {@code signal.kafka.*}: defaults, the consumer's client settings, and the cross-field rule. */
class KafkaSignalConfigTest {

  @Test
  void noTopicNoConsumer() {
    assertThat(SignalDefinitions.settings(new TrellaraSourceConfig(with()), "orders")).isNull();
    assertThat(
            SourceSettingsMapper.startupOptions(new TrellaraSourceConfig(with()), "o")
                .kafkaSignals())
        .isNull();
  }

  @Test
  void theBrokersAndGroupDefaultToTheConnectorsAndSecurityComesFromAdminThenConsumerEntries() {
    KafkaSignalSettings s =
        SignalDefinitions.settings(
            new TrellaraSourceConfig(
                with(
                    "signal.kafka.topic", " trellara-signals ",
                    "kafka.admin.security.protocol", "SASL_SSL",
                    "kafka.admin.sasl.mechanism", "PLAIN",
                    "signal.kafka.consumer.sasl.mechanism", "SCRAM-SHA-512")),
            "orders-source");
    assertThat(s.topic()).isEqualTo("trellara-signals");
    assertThat(s.connector()).isEqualTo("orders-source");
    assertThat(s.groupId()).isEqualTo("trellara-signal-orders-source");
    assertThat(s.clientConfig())
        .containsEntry("bootstrap.servers", "127.0.0.1:1")
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512");

    KafkaSignalSettings own =
        SignalDefinitions.settings(
            new TrellaraSourceConfig(
                with(
                    "signal.kafka.topic", "t",
                    "signal.kafka.bootstrap.servers", "other:9092",
                    "signal.kafka.group.id", "my-group")),
            "orders-source");
    assertThat(own.clientConfig()).containsEntry("bootstrap.servers", "other:9092");
    assertThat(own.groupId()).isEqualTo("my-group");
  }

  @Test
  void aTopicWithoutAnyBrokersIsAConfigError() {
    assertThat(errors(with("signal.kafka.topic", "t")))
        .doesNotContainKey(TrellaraSourceConfig.SIGNAL_KAFKA_TOPIC);
    assertThat(errors(with("signal.kafka.topic", "t", "kafka.bootstrap.servers", "")))
        .extractingByKey(TrellaraSourceConfig.SIGNAL_KAFKA_TOPIC)
        .asString()
        .contains("both are empty");
    assertThat(
            errors(
                with(
                    "signal.kafka.topic", "t",
                    "kafka.bootstrap.servers", "",
                    "signal.kafka.bootstrap.servers", "b:9092")))
        .doesNotContainKey(TrellaraSourceConfig.SIGNAL_KAFKA_TOPIC);
  }
}
