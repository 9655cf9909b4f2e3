package io.trellara.source.connect;

import static io.trellara.source.connect.TrellaraSourceConfig.*;

import io.trellara.source.kafka.SourceTopics;
import io.trellara.source.kafka.TopicCreationGroups;
import io.trellara.source.snapshot.SnapshotMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The rules of a source without {@code kafka.bootstrap.servers}: it opens no Kafka client, so it
 * cannot create, verify or read its topics. Kafka Connect's topic creation ({@code
 * topic.creation.*}, KIP-158) creates each missing topic before its first record, with the settings
 * of its group, so every topic's group must state what the topic's records need: exactly its
 * partition count (1 for the strict topic, the lanes for the partitioned one) and a {@code
 * max.message.bytes} that admits the largest record. What only the source's own Kafka access can
 * give is refused with the reason: a snapshot needs the strict topic's tail to tell a finished
 * snapshot from one that did not finish after a worker loss, unless Connect's offsets are exact
 * (exactly-once source support); {@code kafka.admin.*} settings have no client to go to.
 */
final class BrokerlessRules {
  static final String EXACTLY_ONCE_SUPPORT = "exactly.once.support";
  private static final String MAX_MESSAGE_BYTES = "max.message.bytes";
  private static final String DEFAULT_PARTITIONS =
      TopicCreationGroups.PREFIX + "default.partitions";
  private static final String DEFAULT_REPLICATION =
      TopicCreationGroups.PREFIX + "default.replication.factor";

  private BrokerlessRules() {}

  /** The errors, as (setting, message); empty with kafka.bootstrap.servers or when all is fine. */
  static List<String[]> errors(TrellaraSourceConfig c, List<SourceTopics.Requirement> topics) {
    List<String[]> errors = new ArrayList<>();
    if (c.ownKafkaAccess()) {
      return errors;
    }
    String why = " is not set, so Kafka Connect's topic creation makes the source's topics";
    for (String key : List.of(DEFAULT_PARTITIONS, DEFAULT_REPLICATION)) {
      Object v = c.originals().get(key);
      if (v == null || v.toString().isBlank()) {
        errors.add(
            new String[] {
              key,
              KAFKA_BOOTSTRAP_SERVERS
                  + why
                  + ", and Connect applies topic.creation.* only when "
                  + key
                  + " is set. Set "
                  + DEFAULT_PARTITIONS
                  + "=1 and "
                  + DEFAULT_REPLICATION
                  + " (-1 for the broker's default), or set "
                  + KAFKA_BOOTSTRAP_SERVERS
                  + "."
            });
      }
    }
    if (errors.isEmpty()) {
      try {
        TopicCreationGroups groups = c.topicCreation();
        for (SourceTopics.Requirement r : topics) {
          topic(c, r, groups.forTopic(r.topic()), errors);
        }
      } catch (TopicCreationGroups.InvalidSetting e) {
        // TopicCreationRules reports it
      }
    }
    snapshot(c, errors);
    for (String key : c.originals().keySet()) {
      if (key.startsWith(KAFKA_ADMIN_PREFIX)) {
        errors.add(
            new String[] {
              key,
              key
                  + " configures the source's own Kafka client, which it opens only with "
                  + KAFKA_BOOTSTRAP_SERVERS
                  + ". Set "
                  + KAFKA_BOOTSTRAP_SERVERS
                  + ", or remove "
                  + key
                  + "."
            });
      }
    }
    return errors;
  }

  private static void topic(
      TrellaraSourceConfig c,
      SourceTopics.Requirement r,
      TopicCreationGroups.Group g,
      List<String[]> errors) {
    String topic =
        "Topic '"
            + r.topic()
            + "' ("
            + r.topicSetting()
            + ") is created by Kafka Connect with the group '"
            + g.name()
            + "' ("
            + KAFKA_BOOTSTRAP_SERVERS
            + " is not set)";
    if (g.partitions() != r.partitions()) {
      errors.add(
          new String[] {
            g.setting("partitions"),
            topic
                + ", which asks for "
                + (g.partitions() < 0 ? "the broker's default partition count" : g.partitions())
                + ", but "
                + r.partitionsRule()
                + " requires exactly "
                + r.partitions()
                + ". Set "
                + g.setting("partitions")
                + "="
                + r.partitions()
                + (r.partitions() == 1
                    ? ""
                    : " in a group of its own (topic.creation.groups, with its include)")
                + "."
          });
    }
    Optional<Long> max = g.longConfig(MAX_MESSAGE_BYTES);
    if (max.isEmpty()) {
      errors.add(
          new String[] {
            g.setting(MAX_MESSAGE_BYTES),
            topic
                + ", which sets no max.message.bytes: the topic would get the broker's"
                + " message.max.bytes, which the connector cannot see, and the largest record of"
                + " this flow is "
                + c.largestRecordText()
                + ". Set "
                + g.setting(MAX_MESSAGE_BYTES)
                + "="
                + r.minMaxMessageBytes()
                + " (or more)."
          });
    }
    // a value below the need is TopicCreationRules' error already
    int rf = c.getInt(TOPIC_REPLICATION_FACTOR);
    if (rf > 0 && g.replicationFactor() <= 0) {
      errors.add(
          new String[] {
            TOPIC_REPLICATION_FACTOR,
            topic
                + ", which asks for the broker's default replication factor; "
                + TOPIC_REPLICATION_FACTOR
                + "="
                + rf
                + " applies only to the topics the source creates itself. Set "
                + g.setting("replication.factor")
                + "="
                + rf
                + "."
          });
    }
  }

  /**
   * Every snapshot mode but never decides from the position whether a snapshot finished; without
   * the strict topic's tail, only Connect's offsets say so, and those lag behind the topic
   * (offset.flush.interval.ms) unless the worker writes them in the records' Kafka transactions.
   */
  private static void snapshot(TrellaraSourceConfig c, List<String[]> errors) {
    if (c.snapshotMode() == SnapshotMode.NEVER) {
      return;
    }
    Object eos = c.originals().get(EXACTLY_ONCE_SUPPORT);
    if (eos != null && "required".equalsIgnoreCase(eos.toString().trim())) {
      return;
    }
    errors.add(
        new String[] {
          SNAPSHOT_MODE,
          SNAPSHOT_MODE
              + "="
              + c.getString(SNAPSHOT_MODE)
              + " needs to tell a finished snapshot from one that did not finish after a worker"
              + " loss. With "
              + KAFKA_BOOTSTRAP_SERVERS
              + " the source reads its strict topic's tail for that; without it only Connect's"
              + " offsets say so, and they lag behind the topic by up to offset.flush.interval.ms,"
              + " so a worker lost after a snapshot would drop the slot and take the whole"
              + " snapshot again. Set "
              + KAFKA_BOOTSTRAP_SERVERS
              + ", or "
              + EXACTLY_ONCE_SUPPORT
              + "=required (with exactly.once.source.support=enabled on the worker, which then"
              + " commits the offsets with the records), or "
              + SNAPSHOT_MODE
              + "=never."
        });
  }
}
