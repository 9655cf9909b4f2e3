package io.trellara.source.signal;

import io.trellara.connect.common.Ticker;
import io.trellara.connect.common.retry.Backoff;
import io.trellara.protocol.LogText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code signal.kafka.topic} on a thread of its own (a Kafka consumer is not thread-safe, and
 * a broker out of reach must never stall the stream): every partition of the topic is assigned (no
 * group membership, so no rebalance), reading from the consumer group's committed offsets, or from
 * the earliest record when the group has none. Received records wait in a queue for the capture
 * thread ({@link KafkaSignalInbox}), which hands back the offsets to commit once the records are
 * settled; auto-commit is off. A failure (no broker, no topic, no rights) is logged and retried
 * with the project's one backoff policy, forever: signals then simply wait. Closing stops the
 * thread and closes the consumer within bounded waits, committing nothing unsettled.
 */
final class KafkaSignalConsumer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaSignalConsumer.class);

  static final Duration POLL = Duration.ofMillis(200);
  static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /** No more records are fetched while this many wait for the capture thread. */
  static final int MAX_WAITING = 1_000;

  /** Retry delays: 1 s doubling to 30 s; the deadline only restarts the outage (never gives up). */
  static final Backoff.Policy RETRY =
      Backoff.Policy.of(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofHours(1), 0.2);

  private final String topic;
  private final Supplier<Consumer<byte[], byte[]>> clients;
  private final ConcurrentLinkedQueue<KafkaSignalInbox.Received> received =
      new ConcurrentLinkedQueue<>();
  private final AtomicInteger waiting = new AtomicInteger();
  private final Map<Integer, Long> toCommit = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile Consumer<byte[], byte[]> consumer;

  KafkaSignalConsumer(String topic, Supplier<Consumer<byte[], byte[]>> clients) {
    this.topic = topic;
    this.clients = clients;
    this.thread = new Thread(this::run, "trellara-signal-" + topic);
    this.thread.setDaemon(true);
  }

  /** A consumer of the settings' topic through a real Kafka client. */
  static KafkaSignalConsumer of(KafkaSignalSettings s) {
    return new KafkaSignalConsumer(s.topic(), () -> new KafkaConsumer<>(consumerConfig(s)));
  }

  /** The client's settings: the given ones, then what this consumer needs to be correct. */
  static Map<String, Object> consumerConfig(KafkaSignalSettings s) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "trellara-signal-" + s.connector());
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
    c.putAll(s.clientConfig());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, s.groupId());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false); // committed once settled, no sooner
    c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    return c;
  }

  KafkaSignalConsumer start() {
    thread.start();
    return this;
  }

  /** The next record received, or null (capture thread). */
  KafkaSignalInbox.Received next() {
    KafkaSignalInbox.Received r = received.poll();
    if (r != null) {
      waiting.decrementAndGet();
    }
    return r;
  }

  /** Every record of {@code partition} before {@code nextOffset} is settled: commit it. */
  void commit(int partition, long nextOffset) {
    toCommit.merge(partition, nextOffset, Math::max);
  }

  private void run() {
    Backoff backoff = new Backoff(RETRY, Ticker.SYSTEM);
    boolean assigned = false;
    try {
      while (running) {
        try {
          if (consumer == null) {
            consumer = clients.get(); // a client setting it refuses is retried (and logged) too
          }
          if (!assigned) {
            assign();
            assigned = true;
          }
          commitSettled();
          if (waiting.get() < MAX_WAITING) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
              received.add(
                  new KafkaSignalInbox.Received(
                      r.partition(),
                      r.offset(),
                      r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8),
                      r.value()));
              waiting.incrementAndGet();
            }
          } else {
            TimeUnit.MILLISECONDS.sleep(POLL.toMillis());
          }
          if (backoff.inOutage()) {
            LOG.info("Signal topic {} is read again", LogText.escape(topic));
          }
          backoff.succeeded();
        } catch (WakeupException | InterruptException e) {
          if (!running) {
            break;
          }
        } catch (KafkaException | IllegalStateException e) {
          long delay = backoff.nextDelayMillis();
          if (delay < 0) {
            backoff.succeeded(); // signals are never worth failing the task for: keep trying
            delay = backoff.nextDelayMillis();
          }
          if (backoff.worthLogging()) {
            LOG.warn(
                "Signal topic {} cannot be read ({}); signals wait, the stream goes on; retrying in"
                    + " {} ms",
                LogText.escape(topic),
                LogText.escape(e.toString()),
                delay);
          }
          TimeUnit.MILLISECONDS.sleep(delay);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("Signal topic {}: the consumer stopped: {}", LogText.escape(topic), e.toString());
    } finally {
      Consumer<byte[], byte[]> c = consumer;
      Thread.interrupted(); // close() interrupts a backoff sleep; the last commit must not see it
      if (c != null) {
        try {
          if (assigned) {
            commitSettled();
          }
        } catch (RuntimeException e) {
          LOG.debug("Signal topic {}: last commit failed: {}", topic, e.toString());
        }
        try {
          c.close(CLOSE_TIMEOUT);
        } catch (RuntimeException e) {
          LOG.debug("Signal topic {}: close: {}", topic, e.toString());
        }
      }
    }
  }

  private void assign() {
    List<PartitionInfo> partitions = consumer.partitionsFor(topic, CLIENT_TIMEOUT);
    if (partitions == null || partitions.isEmpty()) {
      throw new KafkaException("topic " + topic + " does not exist (create it: docs/snapshot.md)");
    }
    consumer.assign(
        partitions.stream().map(p -> new TopicPartition(topic, p.partition())).toList());
    LOG.info(
        "Signal topic {}: reading {} partition(s) from the group's committed offsets (or the"
            + " earliest)",
        LogText.escape(topic),
        partitions.size());
  }

  private void commitSettled() {
    if (toCommit.isEmpty()) {
      return;
    }
    Map<Integer, Long> now = new HashMap<>(toCommit);
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    now.forEach((p, o) -> offsets.put(new TopicPartition(topic, p), new OffsetAndMetadata(o)));
    consumer.commitSync(offsets, CLIENT_TIMEOUT);
    now.forEach((p, o) -> toCommit.remove(p, o));
    LOG.debug("Signal topic {}: committed {}", topic, offsets);
  }

  /** Stops the thread (bounded) and closes the consumer; unsettled records stay uncommitted. */
  @Override
  public void close() {
    running = false;
    Consumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    thread.interrupt();
    try {
      thread.join(CLOSE_TIMEOUT.toMillis() + CLIENT_TIMEOUT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
