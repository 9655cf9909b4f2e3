package io.trellara.source.connect;

import static io.trellara.source.connect.TrellaraSourceConfig.TOPIC_REPLICATION_FACTOR;

import io.trellara.source.kafka.SourceTopics;
import io.trellara.source.kafka.TopicCreationGroups;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The connector's {@code topic.creation.*} settings applied to the topics the source creates: each
 * topic is created with its group's topic configs and replication factor, and a {@code
 * max.message.bytes} larger than its records need is kept. What the records cannot live with is
 * refused, by {@code validate()} and at start, on the setting that asks for it: a partition count
 * other than the topic's, a {@code max.message.bytes} below its largest record, compaction (every
 * record of a transaction has the same key, so compaction would delete chunks and manifests), a
 * replication factor that contradicts {@code topic.replication.factor}.
 */
final class TopicCreationRules {
  private static final String MAX_MESSAGE_BYTES = "max.message.bytes";
  private static final String CLEANUP_POLICY = "cleanup.policy";

  private TopicCreationRules() {}

  /** The errors, as (setting, message); empty when the groups suit every topic. */
  static List<String[]> errors(TrellaraSourceConfig c, List<SourceTopics.Requirement> topics) {
    List<String[]> errors = new java.util.ArrayList<>();
    try {
      TopicCreationGroups groups = c.topicCreation();
      for (SourceTopics.Requirement r : topics) {
        check(c, r, groups.forTopic(r.topic()), errors);
      }
    } catch (TopicCreationGroups.InvalidSetting e) {
      errors.add(new String[] {e.setting(), e.getMessage()});
    }
    return errors;
  }

  private static void check(
      TrellaraSourceConfig c,
      SourceTopics.Requirement r,
      TopicCreationGroups.Group g,
      List<String[]> errors) {
    String topic = "Topic '" + r.topic() + "' (" + r.topicSetting() + ") is in the group '";
    // without kafka.bootstrap.servers, -1 is refused as well: BrokerlessRules says so
    if (c.ownKafkaAccess() && g.partitions() > 0 && g.partitions() != r.partitions()) {
      errors.add(
          new String[] {
            g.setting("partitions"),
            topic
                + g.name()
                + "', which asks for "
                + g.partitions()
                + " partition(s), but "
                + r.partitionsRule()
                + " requires exactly "
                + r.partitions()
                + ". Set "
                + g.setting("partitions")
                + "="
                + r.partitions()
                + " (or -1), or put the topic in another group (topic.creation.groups and its include"
                + " and exclude)."
          });
    }
    int rf = c.getInt(TOPIC_REPLICATION_FACTOR);
    if (rf > 0 && g.replicationFactor() > 0 && g.replicationFactor() != rf) {
      errors.add(
          new String[] {
            g.setting("replication.factor"),
            topic
                + g.name()
                + "', which asks for replication factor "
                + g.replicationFactor()
                + ", but "
                + TOPIC_REPLICATION_FACTOR
                + "="
                + rf
                + ". Set one of them, or both alike."
          });
    }
    Optional<Long> max = g.longConfig(MAX_MESSAGE_BYTES);
    if (max.isPresent() && max.get() < r.minMaxMessageBytes()) {
      errors.add(
          new String[] {
            g.setting(MAX_MESSAGE_BYTES),
            topic
                + g.name()
                + "', which asks for max.message.bytes="
                + max.get()
                + ", but the largest record of this flow is "
                + c.largestRecordText()
                + ". Raise "
                + g.setting(MAX_MESSAGE_BYTES)
                + " to at least "
                + r.minMaxMessageBytes()
                + ", or lower "
                + c.largestRecordSetting()
                + "."
          });
    }
    String cleanup = g.configs().getOrDefault(CLEANUP_POLICY, "");
    if (cleanup.toLowerCase(java.util.Locale.ROOT).contains("compact")) {
      errors.add(
          new String[] {
            g.setting(CLEANUP_POLICY),
            topic
                + g.name()
                + "', which asks for "
                + CLEANUP_POLICY
                + "="
                + cleanup
                + ": compaction keeps only the newest record of each key, and every record of a"
                + " transaction (its chunks, manifest and commit marker) has the same key, so it"
                + " would delete parts of transactions. Use cleanup.policy=delete (the default)."
          });
    }
  }

  /**
   * {@code r} as the source creates it: its group's topic configs (a {@code max.message.bytes} no
   * smaller than the need) and replication factor; call after {@link #errors} came back empty.
   */
  static SourceTopics.Requirement applied(
      TrellaraSourceConfig c, TopicCreationGroups groups, SourceTopics.Requirement r) {
    TopicCreationGroups.Group g = groups.forTopic(r.topic());
    Map<String, String> configs = new HashMap<>(g.configs());
    long max = Math.max(r.minMaxMessageBytes(), g.longConfig(MAX_MESSAGE_BYTES).orElse(0L));
    configs.put(MAX_MESSAGE_BYTES, Long.toString(max));
    int rf = c.getInt(TOPIC_REPLICATION_FACTOR);
    return new SourceTopics.Requirement(
        r.topic(),
        r.topicSetting(),
        r.partitions(),
        r.partitionsRule(),
        r.minMaxMessageBytes(),
        r.sizeRule(),
        rf > 0 ? (short) rf : g.replicationFactor(),
        configs);
  }
}
