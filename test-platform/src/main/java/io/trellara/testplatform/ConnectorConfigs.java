package io.trellara.testplatform;

import java.util.HashMap;
import java.util.Map;

/**
 * Connector JSON as users POST it, for tests, benchmarks and the quickstart: the Trellara source
 * and sink connectors by class name (no compile-time dependency on them), pointed at platform
 * databases and topics.
 */
public final class ConnectorConfigs {
  public static final String SOURCE_CLASS = "io.trellara.source.connect.TrellaraSourceConnector";
  public static final String SINK_CLASS = "io.trellara.sink.connect.TrellaraSinkConnector";
  public static final String CONVERTER_CLASS = "io.trellara.converter.TrellaraConverter";

  /** Envelopes can be large: producer requests and topic messages up to 64 MiB. */
  public static final String MAX_MESSAGE_BYTES = Integer.toString(64 * 1024 * 1024);

  /**
   * The source's envelope cap: the largest record it publishes is the cap plus 16 KiB of record
   * overhead (TrellaraSourceConfig.RECORD_OVERHEAD_BYTES), which must fit the 64 MiB topics and
   * producer requests.
   */
  public static final String SOURCE_MAX_ENVELOPE_BYTES =
      Integer.toString(64 * 1024 * 1024 - 16 * 1024);

  /** The producer's buffer.memory must hold the largest record too (Kafka's default is 32 MiB). */
  public static final String SOURCE_BUFFER_MEMORY = Integer.toString(128 * 1024 * 1024);

  private ConnectorConfigs() {}

  /**
   * A source capturing {@code tables} of {@code db} onto {@code topic}, verifying/creating its
   * topics on the scope's broker ({@code kafka.bootstrap.servers}); {@code extra} overrides
   * anything.
   */
  public static Map<String, String> source(
      TestScope scope,
      PostgresDatabase db,
      String topic,
      String tables,
      Map<String, String> extra) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", SOURCE_CLASS);
    c.put("tasks.max", "1");
    c.put("database.hostname", db.host());
    c.put("database.port", Integer.toString(db.port()));
    c.put("database.dbname", db.name());
    c.put("database.user", db.user());
    c.put("database.password", db.password());
    c.put("database.sslmode", "disable");
    c.put("source.id", scope.prefix() + "-src");
    c.put("database.id", db.name());
    c.put("dataset.id", scope.prefix());
    c.put("slot.name", scope.slotName());
    c.put("publication.name", scope.publicationName());
    c.put("table.include.list", tables);
    c.put("topic.strict", topic);
    c.put("kafka.bootstrap.servers", scope.stack().broker().bootstrapServers());
    c.put("dataset.strict.max_envelope_bytes", SOURCE_MAX_ENVELOPE_BYTES);
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", CONVERTER_CLASS);
    c.put("producer.override.max.request.size", MAX_MESSAGE_BYTES);
    c.put("producer.override.buffer.memory", SOURCE_BUFFER_MEMORY);
    c.put("producer.override.linger.ms", "0");
    c.putAll(extra);
    return c;
  }

  /** A sink applying {@code topic} to {@code db}; {@code extra} overrides anything. */
  public static Map<String, String> sink(
      PostgresDatabase db, String topic, Map<String, String> extra) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", SINK_CLASS);
    c.put("tasks.max", "1");
    c.put("topics", topic);
    c.put("connection.url", db.jdbcUrl());
    c.put("connection.user", db.user());
    c.put("connection.password", db.password());
    c.put("connection.sslmode", "disable");
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", CONVERTER_CLASS);
    c.put("consumer.override.max.partition.fetch.bytes", MAX_MESSAGE_BYTES);
    c.put("consumer.override.auto.offset.reset", "earliest");
    c.put(
        "consumer.override.allow.auto.create.topics", "false"); // the sink never creates its topics
    c.put(
        "relation.allowlist",
        "*"); // tests write their scope's own target database; examples name tables
    c.putAll(extra);
    return c;
  }

  /** Topic settings that admit the largest envelope the configs above allow. */
  public static Map<String, String> topicConfigs() {
    return Map.of("max.message.bytes", MAX_MESSAGE_BYTES);
  }
}
