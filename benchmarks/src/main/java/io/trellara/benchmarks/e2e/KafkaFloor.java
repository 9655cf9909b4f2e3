package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.KafkaBroker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What Kafka alone takes on this machine, in the same run as the pipelines: a producer at Kafka's
 * defaults (acks=all, Kafka 4's linger.ms=5, as the worker gives a source task), paced like the
 * latency legs, each record timed from {@code send} to a consumer at Kafka's defaults having it
 * ({@link KafkaArrivals}). No pipeline can deliver faster than this at the same settings.
 */
final class KafkaFloor {
  private KafkaFloor() {}

  static void measure(KafkaBroker broker, int records, long paceMillis) throws Exception {
    String topic = "bench.kafka-floor";
    broker.createTopic(topic, 1, Map.of());
    try (KafkaArrivals arrivals = new KafkaArrivals(broker.bootstrapServers(), topic);
        KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(
                Map.of("bootstrap.servers", broker.bootstrapServers(), "acks", "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
      Thread.sleep(1000); // the consumer is fetching
      byte[] value = new byte[1000];
      List<Long> sent = new ArrayList<>(records);
      List<Double> acked = new ArrayList<>(records);
      long next = System.nanoTime();
      for (int i = 0; i < records; i++) {
        LockSupport.parkNanos(next - System.nanoTime());
        next += TimeUnit.MILLISECONDS.toNanos(paceMillis);
        long t0 = System.nanoTime();
        RecordMetadata ignored = producer.send(new ProducerRecord<>(topic, value)).get();
        acked.add((System.nanoTime() - t0) / 1e6);
        sent.add(t0);
      }
      Thread.sleep(500);
      arrivals.close();
      List<Long> at = arrivals.arrivals();
      List<Double> consumed = new ArrayList<>(records);
      for (int i = 0; i < Math.min(at.size(), sent.size()); i++) {
        consumed.add((at.get(i) - sent.get(i)) / 1e6);
      }
      Collections.sort(acked);
      Collections.sort(consumed);
      System.out.printf(
          Locale.ROOT,
          "[kafka alone] %d records of 1 KB %d ms apart, producer and consumer at"
              + " Kafka's defaults: send → acknowledged p50 %.1f ms, p99 %.1f ms; send → a consumer has it p50"
              + " %.1f ms, p95 %.1f ms, p99 %.1f ms%n",
          records,
          paceMillis,
          pct(acked, 50),
          pct(acked, 99),
          pct(consumed, 50),
          pct(consumed, 95),
          pct(consumed, 99));
    } finally {
      broker.deleteTopic(topic);
    }
  }

  private static double pct(List<Double> sorted, int p) {
    return sorted.isEmpty()
        ? Double.NaN
        : sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100));
  }
}
