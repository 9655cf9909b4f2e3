package io.trellara.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends a signal to a source connector through its {@code signal.kafka.topic}: one record keyed
 * with the connector's name, whose value is the signal as JSON ({@code {"id", "type", "data"}}, the
 * signal table's columns). Waits, bounded, until the broker has it (acks=all).
 */
final class SignalTopicSender {
  static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);

  private SignalTopicSender() {}

  /** The record's value: the signal table's three columns as a JSON object. */
  static String value(String id, SnapshotCommand.SignalRow row) {
    return "{\"id\": "
        + Json.quote(id)
        + ", \"type\": "
        + Json.quote(row.type())
        + ", \"data\": "
        + Json.quote(row.data())
        + "}";
  }

  /** The brokers: the connector's signal.kafka.bootstrap.servers, else kafka.bootstrap.servers. */
  static String brokers(Map<String, String> connectorConfig) {
    String own = connectorConfig.getOrDefault("signal.kafka.bootstrap.servers", "").strip();
    return own.isEmpty()
        ? connectorConfig.getOrDefault("kafka.bootstrap.servers", "").strip()
        : own;
  }

  /** The producer's settings: a properties file's (security), the brokers, bounded waits. */
  static Map<String, Object> producerConfig(String brokers, Path clientConfig) throws IOException {
    Map<String, Object> c = new HashMap<>();
    if (clientConfig != null) {
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(clientConfig)) {
        p.load(r);
      }
      p.forEach((k, v) -> c.put(k.toString(), v));
    }
    c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    c.put(ProducerConfig.ACKS_CONFIG, "all");
    c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) SEND_TIMEOUT.toMillis());
    c.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) SEND_TIMEOUT.toMillis());
    c.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) SEND_TIMEOUT.toMillis() / 2);
    c.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    c.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none"); // the CLI carries no codecs (pom.xml)
    c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    return c;
  }

  /** Sends it; the partition and offset the broker stored it at. */
  static RecordMetadata send(
      Map<String, Object> producerConfig, String topic, String connector, String value)
      throws IOException {
    try (KafkaProducer<String, String> p = new KafkaProducer<>(producerConfig)) {
      return p.send(new ProducerRecord<>(topic, connector, value))
          .get(SEND_TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException(
          "the signal could not be sent to topic " + topic + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while sending the signal to topic " + topic, e);
    }
  }
}
