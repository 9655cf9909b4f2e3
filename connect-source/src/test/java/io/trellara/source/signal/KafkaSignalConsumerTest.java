package io.trellara.source.signal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class KafkaSignalConsumerTest {
  private static final TopicPartition P0 = new TopicPartition("signals", 0);

  private final MockConsumer<byte[], byte[]> mock = new MockConsumer<>("earliest");

  private static PartitionInfo partition0() {
    Node n = new Node(1, "localhost", 9092);
    return new PartitionInfo("signals", 0, n, new Node[] {n}, new Node[] {n});
  }

  private static ConsumerRecord<byte[], byte[]> record(long offset, String key, String value) {
    return new ConsumerRecord<>(
        "signals",
        0,
        offset,
        key.getBytes(StandardCharsets.UTF_8),
        value.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aMissingTopicIsRetriedThenItsRecordsArriveAndSettledOffsetsAreCommitted() {
    mock.updateBeginningOffsets(Map.of(P0, 0L));
    try (KafkaSignalConsumer c = new KafkaSignalConsumer("signals", () -> mock).start()) {
      // no such topic yet: the consumer retries (logged), nothing arrives, nothing fails
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(2))
          .until(() -> c.next() == null);
      mock.updatePartitions("signals", List.of(partition0()));
      await().atMost(Duration.ofSeconds(10)).until(() -> mock.assignment().contains(P0));
      mock.schedulePollTask(() -> mock.addRecord(record(0, "orders-source", "{\"a\":1}")));
      mock.schedulePollTask(() -> mock.addRecord(record(1, "orders-source", "{\"b\":2}")));
      KafkaSignalInbox.Received[] got = new KafkaSignalInbox.Received[2];
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                KafkaSignalInbox.Received r = c.next();
                if (r != null) {
                  got[(int) r.offset()] = r;
                }
                return got[0] != null && got[1] != null;
              });
      assertThat(got[0].key()).isEqualTo("orders-source");
      assertThat(new String(got[1].value(), StandardCharsets.UTF_8)).isEqualTo("{\"b\":2}");
      assertThat(mock.committed(Set.of(P0)).get(P0)).as("nothing settled yet").isNull();

      c.commit(0, 1);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> mock.committed(Set.of(P0)).get(P0) != null);
      assertThat(mock.committed(Set.of(P0)).get(P0).offset()).isEqualTo(1);
    }
    assertThat(mock.closed()).as("closed with the task").isTrue();
  }

  @Test
  void aBrokerThatFailsEveryPollIsRetriedAndCloseStillReturnsPromptly() {
    mock.updateBeginningOffsets(Map.of(P0, 0L));
    mock.updatePartitions("signals", List.of(partition0()));
    mock.setPollException(new KafkaException("broker unreachable"));
    KafkaSignalConsumer c = new KafkaSignalConsumer("signals", () -> mock).start();
    await().atMost(Duration.ofSeconds(5)).until(() -> mock.assignment().contains(P0));
    long started = System.nanoTime();
    c.close();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    assertThat(mock.closed()).isTrue();
  }

  @Test
  void aClientItsSettingsRefuseIsRetriedNotFatal() {
    mock.updateBeginningOffsets(Map.of(P0, 0L));
    mock.updatePartitions("signals", List.of(partition0()));
    java.util.concurrent.atomic.AtomicInteger attempts =
        new java.util.concurrent.atomic.AtomicInteger();
    try (KafkaSignalConsumer c =
        new KafkaSignalConsumer(
                "signals",
                () -> {
                  if (attempts.incrementAndGet() == 1) {
                    throw new org.apache.kafka.common.config.ConfigException(
                        "sasl.jaas.config", "x");
                  }
                  return mock;
                })
            .start()) {
      await().atMost(Duration.ofSeconds(10)).until(() -> mock.assignment().contains(P0));
      assertThat(attempts.get()).isEqualTo(2);
    }
  }

  @Test
  void theConsumersOwnSettingsWinOverTheUsersAndSecuritySettingsPassThrough() {
    Map<String, Object> c =
        KafkaSignalConsumer.consumerConfig(
            new KafkaSignalSettings(
                "signals",
                Map.of(
                    "bootstrap.servers", "b:9092",
                    "security.protocol", "SASL_SSL",
                    "enable.auto.commit", "true",
                    "auto.offset.reset", "latest"),
                "g-1",
                "orders-source"));
    assertThat(c)
        .containsEntry("bootstrap.servers", "b:9092")
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "g-1")
        .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
        .containsEntry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest")
        .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
  }
}
