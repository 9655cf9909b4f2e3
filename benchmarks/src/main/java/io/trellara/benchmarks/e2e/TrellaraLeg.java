package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.PostgresDatabase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Trellara pipeline in one boundary mode: the source and sink connectors POSTed as JSON to the
 * run's worker, on fresh databases, topics, slot and publication of their own.
 */
final class TrellaraLeg implements Leg {
  static final List<String> MODES = List.of("strict", "strict_chunked", "partitioned");

  /** One 300k-row envelope is ~100 MB: every limit on its way is raised to 256 MiB. */
  private static final String LARGE = Integer.toString(256 * 1024 * 1024);

  /** Lanes of partitioned mode: {@code -Dbench.partitioned.lanes=N}, 4 by default (W1's setup). */
  private static final int LANES = Integer.getInteger("bench.partitioned.lanes", 4);

  /**
   * The sink task counts partitioned mode runs with, one leg each: {@code
   * -Dbench.partitioned.sinkTasks=1,2,4} by default (partitioned mode exists to scale out).
   */
  static List<Integer> partitionedSinkTasks() {
    List<Integer> out = new ArrayList<>();
    for (String n : System.getProperty("bench.partitioned.sinkTasks", "1,2,4").split(",")) {
      out.add(Integer.parseInt(n.trim()));
    }
    return out;
  }

  private static final Logger LOG = LoggerFactory.getLogger(TrellaraLeg.class);

  private final String mode;

  /** The leg's name: its mode, and in partitioned mode its sink tasks ({@code partitioned@2}). */
  private final String name;

  private final int sinkTasks;
  private final Platform platform;
  private final String sourceConnector;
  private final String sinkConnector;
  private final String strictTopic;
  private final String lanesTopic;
  private final List<String> topics = new ArrayList<>();
  private final List<String> connectors = new ArrayList<>();
  private PostgresDatabase source;
  private PostgresDatabase target;

  /**
   * What users get: no producer linger, consumer fetch or apply overrides (only the record-size
   * limits the source's validation requires for its default envelope cap).
   */
  private final boolean atDefaults;

  TrellaraLeg(String mode, Platform platform) {
    this(mode, platform, false);
  }

  /** {@code leg}: a boundary mode, or {@code partitioned@N} (N sink tasks, else the first). */
  TrellaraLeg(String leg, Platform platform, boolean atDefaults) {
    this.atDefaults = atDefaults;
    int at = leg.indexOf('@');
    String mode = at < 0 ? leg : leg.substring(0, at);
    if (!MODES.contains(mode)) {
      throw new IllegalArgumentException("boundary mode " + mode + " is not one of " + MODES);
    }
    this.mode = mode;
    this.sinkTasks =
        !mode.equals("partitioned")
            ? 1
            : at < 0 ? partitionedSinkTasks().get(0) : Integer.parseInt(leg.substring(at + 1));
    this.name = mode.equals("partitioned") ? mode + "@" + sinkTasks : mode;
    String id = mode.equals("partitioned") ? mode + "_" + sinkTasks + "t" : mode;
    this.platform = platform;
    this.sourceConnector = "bench-" + id + "-source";
    this.sinkConnector = "bench-" + id + "-sink";
    this.strictTopic = "bench." + id + ".strict";
    this.lanesTopic = "bench." + id + ".lanes";
    this.id = id;
  }

  /** What names the leg's databases, slot, publication, topics and connectors. */
  private final String id;

  @Override
  public String mode() {
    return name;
  }

  private boolean partitioned() {
    return mode.equals("partitioned");
  }

  @Override
  public void start() {
    source = platform.sourceServer().createDatabase("bench_" + id);
    target = platform.targetServer().createDatabase("bench_" + id);
    Workloads.createTables(source);
    Workloads.createTables(target);
    createTopic(strictTopic, 1);
    if (partitioned()) {
      createTopic(lanesTopic, LANES);
    }
    ConnectRestClient rest = platform.worker();
    connectors.add(sourceConnector);
    rest.createConnector(sourceConnector, sourceConfig());
    rest.awaitRunning(sourceConnector);
    connectors.add(sinkConnector);
    Map<String, String> sinkExtra =
        new HashMap<>(
            atDefaults
                ? Map.of("tasks.max", Integer.toString(sinkTasks()))
                : Map.of(
                    "tasks.max",
                    Integer.toString(sinkTasks()),
                    "consumer.override.max.partition.fetch.bytes",
                    LARGE,
                    "consumer.override.fetch.max.bytes",
                    LARGE));
    sinkExtra.putAll(extra("bench.sink.extra"));
    rest.createConnector(
        sinkConnector, ConnectorConfigs.sink(target, String.join(",", topics), sinkExtra));
    rest.awaitRunning(sinkConnector);
    LOG.info(
        "{}: connectors {} and {} running, {} → {}",
        name,
        sourceConnector,
        sinkConnector,
        source,
        target);
  }

