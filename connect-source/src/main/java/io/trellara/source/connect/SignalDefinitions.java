package io.trellara.source.connect;

import static io.trellara.source.connect.TrellaraSourceConfig.*;

import io.trellara.source.signal.KafkaSignalSettings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The settings of the Kafka signal topic (in the Replication group, after {@code signal.table}):
 * where a read-only source, or one whose signallers have no rights on the database, reads its
 * signals from.
 */
final class SignalDefinitions {
  /** After the Replication group's own settings. */
  private static final int FIRST_ORDER = 100;

  private SignalDefinitions() {}

  static void define(ConfigDef d) {
    int o = FIRST_ORDER;
    d.define(
        SIGNAL_KAFKA_TOPIC,
        Type.STRING,
        "",
        Importance.LOW,
        "A Kafka topic whose records are signals to this connector (the way to signal a read-only"
            + " source or a hot standby, see docs/snapshot.md): each record's key is the"
            + " connector's name (records keyed otherwise are skipped, so connectors may share the"
            + " topic) and its value JSON, {\"id\": \"...\", \"type\": \"snapshot\", \"data\":"
            + " \"public.orders\"}, with the signal table's rules, or Debezium's"
            + " {\"type\": \"execute-snapshot\", \"data\": {\"data-collections\": [...]}}. Taken at a"
            + " transaction boundary of the stream, as if committed there. Its Kafka offset is"
            + " committed once the snapshot it caused is published and acknowledged, so a task"
            + " killed meanwhile reads it again. Whoever may WRITE to the topic may signal:"
            + " restrict it with ACLs. A malformed signal is logged and ignored; a broker out of"
            + " reach delays signals, never the stream. Empty: no signal topic.",
        GROUP_REPLICATION,
        ++o,
        Width.MEDIUM,
        "Signal topic");
    d.define(
        SIGNAL_KAFKA_BOOTSTRAP_SERVERS,
        Type.STRING,
        "",
        Importance.LOW,
        "The brokers of "
            + SIGNAL_KAFKA_TOPIC
            + ". Empty: "
            + KAFKA_BOOTSTRAP_SERVERS
            + ". The consumer takes the client settings of "
            + KAFKA_ADMIN_PREFIX
            + "* (security), then every "
            + SIGNAL_KAFKA_CONSUMER_PREFIX
            + "* entry without its prefix (for example "
            + SIGNAL_KAFKA_CONSUMER_PREFIX
            + "sasl.jaas.config); group.id, enable.auto.commit=false, isolation.level=read_committed"
            + " and the deserializers are its own.",
        GROUP_REPLICATION,
        ++o,
        Width.LONG,
        "Signal topic brokers");
    d.define(
        SIGNAL_KAFKA_GROUP_ID,
        Type.STRING,
        "",
        Importance.LOW,
        "The consumer group whose committed offsets say which signals of "
            + SIGNAL_KAFKA_TOPIC
            + " were carried out (the consumer assigns itself every partition: no rebalances)."
            + " With no committed offset it reads from the earliest record. Empty:"
            + " trellara-signal-<connector name>.",
        GROUP_REPLICATION,
        ++o,
        Width.MEDIUM,
        "Signal topic consumer group");
  }

  /** Cross-field rules: a signal topic needs brokers. */
  static List<String[]> errors(TrellaraSourceConfig c) {
    if (!c.getString(SIGNAL_KAFKA_TOPIC).isBlank() && brokers(c).isBlank()) {
      return List.<String[]>of(
          new String[] {
            SIGNAL_KAFKA_TOPIC,
            SIGNAL_KAFKA_TOPIC
                + " is read from "
                + SIGNAL_KAFKA_BOOTSTRAP_SERVERS
                + ", or "
                + KAFKA_BOOTSTRAP_SERVERS
                + " when that is empty; both are empty. Set one of them."
          });
    }
    return List.of();
  }

  /** The signal topic's settings, or null when there is none. */
  static KafkaSignalSettings settings(TrellaraSourceConfig c, String connector) {
    String topic = c.getString(SIGNAL_KAFKA_TOPIC).strip();
    if (topic.isEmpty()) {
      return null;
    }
    Map<String, Object> client = new HashMap<>(c.originalsWithPrefix(KAFKA_ADMIN_PREFIX));
    client.putAll(c.originalsWithPrefix(SIGNAL_KAFKA_CONSUMER_PREFIX));
    client.put("bootstrap.servers", brokers(c));
    String group = c.getString(SIGNAL_KAFKA_GROUP_ID).strip();
    return new KafkaSignalSettings(
        topic,
        client,
        group.isEmpty() ? KafkaSignalSettings.defaultGroupId(connector) : group,
        connector);
  }

  private static String brokers(TrellaraSourceConfig c) {
    String own = c.getString(SIGNAL_KAFKA_BOOTSTRAP_SERVERS).strip();
    return own.isEmpty() ? c.getString(KAFKA_BOOTSTRAP_SERVERS).strip() : own;
  }
}
