package io.trellara.benchmarks.e2e.resnap;

import io.trellara.benchmarks.e2e.WorkerRun;
import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Trellara's online snapshot (docs/snapshot.md, "Online snapshots: signals"): the source and sink
 * connectors POSTed to the run's worker at their defaults in strict mode (but for the record-size
 * limits the source's validation asks for), {@code snapshot.mode=never} with the big table seeded
 * identically on both sides and {@code damage} of its rows deleted on the target (so the load is
 * seen to land), {@code signal.table} set; the load is a row inserted into the signal table. Its
 * end: the sink's record of the snapshot transaction in {@code trellara_sink.applied_transactions}.
 */
final class TrellaraResnapLeg implements ResnapLeg {
  static final String SIGNAL_ID = "resnap-big";
  private static final String NAME = "resnap";
  private static final Pattern READ =
      Pattern.compile("Online snapshot of signal " + SIGNAL_ID + " read table public.big: .*");
  private static final Pattern PUBLISHED =
      Pattern.compile("Signal " + SIGNAL_ID + ": snapshot of public.big at .* published: .*");
  private static final Pattern APPLIED =
      Pattern.compile("Applied snapshot \\S+ to the target: table\\(s\\) public.big, .*");

  private final PostgresDatabase source;
  private final PostgresServer targetServer;
  private final KafkaBroker broker;
  private final WorkerRun worker;
  private final long rows;
  private final long damage;
  private final String topic = NAME + ".strict";
  private PostgresDatabase target;
  private boolean deployed;

  TrellaraResnapLeg(
      PostgresDatabase source,
      PostgresServer targetServer,
      KafkaBroker broker,
      WorkerRun worker,
      long rows,
      long damage) {
    this.source = source;
    this.targetServer = targetServer;
    this.broker = broker;
    this.worker = worker;
    this.rows = rows;
    this.damage = damage;
  }

  @Override
  public String name() {
    return "trellara";
  }

  @Override
  public void start() throws Exception {
    ResnapshotBenchmark.recreateW1(source);
    source.execute(
        "DROP TABLE IF EXISTS signals",
        "CREATE TABLE signals (id text PRIMARY KEY, type text NOT NULL, data text)");
    target = targetServer.createDatabase("resnap_trellara");
    ResnapshotBenchmark.seed(target, rows);
    target.execute("DELETE FROM big WHERE id <= " + damage, "VACUUM ANALYZE big");
    target.execute(W1Writer.SCHEMA);
    broker.createTopic(topic, 1, ConnectorConfigs.topicConfigs());
    ConnectRestClient rest = worker.rest();
    deployed = true;
    rest.createConnector(NAME + "-source", sourceConfig());
    rest.awaitRunning(NAME + "-source");
    Map<String, String> sink = new HashMap<>(ConnectorConfigs.sink(target, topic, Map.of()));
    sink.remove("consumer.override.max.partition.fetch.bytes"); // Kafka's default fetch sizes
    sink.putAll(ResnapshotBenchmark.extra("bench.sink.extra"));
    rest.createConnector(NAME + "-sink", sink);
    rest.awaitRunning(NAME + "-sink");
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
    c.put("source.id", NAME + "-src");
    c.put("database.id", NAME + "-db");
    c.put("dataset.id", NAME);
    c.put("slot.name", NAME + "_slot");
    c.put("publication.name", NAME + "_pub");
    c.put("snapshot.mode", "never"); // both sides seeded alike: the re-snapshot is the only load
    c.put("table.include.list", "public.big,public.account,public.transfer,public.signals");
    c.put("signal.table", "public.signals");
    c.put("topic.strict", topic);
    c.put("kafka.bootstrap.servers", broker.bootstrapServers());
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", ConnectorConfigs.CONVERTER_CLASS);
    // the source's own validation: its default envelope cap needs these (the snapshot is chunked)
    c.put("producer.override.max.request.size", ConnectorConfigs.MAX_MESSAGE_BYTES);
    c.put("producer.override.buffer.memory", ConnectorConfigs.SOURCE_BUFFER_MEMORY);
    c.put("dataset.strict.max_envelope_bytes", ConnectorConfigs.SOURCE_MAX_ENVELOPE_BYTES);
    c.putAll(ResnapshotBenchmark.extra("bench.source.extra"));
    return c;
  }

  @Override
  public PostgresDatabase target() {
    return target;
  }

  @Override
  public Set<Long> wholeCounts() {
    return Set.of(rows - damage, rows);
  }

  @Override
  public void trigger() {
    source.execute("INSERT INTO signals VALUES ('" + SIGNAL_ID + "', 'snapshot', 'public.big')");
  }

  @Override
  public boolean loaded() {
    return target.queryLong(
            "SELECT count(*) FROM trellara_sink.applied_transactions"
                + " WHERE transaction_id = 'snapshot'")
        > 0;
  }

  /** The connectors' own lines about the load, from the worker process's log. */
  @Override
  public String details() throws IOException {
    Path log = worker.logFile();
    if (log == null || !Files.exists(log)) {
      return "";
    }
    StringJoiner out = new StringJoiner("\n    ", "    ", "");
    for (String line : Files.readAllLines(log)) {
      for (Pattern p : new Pattern[] {READ, PUBLISHED, APPLIED}) {
        Matcher m = p.matcher(line);
        if (m.find()) {
          out.add(m.group());
        }
      }
    }
    return out.toString();
  }

  @Override
  public void close() {
    try {
      if (deployed) {
        worker.rest().deleteAndAwait(NAME + "-sink");
        worker.rest().deleteAndAwait(NAME + "-source");
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (source.activeReplicationSlots(NAME + "_slot") > 0 && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        source.dropReplicationSlots(NAME + "_slot");
        source.execute("DROP PUBLICATION IF EXISTS " + NAME + "_pub");
        broker.deleteTopic(topic);
      }
      if (target != null) {
        target.drop();
      }
    } catch (RuntimeException | InterruptedException e) {
      System.out.println("trellara: teardown incomplete: " + e.getMessage());
    }
  }
}
