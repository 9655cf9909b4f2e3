package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.PostgresServer;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.postgresql.PGConnection;

/**
 * The initial load of a database that already holds data, three ways side by side in one run
 * between the same two durable PostgreSQL 17 servers: PostgreSQL's own {@code CREATE SUBSCRIPTION
 * ... WITH (copy_data = true)}, a plain copy ({@code COPY ... TO STDOUT} piped into {@code COPY ...
 * FROM STDIN}, table by table: what {@code pg_dump --data-only | psql} does; no pg_dump 17 binary
 * is on this machine), and Trellara's snapshot (source and sink at their defaults, POSTed to an
 * in-JVM worker: strict mode, the snapshot chunked, applied in one target transaction). Each is
 * timed from its start until the target holds every row. Not a test: run it by hand, {@code ./mvnw
 * -q -B -o install -DskipTests -DskipITs && ./mvnw -q -B -o -pl benchmarks exec:java
 * -Dexec.mainClass=io.trellara.benchmarks.e2e.SnapshotBenchmark -Dexec.args="10000000 20"} (rows of
 * the large table, number of small tables of 1,000 rows).
 */
public final class SnapshotBenchmark {
  private static final String BIG =
      "CREATE TABLE big (id bigint PRIMARY KEY, account int NOT NULL, note text,"
          + " at timestamptz NOT NULL, amount numeric(12,2))";

  private final int rows;
  private final int smallTables;
  private final int warmupRows;

  private SnapshotBenchmark(int rows, int smallTables, int warmupRows) {
    this.rows = rows;
    this.smallTables = smallTables;
    this.warmupRows = warmupRows;
  }

