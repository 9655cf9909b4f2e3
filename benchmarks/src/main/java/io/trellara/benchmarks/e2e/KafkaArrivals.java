package io.trellara.benchmarks.e2e;

import io.trellara.protocol.MessageKind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * When each record of a topic reaches a consumer of its own (the sink's consumer at its defaults,
 * without the sink): splits COMMIT → visible into the source side (capture, producer, broker) and
 * the sink side. Reads from the end of partition 0 on; {@link #arrivals()} are System.nanoTime()
 * per record that closes a transaction (an envelope or a commit marker), in offset order.
 */
final class KafkaArrivals implements AutoCloseable {
  /**
   * The records that close a transaction ({@code trellara.kind}); a record without the header
   * counts too.
   */
  private static final Set<String> CLOSING =
      Set.of(MessageKind.ENVELOPE.wireName(), MessageKind.COMMIT_MARKER.wireName());

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final List<Long> arrivals = new ArrayList<>();
  private final Thread thread;
  private volatile boolean running = true;

  KafkaArrivals(String bootstrapServers, String topic) {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers",
                bootstrapServers,
                "group.id",
                "bench-arrivals-" + UUID.randomUUID(),
                "enable.auto.commit",
                "false"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
    TopicPartition tp = new TopicPartition(topic, 0);
    consumer.assign(List.of(tp));
    consumer.seekToEnd(List.of(tp));
    consumer.position(tp);
    thread = new Thread(this::run, "bench-arrivals");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    while (running) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
        long now = System.nanoTime();
        Header kind = r.headers().lastHeader(MessageKind.HEADER);
        if (kind != null && !CLOSING.contains(new String(kind.value(), StandardCharsets.UTF_8))) {
          continue; // a chunk or manifest: its transaction arrives with its envelope or commit
          // marker
        }
        synchronized (arrivals) {
          arrivals.add(now);
        }
      }
    }
    consumer.close();
  }

  List<Long> arrivals() {
    synchronized (arrivals) {
      return List.copyOf(arrivals);
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(5000);
  }
}
