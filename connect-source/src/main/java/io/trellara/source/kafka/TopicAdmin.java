package io.trellara.source.kafka;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The Admin calls of {@link SourceTopics}, each bounded by the check's deadline. */
final class TopicAdmin {
  private static final Logger LOG = LoggerFactory.getLogger(TopicAdmin.class);

  private TopicAdmin() {}

  static boolean neverWritten(Admin admin, String topic, TopicDescription d, long deadline)
      throws ExecutionException, InterruptedException, TimeoutException {
    Map<org.apache.kafka.common.TopicPartition, OffsetSpec> latest = new HashMap<>();
    d.partitions()
        .forEach(
            p ->
                latest.put(
                    new org.apache.kafka.common.TopicPartition(topic, p.partition()),
                    OffsetSpec.latest()));
    for (var info : get(admin.listOffsets(latest).all(), deadline).values()) {
      if (info.offset() != 0) {
        return false;
      }
    }
    return true;
  }

  static void adjust(
      Admin admin,
      SourceTopics.Requirement r,
      TopicDescription d,
      Long maxMessageBytes,
      long deadline)
      throws ExecutionException, InterruptedException, TimeoutException {
    List<String> changes = new ArrayList<>();
    boolean partitions = d.partitions().size() < r.partitions();
    if (partitions) {
      get(
          admin.createPartitions(Map.of(r.topic(), NewPartitions.increaseTo(r.partitions()))).all(),
          deadline);
      changes.add(
          "partitions "
              + d.partitions().size()
              + " -> "
              + r.partitions()
              + " ("
              + r.partitionsRule()
              + ")");
    }
    if (maxMessageBytes != null && maxMessageBytes < r.minMaxMessageBytes()) {
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, r.topic());
      get(
          admin
              .incrementalAlterConfigs(
                  Map.of(
                      resource,
                      List.of(
                          new AlterConfigOp(
                              new ConfigEntry(
                                  TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                                  Long.toString(r.creationMaxMessageBytes())),
                              AlterConfigOp.OpType.SET))))
              .all(),
          deadline);
      changes.add(
          "max.message.bytes "
              + maxMessageBytes
              + " -> "
              + r.creationMaxMessageBytes()
              + " ("
              + r.sizeRule()
              + ")");
    }
    LOG.warn(
        "Topic {} existed, but nothing was ever written to it (a broker with auto.create.topics.enable"
            + " creates it at its defaults for a consumer that subscribes before the source, such as the sink"
            + " registered first): adjusted {}{}",
        r.topic(),
        String.join(", ", changes),
        partitions
            ? ". A consumer already subscribed sees the new partitions at its next metadata refresh"
                + " (metadata.max.age.ms, 5 minutes by default)"
            : "");
  }

  static Map<String, TopicDescription> describe(Admin admin, SourceTopics.Plan plan, long deadline)
      throws ExecutionException, InterruptedException, TimeoutException {
    Map<String, TopicDescription> found = new LinkedHashMap<>();
    var futures =
        admin
            .describeTopics(plan.topics().stream().map(SourceTopics.Requirement::topic).toList())
            .topicNameValues();
    for (var e : futures.entrySet()) {
      try {
        found.put(e.getKey(), get(e.getValue(), deadline));
      } catch (ExecutionException ex) {
        if (!(ex.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw ex;
        }
      }
    }
    return found;
  }

  /**
   * A created topic reaches the brokers' metadata a moment after CreateTopics answers; describing
   * it at once can say "unknown topic". Poll until every created topic is visible or the check's
   * deadline passes.
   */
  static Map<String, TopicDescription> awaitVisible(
      Admin admin, SourceTopics.Plan plan, List<SourceTopics.Requirement> created, long deadline)
      throws ExecutionException, InterruptedException, TimeoutException {
    long pauseMs = 50;
    while (true) {
      Map<String, TopicDescription> found = describe(admin, plan, deadline);
      boolean all = created.stream().allMatch(r -> found.containsKey(r.topic()));
      if (all || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMs) >= deadline) {
        return found;
      }
      LOG.debug(
          "Created topics not yet in the brokers' metadata; describing again in {} ms", pauseMs);
      Thread.sleep(pauseMs);
      pauseMs = Math.min(pauseMs * 2, 1_000);
    }
  }

  static void createTopics(
      Admin admin, SourceTopics.Plan plan, List<SourceTopics.Requirement> missing, long deadline)
      throws ExecutionException, InterruptedException, TimeoutException {
    List<NewTopic> topics =
        missing.stream()
            .map(
                r ->
                    new NewTopic(r.topic(), Optional.of(r.partitions()), replicationFactor(plan, r))
                        .configs(creationConfigs(r)))
            .toList();
    var futures = admin.createTopics(topics).values();
    for (SourceTopics.Requirement r : missing) {
      try {
        get(futures.get(r.topic()), deadline);
        LOG.info(
            "Created topic {} with {} partition(s), replication factor {}, configs {}",
            r.topic(),
            r.partitions(),
            replicationFactor(plan, r).map(String::valueOf).orElse("broker default"),
            new java.util.TreeMap<>(creationConfigs(r)));
      } catch (ExecutionException ex) {
        if (!(ex.getCause() instanceof TopicExistsException)) {
          throw ex;
        }
        LOG.info("Topic {} was created concurrently; verifying it", r.topic());
      }
    }
  }

  /** The requirement's own replication factor, else the plan's; empty: the broker's default. */
  private static Optional<Short> replicationFactor(
      SourceTopics.Plan plan, SourceTopics.Requirement r) {
    short rf = r.replicationFactor() > 0 ? r.replicationFactor() : plan.replicationFactor();
    return rf < 0 ? Optional.empty() : Optional.of(rf);
  }

  /** The user's topic configs, with a max.message.bytes that admits the largest record. */
  private static Map<String, String> creationConfigs(SourceTopics.Requirement r) {
    Map<String, String> configs = new HashMap<>(r.topicConfigs());
    configs.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Long.toString(r.creationMaxMessageBytes()));
    return configs;
  }

  static Map<String, Long> maxMessageBytes(
      Admin admin, java.util.Collection<String> topics, long deadline)
      throws ExecutionException, InterruptedException, TimeoutException {
    Map<String, Long> result = new HashMap<>();
    if (topics.isEmpty()) {
      return result;
    }
    List<ConfigResource> resources =
        topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
    Map<ConfigResource, Config> configs = get(admin.describeConfigs(resources).all(), deadline);
    configs.forEach(
        (resource, config) -> {
          ConfigEntry entry = config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
          if (entry != null && entry.value() != null) {
            result.put(resource.name(), Long.parseLong(entry.value()));
          }
        });
    return result;
  }

  static <T> T get(KafkaFuture<T> future, long deadline)
      throws ExecutionException, InterruptedException, TimeoutException {
    long left = Math.max(1, deadline - System.nanoTime());
    return future.get(left, TimeUnit.NANOSECONDS);
  }
}
