package io.trellara.testplatform.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Raw (possibly crafted) records produced to a test broker exactly as given: key, value, partition
 * and headers as bytes, acks=all, idempotence off, no linger, requests up to 16 MiB. One producer,
 * made on first use and kept until {@link #close}; the broker's address is asked for only when it
 * is made.
 */
public final class RawProducer implements AutoCloseable {
  private final Supplier<String> bootstrapServers;
  private KafkaProducer<byte[], byte[]> producer;

  public RawProducer(Supplier<String> bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
  }

  /**
   * Produces one record and returns where it landed ({@code partition} null: the producer's
   * partitioner chooses).
   */
  public RecordMetadata produce(
      String topic, Integer partition, byte[] key, byte[] value, Map<String, byte[]> headers) {
    List<Header> recordHeaders = new ArrayList<>();
    headers.forEach((k, v) -> recordHeaders.add(new RecordHeader(k, v)));
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(topic, partition, key, value, recordHeaders);
    try {
      return producer().send(record).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while producing to " + topic, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not produce to " + topic + "-" + partition, e);
    }
  }

  private synchronized KafkaProducer<byte[], byte[]> producer() {
    if (producer == null) {
      Map<String, Object> config = new HashMap<>();
      config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers.get());
      config.put(ProducerConfig.ACKS_CONFIG, "all");
      config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
      config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
      config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 16 * 1024 * 1024);
      producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }
    return producer;
  }

  /** Closes the producer, if one was made; the next record makes a new one. */
  @Override
  public synchronized void close() {
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
      producer = null;
    }
  }
}
