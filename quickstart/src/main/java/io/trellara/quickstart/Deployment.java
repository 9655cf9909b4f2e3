package io.trellara.quickstart;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectorConfigs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * What the run puts on the stack: the demo schema on both sides, the sink's least-privilege role,
 * the topic, and the two connectors POSTed to the worker's REST API. On existing servers it also
 * arranges the removal of the slot, publication and topics it created.
 */
final class Deployment {

  static final String SOURCE_CONNECTOR = "trellara-source";
  static final String SINK_CONNECTOR = "trellara-sink";
  static final List<String> CONNECTORS = List.of(SOURCE_CONNECTOR, SINK_CONNECTOR);

  private final Options options;
  private final Stack stack;
  private final RunNames names;
  private final ConsoleReport report;

  /** What the sink connects as: a least-privilege role on an embedded target. */
  private Db applier;

  Deployment(Options options, Stack stack, RunNames names, ConsoleReport report) {
    this.options = options;
    this.stack = stack;
    this.names = names;
    this.report = report;
  }

  /**
   * The demo schema on both sides (the initial schema is not replicated), the sink's role and the
   * topic.
   */
  void createSchema() {
    Db source = stack.source();
    Db target = stack.target();
    String wal = source.queryString("SHOW wal_level");
    if (!"logical".equals(wal)) {
      throw new IllegalStateException(
          "the source PostgreSQL runs with wal_level="
              + wal
              + "; logical decoding needs wal_level=logical (ALTER SYSTEM SET wal_level = logical; restart)");
    }
    removeAtExitFromExistingServers();
    source.execute(DemoWorkload.schemaDdl());
    target.execute(DemoWorkload.schemaDdl());
    applier = options.embeddedTarget() ? leastPrivilegeApplier(target) : target;
    report.step(
        "schema "
            + DemoWorkload.SCHEMA
            + " created on both sides: customer, product (stock), orders,"
            + " order_line, payment");
    int rf = options.embeddedKafka() ? 1 : -1;
    NewTopic newTopic =
        new NewTopic(
                names.topic(), Optional.of(1), rf > 0 ? Optional.of((short) rf) : Optional.empty())
            .configs(ConnectorConfigs.topicConfigs());
    try {
      stack.admin().createTopics(List.of(newTopic)).all().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot create topic " + names.topic() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Embedded servers go with their temp directories; on existing ones only what this run created is
   * removed.
   */
  private void removeAtExitFromExistingServers() {
    if (!options.embeddedSource()) {
      Db source = stack.source();
      stack.afterWorkerStops(
          () -> {
            org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(15))
                .until(
                    () ->
                        source.queryLong(
                                "SELECT count(*) FROM pg_replication_slots WHERE active AND"
                                    + " slot_name = '"
                                    + names.slot()
                                    + "'")
                            == 0);
            source.execute(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                    + " WHERE slot_name = '"
                    + names.slot()
                    + "'",
                "DROP PUBLICATION IF EXISTS " + names.publication());
          });
    }
    if (!options.embeddedKafka()) {
      List<String> topics = new ArrayList<>(List.of(names.topic()));
      topics.addAll(List.of(names.workerTopics()));
      stack.afterWorkerStops(
          () -> stack.admin().deleteTopics(topics).all().get(30, TimeUnit.SECONDS));
    }
  }

  /**
   * The sink connects as a role that owns the demo tables (so structured schema evolution may ALTER
   * them) and its own schema trellara_sink, and nothing else: no superuser, no CREATE on the
   * database. An existing target is used with the user given.
   */
  private Db leastPrivilegeApplier(Db target) {
    byte[] secret = new byte[12];
    new java.security.SecureRandom().nextBytes(secret);
    String password =
        java.util.HexFormat.of().formatHex(secret); // hex: safe inside the SQL literal
    List<String> sql =
        new ArrayList<>(
            List.of(
                "CREATE ROLE trellara_applier LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '"
                    + password
                    + "'",
                "GRANT USAGE ON SCHEMA " + DemoWorkload.SCHEMA + " TO trellara_applier",
                "CREATE SCHEMA trellara_sink AUTHORIZATION trellara_applier"));
    for (String table : DemoWorkload.tableList().split(",")) {
      sql.add("ALTER TABLE " + table + " OWNER TO trellara_applier");
    }
    target.execute(sql.toArray(new String[0]));
    report.step(
        "sink role trellara_applier on the target: owns the demo tables and trellara_sink, nothing else");
    return new Db("target (sink role)", target.url, "trellara_applier", password);
  }

  /** Source first (it creates the slot and publication), each awaited RUNNING. */
  void deployConnectors() {
    ConnectRestClient rest = stack.worker().rest();
    ConfigExamples examples = new ConfigExamples(options.configDir, rest, report);
    Map<String, String> placeholders = new LinkedHashMap<>();
    placeholders.put("source-postgres", stack.source().host);
    placeholders.put("target-postgres", stack.target().host);
    placeholders.put("kafka:9092", stack.bootstrapServers());
    Map<String, String> sourceConfig =
        examples.configFor("source", ConnectorConfigs.SOURCE_CLASS, builtInSource(), placeholders);
    Map<String, String> sinkConfig =
        examples.configFor("sink", ConnectorConfigs.SINK_CLASS, builtInSink(), placeholders);
    rest.createConnector(SOURCE_CONNECTOR, sourceConfig);
    rest.awaitRunning(SOURCE_CONNECTOR);
    rest.createConnector(SINK_CONNECTOR, sinkConfig);
    rest.awaitRunning(SINK_CONNECTOR);
    report.step(
        "connectors POSTed to "
            + stack.worker().restUrl()
            + "connectors and RUNNING: "
            + SOURCE_CONNECTOR
            + ", "
            + SINK_CONNECTOR
            + " (topic "
            + names.topic()
            + "; the sink runs no DDL text and evolves schemas"
            + " structurally)");
  }

  private Map<String, String> builtInSource() {
    Db source = stack.source();
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", ConnectorConfigs.SOURCE_CLASS);
    c.put("tasks.max", "1");
    c.put("database.hostname", source.host);
    c.put("database.port", Integer.toString(source.port));
    c.put("database.dbname", source.database);
    c.put("database.user", source.user);
    c.put("database.password", source.password);
    c.put("database.sslmode", options.embeddedSource() ? "disable" : "prefer");
    c.put("source.id", names.sourceId());
    c.put("database.id", source.database);
    c.put("dataset.id", "quickstart");
    c.put("slot.name", names.slot());
    c.put("publication.name", names.publication());
    c.put("table.include.list", DemoWorkload.tableList());
    c.put("topic.strict", names.topic());
    c.put("kafka.bootstrap.servers", stack.bootstrapServers());
    c.put("dataset.strict.max_envelope_bytes", ConnectorConfigs.SOURCE_MAX_ENVELOPE_BYTES);
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", ConnectorConfigs.CONVERTER_CLASS);
    c.put("producer.override.max.request.size", ConnectorConfigs.MAX_MESSAGE_BYTES);
    c.put("producer.override.buffer.memory", ConnectorConfigs.SOURCE_BUFFER_MEMORY);
    c.put("producer.override.linger.ms", "0");
    return c;
  }

  private Map<String, String> builtInSink() {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", ConnectorConfigs.SINK_CLASS);
    c.put("tasks.max", "1");
    c.put("topics", names.topic());
    c.put("connection.url", applier.url);
    c.put("connection.user", applier.user);
    c.put("connection.password", applier.password);
    c.put("connection.sslmode", options.embeddedTarget() ? "disable" : "prefer");
    c.put("relation.allowlist", DemoWorkload.tableList());
    c.put("consumer.override.allow.auto.create.topics", "false");
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", ConnectorConfigs.CONVERTER_CLASS);
    c.put("consumer.override.max.partition.fetch.bytes", ConnectorConfigs.MAX_MESSAGE_BYTES);
    c.put("consumer.override.auto.offset.reset", "earliest");
    return c;
  }
}