  private void createTopic(String topic, int partitions) {
    platform.broker().createTopic(topic, partitions, Map.of("max.message.bytes", LARGE));
    topics.add(topic);
  }

  private Map<String, String> sourceConfig() {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", ConnectorConfigs.SOURCE_CLASS);
    c.put("tasks.max", "1");
    c.put("database.hostname", source.host());
    c.put("database.port", Integer.toString(source.port()));
    c.put("database.dbname", source.name());
    c.put("database.user", source.user());
    c.put("database.password", source.password());
    c.put("database.sslmode", "disable");
    c.put("source.id", "bench-" + id + "-src");
    c.put("database.id", "bench-" + id + "-db");
    c.put("dataset.id", "bench-" + id);
    c.put("slot.name", slotName());
    // both sides start with the same seeded tables, as the native leg's copy_data=false
    c.put("snapshot.mode", "never");
    c.put("publication.name", "bench_" + id + "_pub");
    c.put("table.include.list", Workloads.TABLES);
    c.put("topic.strict", strictTopic);
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", ConnectorConfigs.CONVERTER_CLASS);
    // required by the source's own validation whatever else is tuned: they only admit large records
    c.put("producer.override.max.request.size", LARGE);
    c.put("producer.override.buffer.memory", Integer.toString(512 * 1024 * 1024));
    // the largest record is the envelope cap plus 16 KiB of record overhead: it must fit LARGE
    c.put(
        "dataset.strict.max_envelope_bytes", Integer.toString(Integer.parseInt(LARGE) - 16 * 1024));
    c.put("kafka.bootstrap.servers", platform.broker().bootstrapServers());
    if (partitioned()) {
      c.putAll(
          Map.of(
              "dataset.mode",
              "partitioned_scale_mode",
              "topic.partitioned",
              lanesTopic,
              "dataset.partitioned.partition_count",
              Integer.toString(LANES)));
    } else if (mode.equals("strict_chunked")) {
      c.put("dataset.strict_chunking.max_changes_per_chunk", "5000");
    }
    c.putAll(extra("bench.source.extra"));
    return c;
  }

  /**
   * Settings added to a connector from a system property, {@code key=value} pairs separated by
   * commas (e.g. {@code -Dbench.source.extra=producer.override.linger.ms=0}): to see what an
   * override changes.
   */
  static Map<String, String> extra(String property) {
    Map<String, String> out = new HashMap<>();
    for (String pair : System.getProperty(property, "").split(",")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        out.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
      }
    }
    return out;
  }

  private int sinkTasks() {
    return sinkTasks;
  }

  private String slotName() {
    return "bench_" + id + "_slot";
  }

  @Override
  public String strictTopic() {
    return strictTopic;
  }

  @Override
  public String bootstrapServers() {
    return platform.broker().bootstrapServers();
  }

  @Override
  public WorkerThreads workerThreads() {
    return platform.workerThreads();
  }

  @Override
  public long workerCpuNanos() {
    return platform.workerCpuNanos().getAsLong();
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
  public Stages stages() {
    return new Timeline(platform.broker(), topics, sourceConnector, sinkConnector, sinkTasks());
  }

  /**
   * Connectors first (the source task releases its slot), then the slot, the databases and the
   * topics.
   */
  @Override
  public void close() {
    try {
      for (int i = connectors.size() - 1;
          i >= 0;
          i--) { // the sink first: it stops reading the topics
        platform.worker().deleteAndAwait(connectors.get(i));
      }
      if (source != null) {
        awaitSlotReleased();
        source.dropReplicationSlots(slotName());
        source.drop();
      }
      if (target != null) {
        target.drop();
      }
      topics.forEach(platform.broker()::deleteTopic);
      LOG.info("{}: connectors, slot, databases and topics removed", name);
    } catch (RuntimeException | InterruptedException e) {
      LOG.warn("{}: teardown incomplete: {}", name, e.getMessage());
    }
  }

  private void awaitSlotReleased() throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (source.activeReplicationSlots(slotName()) > 0 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
  }
}
