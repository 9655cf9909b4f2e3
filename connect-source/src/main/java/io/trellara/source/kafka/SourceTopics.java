package io.trellara.source.kafka;

import java.time.Duration;
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
import org.apache.kafka.clients.admin.AdminClientConfig;
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

/**
 * The source's topics, made right before the first record: each must have exactly its partition
 * count and a {@code max.message.bytes} that admits the flow's largest record. A broker at Kafka's
 * defaults would otherwise let a consumer (the sink, registered first) auto-create the topic with 1
 * MB messages, or a partitioned topic with too few partitions would make the producer wait forever
 * for a partition that does not exist.
 *
 * <p>{@link #inspect} only reads (for {@code validate()}): a missing topic is fine there, it will
 * be created. {@link #ensure} creates the missing ones with the required settings and verifies the
 * rest; every problem names the topic, the actual and required values and what to change.
 *
 * <p>A topic nothing was ever written to (every partition's end offset 0) with too few partitions
 * or too small a {@code max.message.bytes} is adjusted instead of refused: that is the topic a
 * broker at Kafka's defaults creates for a sink registered before its source (1 partition, the
 * broker's 1 MB limit), and growing it loses nothing. A topic that holds or held records is never
 * changed.
 */
public final class SourceTopics {
  /** A problem with a topic, reported on the setting that names it (or the brokers'). */
  public record Problem(String property, String message) {}

  private static final Logger LOG = LoggerFactory.getLogger(SourceTopics.class);

  /** One topic and what it must be; {@code topicSetting} is the connector setting that names it. */
  public record Requirement(
      String topic,
      String topicSetting,
      int partitions,
      String partitionsRule,
      long minMaxMessageBytes,
      String sizeRule) {}

  /**
   * Where and how to check: the Admin client's settings, the replication factor for creation (-1 =
   * broker default) and the time the whole check may take. The setting names are used in the
   * messages.
   */
  public record Plan(
      List<Requirement> topics,
      Map<String, Object> adminConfig,
      short replicationFactor,
      Duration timeout,
      String bootstrapSetting,
      String timeoutSetting) {}

  /** The start cannot go on: the topics are wrong, or the brokers could not be asked. */
  public static final class TopicsException extends RuntimeException {
    private final transient List<Problem> problems;

    TopicsException(List<Problem> problems) {
      super(
          String.join(
              " | ", problems.stream().map(p -> p.property() + ": " + p.message()).toList()));
      this.problems = List.copyOf(problems);
    }

    public List<Problem> problems() {
      return problems;
    }
  }

  private SourceTopics() {}

  /**
   * Problems of the existing topics (missing ones are not a problem: {@link #ensure} creates them).
   */
  public static List<Problem> inspect(Plan plan) {
    return run(plan, false);
  }

  /**
   * Creates missing topics and verifies every topic; throws when anything is wrong or unreachable.
   */
  public static void ensure(Plan plan) {
    List<Problem> problems = run(plan, true);
    if (!problems.isEmpty()) {
      throw new TopicsException(problems);
    }
  }

