package io.trellara.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.source.signal.KafkaSignalValue;
import io.trellara.source.signal.Signal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code trellara snapshot --via kafka}: the record it sends and the producer it sends it with. */
class SignalTopicSenderTest {

  @Test
  void theValueIsTheSignalTablesColumnsAsJsonAndTheSourceReadsItBack() throws Exception {
    SnapshotCommand.Action a = new SnapshotCommand.Action();
    a.tables = java.util.List.of("public.orders", "shop.\"Line Items\"");
    String value = SignalTopicSender.value("cli-1", SnapshotCommand.row(a, null));
    assertThat(value)
        .isEqualTo(
            "{\"id\": \"cli-1\", \"type\": \"snapshot\","
                + " \"data\": \"public.orders\\nshop.\\\"Line Items\\\"\"}");
    Signal s = KafkaSignalValue.parse(value);
    assertThat(s.tables())
        .containsExactly(
            new Signal.TableRequest("public", "orders", null),
            new Signal.TableRequest("shop", "Line Items", null));

    SnapshotCommand.Action stop = new SnapshotCommand.Action();
    stop.stop = true;
    String stopValue = SignalTopicSender.value("cli-2", SnapshotCommand.row(stop, null));
    assertThat(stopValue).contains("\"data\": null");
    assertThat(KafkaSignalValue.parse(stopValue).action()).isEqualTo(Signal.Action.STOP_SNAPSHOT);
  }

  @Test
  void theBrokersAreTheSignalTopicsOwnElseTheConnectorsAndAFileAddsSecurity(@TempDir Path dir)
      throws Exception {
    assertThat(
            SignalTopicSender.brokers(
                Map.of(
                    "signal.kafka.bootstrap.servers", "s:9092", "kafka.bootstrap.servers", "k:1")))
        .isEqualTo("s:9092");
    assertThat(SignalTopicSender.brokers(Map.of("kafka.bootstrap.servers", "k:1")))
        .isEqualTo("k:1");
    Path file = dir.resolve("client.properties");
    Files.writeString(file, "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nacks=1\n");
    Map<String, Object> c = SignalTopicSender.producerConfig("b:9092", file);
    assertThat(c)
        .containsEntry("bootstrap.servers", "b:9092")
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry("acks", "all")
        .containsEntry("max.block.ms", 30_000);
  }
}
