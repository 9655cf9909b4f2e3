package io.trellara.source.signal;

import java.util.Map;

/**
 * Where the source reads its signals from Kafka: {@code signal.kafka.topic}, the consumer's client
 * settings (bootstrap servers and security), its consumer group, and the connector's name, which a
 * signal record's key must equal.
 */
public record KafkaSignalSettings(
    String topic, Map<String, Object> clientConfig, String groupId, String connector) {

  public KafkaSignalSettings {
    clientConfig = Map.copyOf(clientConfig);
  }

  /** The consumer group of a connector's signal consumer when none is set. */
  public static String defaultGroupId(String connector) {
    return "trellara-signal-" + connector;
  }
}
