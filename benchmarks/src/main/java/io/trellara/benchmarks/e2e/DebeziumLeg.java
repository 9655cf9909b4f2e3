package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.PostgresDatabase;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The third leg: Debezium's PostgreSQL source (3.6.1.Final, {@code pgoutput}) → Kafka → Debezium's
 * JDBC sink (3.6.0.Final: 3.6.1 is not served) in upsert mode with deletes enabled and the primary
 * key from the record key, POSTed to the run's worker like the Trellara legs, on fresh databases,
 * topics, slot and publication of its own. Both plugins load from their own archives on the
 * worker's {@code plugin.path} ({@link #pluginPath()}, unpacked by this module's build), each in an
 * isolated class loader, as users install them. Settings are Debezium's defaults but for what the
 * benchmark needs: {@code snapshot.mode=no_data} (both sides start with the same seeded tables, as
 * the other legs' {@code snapshot.mode=never} and native's {@code copy_data=false}), the JSON
 * converter with schemas (the JDBC sink needs them; no schema registry here), and a {@code
 * RegexRouter} that maps the topic {@code <prefix>.public.<table>} onto the target table of the
 * same name, created beforehand ({@code schema.evolution=none}). Numeric and timestamptz columns
 * arrive as Debezium's {@code Decimal} and {@code ZonedTimestamp} and are written back exactly, so
 * the fingerprints and digests of {@link Workloads} compare the same columns as in the other legs.
 */
final class DebeziumLeg implements Leg {
  static final String MODE = "debezium";

  /** Where the plugin archives are unpacked: {@code -Dbench.debezium.plugins}, else the build's. */
  static final String PLUGINS_PROPERTY = "bench.debezium.plugins";

  private static final String SOURCE_CLASS = "io.debezium.connector.postgresql.PostgresConnector";
  private static final String SINK_CLASS = "io.debezium.connector.jdbc.JdbcSinkConnector";
  private static final String JSON = "org.apache.kafka.connect.json.JsonConverter";
  private static final String PREFIX = "bench_dbz";
  private static final Duration STREAMING_WITHIN = Duration.ofSeconds(60);
  private static final Logger LOG = LoggerFactory.getLogger(DebeziumLeg.class);

  private final Platform platform;
  private final List<String> topics = new ArrayList<>();
  private final List<String> connectors = new ArrayList<>();
  private PostgresDatabase source;
  private PostgresDatabase target;
  private String slot;

  DebeziumLeg(Platform platform) {
    this.platform = platform;
  }