  private static List<Problem> run(Plan plan, boolean create) {
    long deadline = System.nanoTime() + plan.timeout().toNanos();
    Map<String, Object> config = new HashMap<>(plan.adminConfig());
    int timeoutMs = (int) plan.timeout().toMillis();
    config.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
    config.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(timeoutMs, 30_000));
    config.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "trellara-source-topics");
    List<Problem> problems = new ArrayList<>();
    Admin admin = null;
    try {
      admin = Admin.create(config);
      Map<String, TopicDescription> existing = describe(admin, plan, deadline);
      List<Requirement> missing =
          plan.topics().stream().filter(r -> !existing.containsKey(r.topic())).toList();
      if (create && !missing.isEmpty()) {
        createTopics(admin, plan, missing, deadline);
        existing.putAll(awaitVisible(admin, plan, missing, deadline));
      }
      Map<String, Long> maxMessageBytes = maxMessageBytes(admin, existing.keySet(), deadline);
      for (Requirement r : plan.topics()) {
        TopicDescription d = existing.get(r.topic());
        if (d != null
            && adjustable(r, d, maxMessageBytes.get(r.topic()))
            && neverWritten(admin, r.topic(), d, deadline)) {
          if (create) {
            adjust(admin, r, d, maxMessageBytes.get(r.topic()), deadline);
          }
          existing.remove(r.topic()); // fine as it will be: nothing to report
        }
      }
      if (create) {
        existing.putAll(describe(admin, plan, deadline));
        maxMessageBytes = maxMessageBytes(admin, existing.keySet(), deadline);
      }
      for (Requirement r : plan.topics()) {
        TopicDescription d = existing.get(r.topic());
        if (d == null) {
          if (create) {
            problems.add(
                new Problem(
                    r.topicSetting(),
                    "Topic '"
                        + r.topic()
                        + "' does not exist"
                        + " after creating it. Create it with "
                        + r.partitions()
                        + " partition(s) and"
                        + " max.message.bytes="
                        + r.minMaxMessageBytes()
                        + "."));
          }
          continue;
        }
        check(r, d.partitions().size(), maxMessageBytes.get(r.topic()), plan, problems);
      }
    } catch (TimeoutException e) {
      problems.add(
          unreachable(
              plan,
              "no answer within "
                  + plan.timeout().toMillis()
                  + " ms ("
                  + plan.timeoutSetting()
                  + ")"));
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      problems.add(unreachable(plan, cause.getClass().getSimpleName() + ": " + cause.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problems.add(unreachable(plan, "interrupted"));
    } catch (org.apache.kafka.common.KafkaException e) {
      problems.add(
          unreachable(
              plan,
              e.getClass().getSimpleName()
                  + ": "
                  + e.getMessage()
                  + (e.getCause() == null ? "" : " (" + e.getCause().getMessage() + ")")));
    } finally {
      if (admin != null) {
        admin.close(
            Duration.ofSeconds(5)); // never wait out calls still pending on unreachable brokers
      }
    }
    return problems;
  }

  /** Too few partitions or too small a limit: what a never-written topic may be grown out of. */
  private static boolean adjustable(Requirement r, TopicDescription d, Long maxMessageBytes) {
    boolean fewer = d.partitions().size() < r.partitions();
    boolean smaller = maxMessageBytes != null && maxMessageBytes < r.minMaxMessageBytes();
    return (fewer || smaller) && d.partitions().size() <= r.partitions();
  }

  private static boolean neverWritten(Admin admin, String topic, TopicDescription d, long deadline)
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

  private static void adjust(
      Admin admin, Requirement r, TopicDescription d, Long maxMessageBytes, long deadline)
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
                                  Long.toString(r.minMaxMessageBytes())),
                              AlterConfigOp.OpType.SET))))
              .all(),
          deadline);
      changes.add(
          "max.message.bytes "
              + maxMessageBytes
              + " -> "
              + r.minMaxMessageBytes()
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

  private static void check(
      Requirement r, int partitions, Long maxMessageBytes, Plan plan, List<Problem> problems) {
    if (partitions != r.partitions()) {
      problems.add(
          new Problem(
              r.topicSetting(),
              "Topic '"
                  + r.topic()
                  + "' has "
                  + partitions
                  + " partition(s), but "
                  + r.partitionsRule()
                  + " requires exactly "
                  + r.partitions()
                  + ". Kafka"
                  + " cannot lower a topic's partition count: delete the topic and let the source create it,"
                  + " or point "
                  + r.topicSetting()
                  + " at another topic"
                  + (partitions < r.partitions()
                      ? " (or add partitions: kafka-topics.sh --alter --topic "
                          + r.topic()
                          + " --partitions "
                          + r.partitions()
                          + ")"
                      : "")
                  + "."));
    }
    if (maxMessageBytes != null && maxMessageBytes < r.minMaxMessageBytes()) {
      problems.add(
          new Problem(
              r.topicSetting(),
              "Topic '"
                  + r.topic()
                  + "' has max.message.bytes="
                  + maxMessageBytes
                  + ", but its largest record needs "
                  + r.sizeRule()
                  + ". Raise it:"
                  + " kafka-configs.sh --bootstrap-server <brokers> --alter --entity-type topics --entity-name "
                  + r.topic()
                  + " --add-config max.message.bytes="
                  + r.minMaxMessageBytes()
                  + ", or lower the"
                  + " size setting."));
    }
  }

  private static Problem unreachable(Plan plan, String why) {
    String bootstrap =
        String.valueOf(plan.adminConfig().get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG));
    return new Problem(
        plan.bootstrapSetting(),
        "Cannot verify or create the topics "
            + plan.topics().stream().map(Requirement::topic).toList()
            + " on the Kafka brokers at "
            + plan.bootstrapSetting()
            + "="
            + bootstrap
            + ": "
            + why
            + ". Check that these are the brokers the"
            + " worker produces to, that they are reachable from the worker, and the kafka.admin.* security"
            + " settings.");
  }

  private static Map<String, TopicDescription> describe(Admin admin, Plan plan, long deadline)
      throws ExecutionException, InterruptedException, TimeoutException {
    Map<String, TopicDescription> found = new LinkedHashMap<>();
    var futures =
        admin
            .describeTopics(plan.topics().stream().map(Requirement::topic).toList())
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
  private static Map<String, TopicDescription> awaitVisible(
      Admin admin, Plan plan, List<Requirement> created, long deadline)
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

  private static void createTopics(Admin admin, Plan plan, List<Requirement> missing, long deadline)
      throws ExecutionException, InterruptedException, TimeoutException {
    Optional<Short> rf =
        plan.replicationFactor() < 0 ? Optional.empty() : Optional.of(plan.replicationFactor());
    List<NewTopic> topics =
        missing.stream()
            .map(
                r ->
                    new NewTopic(r.topic(), Optional.of(r.partitions()), rf)
                        .configs(
                            Map.of(
                                TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                                Long.toString(r.minMaxMessageBytes()))))
            .toList();
    var futures = admin.createTopics(topics).values();
    for (Requirement r : missing) {
      try {
        get(futures.get(r.topic()), deadline);
        LOG.info(
            "Created topic {} with {} partition(s), max.message.bytes={}, replication factor {}",
            r.topic(),
            r.partitions(),
            r.minMaxMessageBytes(),
            rf.map(String::valueOf).orElse("broker default"));
      } catch (ExecutionException ex) {
        if (!(ex.getCause() instanceof TopicExistsException)) {
          throw ex;
        }
        LOG.info("Topic {} was created concurrently; verifying it", r.topic());
      }
    }
  }

  private static Map<String, Long> maxMessageBytes(
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

  private static <T> T get(KafkaFuture<T> future, long deadline)
      throws ExecutionException, InterruptedException, TimeoutException {
    long left = Math.max(1, deadline - System.nanoTime());
    return future.get(left, TimeUnit.NANOSECONDS);
  }
}
