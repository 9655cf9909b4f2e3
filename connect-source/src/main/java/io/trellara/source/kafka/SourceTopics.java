package io.trellara.source.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
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

  /**
   * One topic and what it must be; {@code topicSetting} is the connector setting that names it.
   * {@code topicConfigs} are the configs it is created with (the user's {@code topic.creation.*},
   * with a {@code max.message.bytes} of at least {@code minMaxMessageBytes}), {@code
   * replicationFactor} its replication factor (-1: the plan's).
   */
  public record Requirement(
      String topic,
      String topicSetting,
      int partitions,
      String partitionsRule,
      long minMaxMessageBytes,
      String sizeRule,
      short replicationFactor,
      Map<String, String> topicConfigs) {

    public Requirement {
      topicConfigs = Map.copyOf(topicConfigs);
    }

    /** A topic created with nothing but the {@code max.message.bytes} its records need. */
    public Requirement(
        String topic,
        String topicSetting,
        int partitions,
        String partitionsRule,
        long minMaxMessageBytes,
        String sizeRule) {
      this(
          topic,
          topicSetting,
          partitions,
          partitionsRule,
          minMaxMessageBytes,
          sizeRule,
          (short) -1,
          Map.of(MAX_MESSAGE_BYTES, Long.toString(minMaxMessageBytes)));
    }

    /** The {@code max.message.bytes} it is created with, or raised to: never below the need. */
    public long creationMaxMessageBytes() {
      String v = topicConfigs.get(MAX_MESSAGE_BYTES);
      return v == null ? minMaxMessageBytes : Math.max(minMaxMessageBytes, Long.parseLong(v));
    }
  }

  static final String MAX_MESSAGE_BYTES = "max.message.bytes";

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
      Map<String, TopicDescription> existing = TopicAdmin.describe(admin, plan, deadline);
      List<Requirement> missing =
          plan.topics().stream().filter(r -> !existing.containsKey(r.topic())).toList();
      if (create && !missing.isEmpty()) {
        TopicAdmin.createTopics(admin, plan, missing, deadline);
        existing.putAll(TopicAdmin.awaitVisible(admin, plan, missing, deadline));
      }
      Map<String, Long> maxMessageBytes =
          TopicAdmin.maxMessageBytes(admin, existing.keySet(), deadline);
      for (Requirement r : plan.topics()) {
        TopicDescription d = existing.get(r.topic());
        if (d != null
            && adjustable(r, d, maxMessageBytes.get(r.topic()))
            && TopicAdmin.neverWritten(admin, r.topic(), d, deadline)) {
          if (create) {
            TopicAdmin.adjust(admin, r, d, maxMessageBytes.get(r.topic()), deadline);
          }
          existing.remove(r.topic()); // fine as it will be: nothing to report
        }
      }
      if (create) {
        existing.putAll(TopicAdmin.describe(admin, plan, deadline));
        maxMessageBytes = TopicAdmin.maxMessageBytes(admin, existing.keySet(), deadline);
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
                        + r.creationMaxMessageBytes()
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
}
