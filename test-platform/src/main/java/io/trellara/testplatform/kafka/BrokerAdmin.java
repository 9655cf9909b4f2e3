package io.trellara.testplatform.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The admin side of a test broker, through one Admin client made on first use and shared until
 * {@link #close}: topics (created at replication factor 1, deleted, listed, described) and consumer
 * groups (committed offsets read and reset, groups deleted and listed). Each call waits at most
 * {@link #TIMEOUT} and fails with what it was doing. The broker's address is asked for only when
 * the client is made, so the client made after a broker restart finds it again.
 */
public final class BrokerAdmin implements AutoCloseable {
  /** The bound of every admin call. */
  public static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final Supplier<String> bootstrapServers;
  private Admin admin;

  public BrokerAdmin(Supplier<String> bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
  }

  /** The shared admin client (do not close it). */
  public synchronized Admin client() {
    if (admin == null) {
      Map<String, Object> config = new HashMap<>();
      config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers.get());
      config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
      admin = Admin.create(config);
    }
    return admin;
  }

  // ---------------------------------------------------------------- topics

  /**
   * Creates the topic (replication factor 1) with the given topic configs and waits until it has
   * leaders.
   */
  public void createTopic(String topic, int partitions, Map<String, String> configs) {
    NewTopic newTopic = new NewTopic(topic, partitions, (short) 1).configs(configs);
    get(client().createTopics(List.of(newTopic)).all(), "create topic " + topic);
    awaitDescribed(topic);
  }

  /**
   * The create returns once the controller has the topic; the broker serving metadata learns of it
   * a moment later, and a describe meanwhile fails with UnknownTopicOrPartition (seen once in a
   * full build). Waits, at most {@link #TIMEOUT}, until the topic can be described.
   */
  private void awaitDescribed(String topic) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      try {
        describeTopic(topic);
        return;
      } catch (IllegalStateException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)
            || System.nanoTime() > deadline) {
          throw e;
        }
      }
      try {
        Thread.sleep(20); // between looks at the metadata, bounded by the deadline above
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted: describe topic " + topic, e);
      }
    }
  }

  public void deleteTopic(String topic) {
    get(client().deleteTopics(List.of(topic)).all(), "delete topic " + topic);
  }

  public Set<String> topicNames() {
    return get(client().listTopics().names(), "list topics");
  }

  public TopicDescription describeTopic(String topic) {
    return get(client().describeTopics(List.of(topic)).allTopicNames(), "describe topic " + topic)
        .get(topic);
  }

  // ---------------------------------------------------------------- consumer groups

  /** Committed offsets of the group (empty when the group has none). */
  public Map<TopicPartition, Long> consumerGroupOffsets(String groupId) {
    Map<TopicPartition, OffsetAndMetadata> offsets =
        get(
            client().listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata(),
            "offsets of " + groupId);
    Map<TopicPartition, Long> result = new HashMap<>();
    offsets.forEach(
        (tp, om) -> {
          if (om != null) {
            result.put(tp, om.offset());
          }
        });
    return result;
  }

  /**
   * Sets committed offsets; the group must have no active members (stop or delete the connector
   * first).
   */
  public void resetConsumerGroupOffsets(String groupId, Map<TopicPartition, Long> offsets) {
    Map<TopicPartition, OffsetAndMetadata> target = new HashMap<>();
    offsets.forEach((tp, offset) -> target.put(tp, new OffsetAndMetadata(offset)));
    get(client().alterConsumerGroupOffsets(groupId, target).all(), "reset offsets of " + groupId);
  }

  public void deleteConsumerGroup(String groupId) {
    get(client().deleteConsumerGroups(List.of(groupId)).all(), "delete group " + groupId);
  }

  public Collection<String> consumerGroups() {
    return get(client().listGroups().all(), "list groups").stream()
        .map(g -> g.groupId())
        .collect(Collectors.toList());
  }

  /** Closes the client, if one was made; the next call makes a new one. */
  @Override
  public synchronized void close() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
      admin = null;
    }
  }

  private static <T> T get(KafkaFuture<T> future, String what) {
    try {
      return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + what, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("failed: " + what + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("timed out: " + what, e);
    }
  }
}
