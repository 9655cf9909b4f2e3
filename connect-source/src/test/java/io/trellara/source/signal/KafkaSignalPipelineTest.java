package io.trellara.source.signal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.source.capture.SyntheticStream;
import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.pg.PgEndpoint;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.replication.BoundarySettings;
import io.trellara.source.replication.Outbound;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.replication.TransactionPipeline;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The signal topic inside the stream's pipeline (no signal table): a record is taken only between
 * transactions, never inside one, and every message still reaches the pipeline in front. The source
 * database is a closed port here, so a snapshot signal is refused (its tables cannot be looked up)
 * and settled at once: KafkaSignalIT carries one out.
 */
class KafkaSignalPipelineTest {
  private static final TopicPartition P0 = new TopicPartition("signals", 0);

  @TempDir Path spill;
  private final List<PgOutputMessage> passed = new ArrayList<>();
  private final MockConsumer<byte[], byte[]> mock = new MockConsumer<>("earliest");
  private TransactionPipeline pipeline;

  @BeforeEach
  void pipeline() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: connections to it are refused
    }
    SourceSettings settings =
        new SourceSettings(
            new PgEndpoint("127.0.0.1", port, "db", "u", "", "disable", "", "", "", ""),
            "src",
            "db",
            "flow",
            "slot",
            "pub",
            false,
            List.of(),
            2,
            true,
            1000,
            1000,
            0,
            true,
            false,
            spill,
            1 << 20,
            1 << 20,
            16,
            1 << 20,
            BoundarySettings.strict(),
            CapturedTables.NONE);
    Node n = new Node(1, "localhost", 9092);
    mock.updatePartitions(
        "signals", List.of(new PartitionInfo("signals", 0, n, new Node[] {n}, new Node[] {n})));
    mock.updateBeginningOffsets(Map.of(P0, 0L));
    KafkaSignalSettings kafka = new KafkaSignalSettings("signals", Map.of(), "g", "orders-source");
    pipeline =
        SignalPipeline.factory(
                settings,
                null,
                new SignalPipeline.KafkaSignals(kafka, () -> 0),
                k -> new KafkaSignalConsumer(k.topic(), () -> mock),
                Recording::new)
            .apply(o -> {});
    await().atMost(Duration.ofSeconds(5)).until(() -> mock.assignment().contains(P0));
  }

  @AfterEach
  void close() {
    pipeline.close();
    assertThat(mock.closed()).as("the consumer closes with the pipeline").isTrue();
  }

  private final class Recording implements TransactionPipeline {
    Recording(java.util.function.Consumer<Outbound> out) {}

    @Override
    public void accept(PgOutputMessage message, ByteBuffer raw, long walStart) {
      passed.add(message);
    }

    @Override
    public boolean idle() {
      return true;
    }

    @Override
    public void close() {}
  }

  private void feed(PgOutputMessage... messages) {
    for (PgOutputMessage m : messages) {
      pipeline.accept(m, SyntheticStream.wire(m), 0);
    }
  }

  private long committed() {
    OffsetAndMetadata o = mock.committed(Set.of(P0)).get(P0);
    return o == null ? 0 : o.offset();
  }

  private void send(long offset, String key, String value) {
    mock.schedulePollTask(
        () ->
            mock.addRecord(
                new ConsumerRecord<>(
                    "signals",
                    0,
                    offset,
                    key.getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8))));
  }

  @Test
  void aKafkaSignalIsTakenBetweenTransactionsNeverInsideOne() throws Exception {
    PgOutputMessage begin = SyntheticStream.begin(0x1000, 700);
    PgOutputMessage relation = SyntheticStream.relation(0, 16_400, "t", 'd', "id:23:k");
    PgOutputMessage insert = SyntheticStream.insert(0, 16_400, "1");
    PgOutputMessage commit = SyntheticStream.commit(0x1000);
    feed(begin, relation);
    send(0, "orders-source", "{\"id\":\"s-1\",\"type\":\"snapshot\",\"data\":\"public.t\"}");
    send(1, "other-source", "{\"id\":\"s-2\",\"type\":\"snapshot\",\"data\":\"public.t\"}");
    // the stream is quiet inside a transaction: the records wait
    long until = System.nanoTime() + Duration.ofMillis(800).toNanos();
    while (System.nanoTime() < until) {
      pipeline.quiet();
      Thread.sleep(20);
    }
    assertThat(committed()).as("not taken inside a transaction").isZero();

    feed(insert, commit);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              pipeline.quiet(); // between transactions: taken, refused (no database), settled
              return committed() == 2;
            });
    assertThat(passed).containsExactly(begin, relation, insert, commit);
    assertThat(pipeline.idle()).isTrue();
  }

  @Test
  void theNextBeginIsABoundaryTooWhenTheStreamIsNeverQuiet() {
    send(0, "orders-source", "{\"id\":\"stop-1\",\"type\":\"stop-snapshot\"}");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              feed(SyntheticStream.begin(0x2000, 701), SyntheticStream.commit(0x2000));
              return committed() == 1;
            });
    assertThat(passed)
        .allMatch(m -> m instanceof PgOutputMessage.Begin || m instanceof PgOutputMessage.Commit);
  }
}