  /**
   * Arguments: rows of the big table, small tables, rows of a warm-up snapshot run first (0: none,
   * a cold JVM).
   */
  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
    int small = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 0;
    new SnapshotBenchmark(rows, small, warmup).run();
  }

  private void run() throws Exception {
    try (PostgresServer sourcePg =
            PostgresServer.builder().name("snap-source").durable().build().start();
        PostgresServer targetPg =
            PostgresServer.builder().name("snap-target").durable().build().start();
        KafkaBroker broker = KafkaBroker.builder().build()) {
      broker.start();
      ConnectWorker worker = ConnectWorker.builder(broker).groupId("snapbench").build().start();
      try {
        PostgresDatabase source = sourcePg.createDatabase("snapsrc");
        long t0 = System.nanoTime();
        seed(source, rows, smallTables);
        long bytes =
            source.queryLong(
                "SELECT sum(pg_table_size(c.oid)) FROM pg_class c WHERE c.relname = 'big'"
                    + " OR c.relname LIKE 'small\\_%'");
        System.out.printf(
            Locale.ROOT,
            "seeded %,d rows + %d tables of 1,000 rows (%,d MB of tables) in %.1f s%n",
            rows,
            smallTables,
            bytes >> 20,
            (System.nanoTime() - t0) / 1e9);
        if (warmupRows
            > 0) { // the connectors' code compiled by the JIT, as in a worker that has run a while
          PostgresDatabase warm = sourcePg.createDatabase("snapwarm");
          seed(warm, warmupRows, 0);
          timed(
              "warm-up trellara snapshot of " + warmupRows + " rows",
              () ->
                  trellara(
                      "snapwarm",
                      warm,
                      targetPg.createDatabase("warm"),
                      warmupRows,
                      0,
                      broker,
                      worker));
        }
        PostgresDatabase nativeTarget = targetPg.createDatabase("native");
        double nativeS = timed("native copy_data", () -> nativeCopy(source, nativeTarget));
        quiet(nativeTarget);
        PostgresDatabase copyTarget = targetPg.createDatabase("copy");
        double copyS = timed("COPY | COPY", () -> copyPipe(source, copyTarget));
        quiet(copyTarget);
        double ours =
            timed(
                "trellara snapshot",
                () ->
                    trellara(
                        "snapbench",
                        source,
                        targetPg.createDatabase("trellara"),
                        rows,
                        smallTables,
                        broker,
                        worker));
        System.out.printf(
            Locale.ROOT,
            "%nSNAPSHOT %,d rows + %d small tables (%,d MB)%n",
            rows,
            smallTables,
            bytes >> 20);
        for (Object[] r :
            new Object[][] {
              {"native copy_data", nativeS}, {"COPY | COPY", copyS}, {"trellara snapshot", ours}
            }) {
          double s = (Double) r[1];
          System.out.printf(
              Locale.ROOT,
              "  %-18s %7.1f s  %,10.0f rows/s  %.2f x native time%n",
              r[0],
              s,
              total() / s,
              s / nativeS);
        }
      } finally {
        worker.stop();
      }
    }
  }

  /**
   * Vacuums a loaded target outside the timing: otherwise autovacuum does it during the next leg
   * (5.7 CPU-s of the Trellara leg's 78 s on two cores in one 10,000,000-row run).
   */
  private static void quiet(PostgresDatabase loaded) {
    loaded.execute("VACUUM ANALYZE");
  }

  private long total() {
    return rows + smallTables * 1000L;
  }

  private interface Load {
    void run() throws Exception;
  }

  private static double timed(String name, Load load) throws Exception {
    var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
    long compiling = jit.getTotalCompilationTime();
    long t = System.nanoTime();
    load.run();
    double s = (System.nanoTime() - t) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "%s: %.1f s (this JVM's JIT compiled for %.1f s meanwhile)%n",
        name,
        s,
        (jit.getTotalCompilationTime() - compiling) / 1e3);
    return s;
  }

  private void schema(PostgresDatabase db) {
    schema(db, smallTables);
  }

  private static void schema(PostgresDatabase db, int smallTables) {
    db.execute(BIG);
    for (int i = 1; i <= smallTables; i++) {
      db.execute("CREATE TABLE small_" + i + " (id int PRIMARY KEY, v text NOT NULL, n bigint)");
    }
  }

  private String tables() {
    return tables(smallTables);
  }

  private static String tables(int smallTables) {
    List<String> t = new ArrayList<>(List.of("public.big"));
    for (int i = 1; i <= smallTables; i++) {
      t.add("public.small_" + i);
    }
    return String.join(",", t);
  }

  private static void seed(PostgresDatabase db, int rows, int smallTables) {
    schema(db, smallTables);
    db.execute(
        "INSERT INTO big SELECT g, g % 1000, 'note ' || md5(g::text), timestamptz '2026-01-01 00:00:00+00'"
            + " + g * interval '1 second', (g % 100000) / 100.0 FROM generate_series(1, "
            + rows
            + ") g");
    for (int i = 1; i <= smallTables; i++) {
      db.execute(
          "INSERT INTO small_"
              + i
              + " SELECT g, 'v' || g, g * "
              + i
              + " FROM generate_series(1, 1000) g");
    }
    db.execute("VACUUM ANALYZE");
  }

  private boolean loaded(PostgresDatabase target) {
    return loaded(target, rows, smallTables);
  }

  private static boolean loaded(PostgresDatabase target, int rows, int smallTables) {
    return target.queryLong("SELECT count(*) FROM big") == rows
        && (smallTables == 0
            || target.queryLong("SELECT count(*) FROM small_" + smallTables) == 1000);
  }

  private void nativeCopy(PostgresDatabase source, PostgresDatabase target) throws Exception {
    schema(target);
    String sub = target.name() + "_sub";
    source.execute("CREATE PUBLICATION " + sub + "_pub FOR TABLE " + tables());
    target.execute(
        "CREATE SUBSCRIPTION "
            + sub
            + " CONNECTION 'host="
            + source.host()
            + " port="
            + source.port()
            + " dbname="
            + source.name()
            + " user="
            + source.user()
            + " password="
            + source.password()
            + "' PUBLICATION "
            + sub
            + "_pub WITH (copy_data = true)");
    while (target.queryLong(
                "SELECT count(*) FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid"
                    + " WHERE s.subname = '"
                    + sub
                    + "' AND r.srsubstate NOT IN ('r', 's')")
            > 0
        || !loaded(target)) {
      Thread.sleep(50);
    }
    target.execute("DROP SUBSCRIPTION " + sub);
    source.execute("DROP PUBLICATION " + sub + "_pub");
  }

  private void copyPipe(PostgresDatabase source, PostgresDatabase target) throws Exception {
    schema(target);
    try (Connection in = source.connect();
        Connection out = target.connect()) {
      for (String table : tables().split(",")) {
        PipedInputStream pipe = new PipedInputStream(1 << 20);
        PipedOutputStream feed = new PipedOutputStream(pipe);
        CompletableFuture<Long> reader =
            CompletableFuture.supplyAsync(
                () -> {
                  try (feed) {
                    return in.unwrap(PGConnection.class)
                        .getCopyAPI()
                        .copyOut("COPY " + table + " TO STDOUT", feed);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
        out.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + table + " FROM STDIN", pipe);
        reader.get();
      }
    }
    if (!loaded(target)) {
      throw new IllegalStateException("COPY | COPY did not load every row");
    }
  }

  private static void trellara(
      String name,
      PostgresDatabase source,
      PostgresDatabase target,
      int rows,
      int smallTables,
      KafkaBroker broker,
      ConnectWorker worker)
      throws Exception {
    schema(target, smallTables);
    String strict = name + ".strict";
    broker.createTopic(strict, 1, ConnectorConfigs.topicConfigs());
    ConnectRestClient rest = worker.rest();
    Map<String, String> src = new HashMap<>();
    src.put("connector.class", ConnectorConfigs.SOURCE_CLASS);
    src.put("database.hostname", source.host());
    src.put("database.port", Integer.toString(source.port()));
    src.put("database.dbname", source.name());
    src.put("database.user", source.user());
    src.put("database.password", source.password());
    src.put("database.sslmode", "disable");
    src.put("source.id", name + "-src");
    src.put("database.id", name + "-db");
    src.put("dataset.id", name);
    src.put("slot.name", name + "_slot");
    src.put("publication.name", name + "_pub");
    src.put("table.include.list", tables(smallTables));
    src.put("topic.strict", strict);
    src.put("kafka.bootstrap.servers", broker.bootstrapServers());
    src.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    src.put("value.converter", ConnectorConfigs.CONVERTER_CLASS);
    // the source's own validation: its default envelope cap needs these (the snapshot itself is
    // chunked)
    src.put("producer.override.max.request.size", ConnectorConfigs.MAX_MESSAGE_BYTES);
    src.put("producer.override.buffer.memory", ConnectorConfigs.SOURCE_BUFFER_MEMORY);
    src.put("dataset.strict.max_envelope_bytes", ConnectorConfigs.SOURCE_MAX_ENVELOPE_BYTES);
    src.putAll(
        TrellaraLeg.extra("bench.source.extra")); // e.g. producer.override.compression.type=lz4
    rest.createConnector(name + "-source", src);
    Map<String, String> sink = new HashMap<>(ConnectorConfigs.sink(target, strict, Map.of()));
    sink.remove("consumer.override.max.partition.fetch.bytes"); // Kafka's default fetch sizes
    rest.createConnector(name + "-sink", sink);
    long lastLog = System.nanoTime();
    while (!loaded(target, rows, smallTables)) {
      Thread.sleep(100);
      if (System.nanoTime() - lastLog > 10_000_000_000L) {
        lastLog = System.nanoTime();
        System.out.println(
            "  trellara: waiting, source task "
                + rest.status(name + "-source").state()
                + ", sink "
                + rest.status(name + "-sink").state());
      }
    }
    rest.deleteAndAwait(name + "-sink");
    rest.deleteAndAwait(name + "-source");
  }
}
