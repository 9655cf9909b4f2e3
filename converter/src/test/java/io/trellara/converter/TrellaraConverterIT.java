package io.trellara.converter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.ReceivedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The converter in a real Connect worker's converter path, both directions, and its fail-closed
 * stop.
 */
@EitherPlatform
class TrellaraConverterIT {
  private static final TrellaraStack STACK = TrellaraStack.get();

  private static Map<String, String> converters() {
    return Map.of(
        "key.converter",
        "org.apache.kafka.connect.storage.StringConverter",
        "value.converter",
        TrellaraConverter.class.getName());
  }

  @Test
  void workerWritesExactlyTheChecksummedBytesAndSinkTasksReceiveVerifiedMessages() {
    try (TestScope scope = STACK.newScope("converterRoundTrip")) {
      String topic = scope.createTopic("envelopes", 1);
      var source = new java.util.HashMap<>(converters());
      source.putAll(
          Map.of(
              "connector.class",
              SampleEnvelopeSource.class.getName(),
              "topic",
              topic,
              "count",
              "5",
              "tasks.max",
              "1"));
      scope.createConnector("source", source);
      await().atMost(Duration.ofSeconds(60)).until(() -> STACK.broker().readAll(topic).size() == 5);

      List<KafkaRecord> records = STACK.broker().readAll(topic);
      for (KafkaRecord r : records) {
        assertThat(r.headerAsString(MessageKind.HEADER)).isEqualTo("envelope");
        int n = Integer.parseInt(new String(r.key(), StandardCharsets.UTF_8).substring(3));
        TransactionEnvelope expected = SampleTransactions.envelope(n, n % 2 == 0);
        assertThat(r.value()).isEqualTo(TrellaraCodec.encode(expected).bytes());
      }

      CollectingSink.RECEIVED.clear();
      var sink = new java.util.HashMap<>(converters());
      sink.putAll(
          Map.of(
              "connector.class",
              CollectingSink.class.getName(),
              "topics",
              topic,
              "tasks.max",
              "1"));
      scope.createConnector("sink", sink);
      await().atMost(Duration.ofSeconds(60)).until(() -> CollectingSink.RECEIVED.size() == 5);
      assertThat(CollectingSink.RECEIVED)
          .allSatisfy(
              v -> {
                // the verified message, with the bytes its checksum covers, exactly as written
                ReceivedMessage received = (ReceivedMessage) v;
                assertThat(received.message()).isInstanceOf(TransactionEnvelope.class);
                assertThat(received.bytes())
                    .isEqualTo(TrellaraCodec.encode(received.message()).bytes());
              });
    }
  }

  @Test
  void aFlippedByteStopsTheSinkTaskNamingTheRule() {
    try (TestScope scope = STACK.newScope("converterPoison")) {
      String topic = scope.createTopic("poison", 1);
      byte[] bytes = TrellaraCodec.encode(SampleTransactions.envelope(3, false)).bytes();
      bytes[bytes.length / 2] ^= 0x10;
      STACK.broker().produce(topic, 0, "poison".getBytes(StandardCharsets.UTF_8), bytes);
      var sink = new java.util.HashMap<>(converters());
      sink.putAll(
          Map.of(
              "connector.class",
              CollectingSink.class.getName(),
              "topics",
              topic,
              "tasks.max",
              "1"));
      CollectingSink.RECEIVED.clear();
      String name = scope.createConnector("sink", sink);
      var status = STACK.rest().awaitFailed(name);
      assertThat(status.toString()).contains("Trellara message rejected");
      assertThat(CollectingSink.RECEIVED).isEmpty();
    }
  }
}
