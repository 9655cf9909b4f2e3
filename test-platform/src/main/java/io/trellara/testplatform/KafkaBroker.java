package io.trellara.testplatform;

import io.trellara.testplatform.kafka.BrokerAdmin;
import io.trellara.testplatform.kafka.RawProducer;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka broker for tests and the helpers around it. {@link #builder()} builds the embedded one, a
 * real Kafka 4.4 broker in this JVM ({@link EmbeddedKafka}); {@link TestServers#kafka} gives the
 * selected platform's.
 *
 * <p>Embedded defaults suited to a single-node test cluster: every internal topic at replication
 * factor 1, {@code group.initial.rebalance.delay.ms=0}, and broker-side topic auto-creation OFF (a
 * connector that forgets to create its topic fails instead of being rescued); turn it on with
 * {@link Builder#autoCreateTopics}.
 *
 * <p>Admin helpers create and delete topics, read a whole topic as raw bytes, produce raw (possibly
 * crafted) records, and read or reset consumer group offsets. The admin calls on topics and groups
 * are made by {@link BrokerAdmin}, the records produced by {@link RawProducer}.
 */
public final class KafkaBroker implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaBroker.class);
  private static final Duration ADMIN_TIMEOUT = BrokerAdmin.TIMEOUT;

  private final TestServers.Kafka node;
  private final BrokerAdmin admin;
  private final RawProducer producer;
  private boolean running;

  private KafkaBroker(TestServers.Kafka node) {
    this.node = node;
    this.admin = new BrokerAdmin(node::bootstrapServers);
    this.producer = new RawProducer(node::bootstrapServers);
  }

  /** The helpers on a broker of another platform (a container). */
  static KafkaBroker on(TestServers.Kafka node) {
    return new KafkaBroker(node);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts the broker (after {@link #stop()}: same address and data); returns once it answers admin
   * requests.
   */
  public synchronized KafkaBroker start() {
    if (running) {
      return this;
    }
    long started = System.nanoTime();
    node.start();
    running = true;
    awaitReady();
    LOG.info(
        "Kafka broker up at {} in {} ms",
        bootstrapServers(),
        (System.nanoTime() - started) / 1_000_000);
    return this;
  }

  private void awaitReady() {
    try {
      int brokers = admin().describeCluster().nodes().get(60, TimeUnit.SECONDS).size();
      if (brokers != 1) {
        throw new IllegalStateException("expected one broker, the cluster reports " + brokers);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the broker", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "the broker at " + bootstrapServers() + " did not become ready", e);
    }
  }

  public String bootstrapServers() {
    return node.bootstrapServers();
  }

  /** A shared admin client (do not close it). */
  public Admin admin() {
    return admin.client();
  }

  /** Client properties (bootstrap servers) for consumers/producers a test builds itself. */
  public Map<String, Object> clientConfig() {
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", bootstrapServers());
    return config;
  }

  // ---------------------------------------------------------------- topics

  public void createTopic(String topic, int partitions) {
    createTopic(topic, partitions, Map.of());
  }

  /**
   * Creates the topic (replication factor 1) with the given topic configs and waits until it has
   * leaders.
   */
  public void createTopic(String topic, int partitions, Map<String, String> configs) {
    admin.createTopic(topic, partitions, configs);
  }

  public void deleteTopic(String topic) {
    admin.deleteTopic(topic);
  }

  public Set<String> topicNames() {
    return admin.topicNames();
  }

  public boolean topicExists(String topic) {
    return topicNames().contains(topic);
  }

  public TopicDescription describeTopic(String topic) {
    return admin.describeTopic(topic);
  }

  /** Log end offsets (read_uncommitted) per partition. */
  public Map<TopicPartition, Long> endOffsets(String topic) {
    try (KafkaConsumer<byte[], byte[]> consumer = newConsumer(IsolationLevel.READ_UNCOMMITTED)) {
      return consumer.endOffsets(partitionsOf(topic), ADMIN_TIMEOUT);
    }
  }

  // ---------------------------------------------------------------- reading

  /** Every committed record of every partition, up to the end offsets at the time of the call. */
  public List<KafkaRecord> readAll(String topic) {
    return readAll(topic, IsolationLevel.READ_COMMITTED);
  }

  /**
   * Every record up to the end offsets taken at the start of the call (last stable offsets for
   * read_committed), ordered by partition then offset. A fresh consumer without a group.
   */
  public List<KafkaRecord> readAll(String topic, IsolationLevel isolation) {
    try (KafkaConsumer<byte[], byte[]> consumer = newConsumer(isolation)) {
      List<TopicPartition> partitions = partitionsOf(topic);
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, ADMIN_TIMEOUT);
      List<KafkaRecord> records = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!reachedEnd(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + topic + " to its end offsets " + end);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
            records.add(toRecord(r));
          }
        }
      }
      records.sort(
          Comparator.comparingInt(KafkaRecord::partition).thenComparingLong(KafkaRecord::offset));
      return records;
    }
  }

  private static boolean reachedEnd(
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey(), ADMIN_TIMEOUT) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static KafkaRecord toRecord(ConsumerRecord<byte[], byte[]> r) {
    List<Map.Entry<String, byte[]>> headers = new ArrayList<>();
    for (Header h : r.headers()) {
      headers.add(new AbstractMap.SimpleImmutableEntry<>(h.key(), h.value()));
    }
    return new KafkaRecord(
        r.topic(),
        r.partition(),
        r.offset(),
        r.timestamp(),
        r.key(),
        r.value(),
        List.copyOf(headers));
  }

  private List<TopicPartition> partitionsOf(String topic) {
    return describeTopic(topic).partitions().stream()
        .map(p -> new TopicPartition(topic, p.partition()))
        .collect(Collectors.toList());
  }

  private KafkaConsumer<byte[], byte[]> newConsumer(IsolationLevel isolation) {
    Map<String, Object> config = clientConfig();
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(
        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
        isolation.toString().toLowerCase(java.util.Locale.ROOT));
    config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 16 * 1024 * 1024);
    return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  // ---------------------------------------------------------------- producing

  /** Produces one raw record (acks=all, idempotence off) and returns where it landed. */
  public RecordMetadata produce(
      String topic, Integer partition, byte[] key, byte[] value, Map<String, byte[]> headers) {
    return producer.produce(topic, partition, key, value, headers);
  }

  public RecordMetadata produce(String topic, int partition, byte[] key, byte[] value) {
    return produce(topic, partition, key, value, Map.of());
  }

  // ---------------------------------------------------------------- consumer groups

  /** Committed offsets of the group (empty when the group has none). */
  public Map<TopicPartition, Long> consumerGroupOffsets(String groupId) {
    return admin.consumerGroupOffsets(groupId);
  }

  /**
   * Sets committed offsets; the group must have no active members (stop or delete the connector
   * first).
   */
  public void resetConsumerGroupOffsets(String groupId, Map<TopicPartition, Long> offsets) {
    admin.resetConsumerGroupOffsets(groupId, offsets);
  }

  /** Sets the group's offsets of every partition of the topic to the beginning of the log. */
  public void resetConsumerGroupToEarliest(String groupId, String topic) {
    try (KafkaConsumer<byte[], byte[]> consumer = newConsumer(IsolationLevel.READ_UNCOMMITTED)) {
      resetConsumerGroupOffsets(
          groupId, consumer.beginningOffsets(partitionsOf(topic), ADMIN_TIMEOUT));
    }
  }

  public void deleteConsumerGroup(String groupId) {
    admin.deleteConsumerGroup(groupId);
  }

  public Collection<String> consumerGroups() {
    return admin.consumerGroups();
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Stops the node as a broker restart does, its logs kept; {@link #start()} brings it back on the
   * same ports with everything it held (fault tests).
   */
  public synchronized void stop() {
    closeClients();
    if (running) {
      node.stop();
      running = false;
    }
    LOG.info("Kafka broker at {} stopped (logs kept)", bootstrapServers());
  }

  @Override
  public synchronized void close() {
    closeClients();
    running = false;
    node.close();
  }

  private void closeClients() {
    producer.close();
    admin.close();
  }

  @Override
  public String toString() {
    return "KafkaBroker[" + bootstrapServers() + "]";
  }

  /** Settings of the embedded broker. */
  public static final class Builder {
    final Map<String, String> overrides = new LinkedHashMap<>();
    final List<Listener> listeners = new ArrayList<>();
    int port;

    /**
     * An extra PLAINTEXT listener: the broker listens on loopback {@code port} and tells clients
     * that connected through it to reach it at {@code advertisedHost:advertisedPort}.
     */
    record Listener(String name, int port, String advertisedHost, int advertisedPort) {}

    private Builder() {}

    /** Fixed PLAINTEXT port (e.g. 9092 for the quickstart); default a free one. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /**
     * An extra PLAINTEXT listener {@code name} on loopback {@code port}, advertised at {@code
     * advertisedHost:advertisedPort}: a client bootstrapped there (e.g. a {@link TcpProxy} to
     * {@code port}, advertised at the proxy's own address) reaches the broker only through that
     * address, every connection included. Embedded broker only.
     */
    public Builder listener(String name, int port, String advertisedHost, int advertisedPort) {
      if (!name.matches("[A-Z][A-Z0-9_]*")
          || name.equals("PLAINTEXT")
          || name.equals("CONTROLLER")) {
        throw new IllegalArgumentException("listener name must be upper case and new: " + name);
      }
      listeners.add(new Listener(name, port, advertisedHost, advertisedPort));
      return this;
    }

    /** Broker-side topic auto-creation (default off). */
    public Builder autoCreateTopics(boolean enabled) {
      return set("auto.create.topics.enable", Boolean.toString(enabled));
    }

    /** Any other broker property (server.properties). */
    public Builder set(String key, String value) {
      overrides.put(key, value);
      return this;
    }

    public KafkaBroker build() {
      return new KafkaBroker(new EmbeddedKafka(this));
    }

    public KafkaBroker start() {
      return build().start();
    }
  }
}