  /**
   * The directory holding {@code debezium-connector-postgres/} and {@code
   * debezium-connector-jdbc/}: {@code -Dbench.debezium.plugins=DIR}, else {@code
   * target/debezium-plugins} beside the classes this program runs from. Fails, naming the
   * directory, when a plugin is not there.
   */
  static Path pluginPath() {
    String configured = System.getProperty(PLUGINS_PROPERTY);
    Path dir;
    if (configured != null) {
      dir = Path.of(configured);
    } else {
      try {
        Path classes =
            Path.of(DebeziumLeg.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        dir = classes.getParent().resolve("debezium-plugins");
      } catch (URISyntaxException | RuntimeException e) {
        throw new IllegalStateException(
            "cannot tell where this program runs from: set -D" + PLUGINS_PROPERTY, e);
      }
    }
    for (String plugin : List.of("debezium-connector-postgres", "debezium-connector-jdbc")) {
      if (!Files.isDirectory(dir.resolve(plugin))) {
        throw new IllegalStateException(
            "the Debezium leg needs the plugin "
                + plugin
                + " in "
                + dir.toAbsolutePath()
                + ": build the benchmarks module (its generate-resources phase unpacks the plugin"
                + " archives there) or set -D"
                + PLUGINS_PROPERTY
                + "=DIR");
      }
    }
    return dir;
  }

  @Override
  public String mode() {
    return MODE;
  }

  @Override
  public void start() throws Exception {
    source = platform.sourceServer().createDatabase("bench_" + MODE);
    target = platform.targetServer().createDatabase("bench_" + MODE);
    Workloads.createTables(source);
    Workloads.createTables(target);
    slot = source.name() + "_slot";
    source.execute("CREATE PUBLICATION " + publication() + " FOR TABLE " + Workloads.TABLES);
    for (String table : Workloads.TABLES.split(",")) {
      String topic = PREFIX + "." + table;
      platform.broker().createTopic(topic, 1);
      topics.add(topic);
    }
    ConnectRestClient rest = platform.worker();
    String sourceName = "bench-" + MODE + "-source";
    connectors.add(sourceName);
    rest.createConnector(sourceName, sourceConfig());
    rest.awaitRunning(sourceName);
    String sinkName = "bench-" + MODE + "-sink";
    connectors.add(sinkName);
    rest.createConnector(sinkName, sinkConfig());
    rest.awaitRunning(sinkName);
    awaitStreaming();
    LOG.info("{}: connectors {} running, {} → {}", MODE, connectors, source, target);
  }

  private String publication() {
    return source.name() + "_pub";
  }

  private Map<String, String> sourceConfig() {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", SOURCE_CLASS);
    c.put("tasks.max", "1");
    c.put("plugin.name", "pgoutput");
    c.put("database.hostname", source.host());
    c.put("database.port", Integer.toString(source.port()));
    c.put("database.dbname", source.name());
    c.put("database.user", source.user());
    c.put("database.password", source.password());
    c.put("topic.prefix", PREFIX);
    c.put("slot.name", slot);
    c.put("publication.name", publication());
    c.put("publication.autocreate.mode", "disabled");
    c.put("table.include.list", Workloads.TABLES);
    c.put("snapshot.mode", "no_data");
    converters(c);
    c.putAll(TrellaraLeg.extra("bench.debezium.source.extra"));
    return c;
  }

  private Map<String, String> sinkConfig() {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", SINK_CLASS);
    c.put("tasks.max", "1");
    c.put("topics", String.join(",", topics));
    c.put("connection.url", target.jdbcUrl());
    c.put("connection.username", target.user());
    c.put("connection.password", target.password());
    c.put("insert.mode", "upsert");
    c.put("delete.enabled", "true");
    c.put("primary.key.mode", "record_key");
    c.put("schema.evolution", "none");
    c.put("transforms", "table");
    c.put("transforms.table.type", "org.apache.kafka.connect.transforms.RegexRouter");
    c.put("transforms.table.regex", PREFIX.replace(".", "\\.") + "\\.public\\.(.*)");
    c.put("transforms.table.replacement", "$1");
    converters(c);
    c.putAll(TrellaraLeg.extra("bench.debezium.sink.extra"));
    return c;
  }

  private static void converters(Map<String, String> c) {
    c.put("key.converter", JSON);
    c.put("key.converter.schemas.enable", "true");
    c.put("value.converter", JSON);
    c.put("value.converter.schemas.enable", "true");
  }

  /**
   * The source task has created its slot and streams from it: a change committed from now on is
   * captured ({@code snapshot.mode=no_data} starts at the slot's creation).
   */
  private void awaitStreaming() throws InterruptedException {
    long deadline = System.nanoTime() + STREAMING_WITHIN.toNanos();
    while (source.activeReplicationSlots(slot) == 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "[" + MODE + "] slot " + slot + " not streaming within " + STREAMING_WITHIN);
      }
      Thread.sleep(50);
    }
  }

  @Override
  public PostgresDatabase source() {
    return source;
  }

  @Override
  public PostgresDatabase target() {
    return target;
  }

  @Override
  public long workerCpuNanos() {
    return platform.workerCpuNanos().getAsLong();
  }

  @Override
  public WorkerThreads workerThreads() {
    return platform.workerThreads();
  }

  @Override
  public String bootstrapServers() {
    return platform.broker().bootstrapServers();
  }

  /** The sink first, then the source (it releases its slot), the slot, databases and topics. */
  @Override
  public void close() {
    try {
      for (int i = connectors.size() - 1; i >= 0; i--) {
        platform.worker().deleteAndAwait(connectors.get(i));
      }
      if (source != null) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (slot != null
            && source.activeReplicationSlots(slot) > 0
            && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        if (slot != null) {
          source.dropReplicationSlots(slot);
        }
        source.drop();
      }
      if (target != null) {
        target.drop();
      }
      topics.forEach(platform.broker()::deleteTopic);
      LOG.info("{}: connectors, slot, databases and topics removed", MODE);
    } catch (RuntimeException | InterruptedException e) {
      LOG.warn("{}: teardown incomplete: {}", MODE, e.getMessage());
    }
  }
}
