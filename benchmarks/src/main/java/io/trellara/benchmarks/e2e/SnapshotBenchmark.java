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
 * The initial load of a database that already holds data, three ways side by side in one run between the same two
 * durable PostgreSQL 17 servers: PostgreSQL's own {@code CREATE SUBSCRIPTION ... WITH (copy_data = true)}, a plain
 * copy ({@code COPY ... TO STDOUT} piped into {@code COPY ... FROM STDIN}, table by table: what
 * {@code pg_dump --data-only | psql} does; no pg_dump 17 binary is on this machine), and Trellara's snapshot
 * (source and sink at their defaults, POSTed to an in-JVM worker: strict mode, the snapshot chunked, applied in one
 * target transaction). Each is timed from its start until the target holds every row. Not a test: run it by hand,
 * {@code ./mvnw -q -B -o install -DskipTests -DskipITs && ./mvnw -q -B -o -pl benchmarks exec:java
 * -Dexec.mainClass=io.trellara.benchmarks.e2e.SnapshotBenchmark -Dexec.args="10000000 20"} (rows of the large
 * table, number of small tables of 1,000 rows).
 */
public final class SnapshotBenchmark {
    private static final String BIG = "CREATE TABLE big (id bigint PRIMARY KEY, account int NOT NULL, note text,"
            + " at timestamptz NOT NULL, amount numeric(12,2))";

    private final int rows;
    private final int smallTables;

    private SnapshotBenchmark(int rows, int smallTables) {
        this.rows = rows;
        this.smallTables = smallTables;
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
        int small = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        new SnapshotBenchmark(rows, small).run();
    }

    private void run() throws Exception {
        try (PostgresServer sourcePg = PostgresServer.builder().name("snap-source").durable().build().start();
             PostgresServer targetPg = PostgresServer.builder().name("snap-target").durable().build().start();
             KafkaBroker broker = KafkaBroker.builder().build()) {
            broker.start();
            ConnectWorker worker = ConnectWorker.builder(broker).groupId("snapbench").build().start();
            try {
                PostgresDatabase source = sourcePg.createDatabase("snapsrc");
                long t0 = System.nanoTime();
                seed(source);
                long bytes = source.queryLong("SELECT sum(pg_table_size(c.oid)) FROM pg_class c WHERE c.relname = 'big'"
                        + " OR c.relname LIKE 'small\\_%'");
                System.out.printf(Locale.ROOT, "seeded %,d rows + %d tables of 1,000 rows (%,d MB of tables) in %.1f s%n",
                        rows, smallTables, bytes >> 20, (System.nanoTime() - t0) / 1e9);
                double nativeS = timed("native copy_data", () -> nativeCopy(source, targetPg.createDatabase("native")));
                double copyS = timed("COPY | COPY", () -> copyPipe(source, targetPg.createDatabase("copy")));
                double ours = timed("trellara snapshot", () -> trellara(source, targetPg.createDatabase("trellara"),
                        broker, worker));
                System.out.printf(Locale.ROOT, "%nSNAPSHOT %,d rows + %d small tables (%,d MB)%n", rows, smallTables,
                        bytes >> 20);
                for (Object[] r : new Object[][] {{"native copy_data", nativeS}, {"COPY | COPY", copyS},
                        {"trellara snapshot", ours}}) {
                    double s = (Double) r[1];
                    System.out.printf(Locale.ROOT, "  %-18s %7.1f s  %,10.0f rows/s  %.2f x native time%n", r[0], s,
                            total() / s, s / nativeS);
                }
            } finally {
                worker.stop();
            }
        }
    }

    private long total() {
        return rows + smallTables * 1000L;
    }

    private interface Load {
        void run() throws Exception;
    }

    private static double timed(String name, Load load) throws Exception {
        long t = System.nanoTime();
        load.run();
        double s = (System.nanoTime() - t) / 1e9;
        System.out.printf(Locale.ROOT, "%s: %.1f s%n", name, s);
        return s;
    }

    private void schema(PostgresDatabase db) {
        db.execute(BIG);
        for (int i = 1; i <= smallTables; i++) {
            db.execute("CREATE TABLE small_" + i + " (id int PRIMARY KEY, v text NOT NULL, n bigint)");
        }
    }

    private String tables() {
        List<String> t = new ArrayList<>(List.of("public.big"));
        for (int i = 1; i <= smallTables; i++) {
            t.add("public.small_" + i);
        }
        return String.join(",", t);
    }

    private void seed(PostgresDatabase db) {
        schema(db);
        db.execute("INSERT INTO big SELECT g, g % 1000, 'note ' || md5(g::text), timestamptz '2026-01-01 00:00:00+00'"
                + " + g * interval '1 second', (g % 100000) / 100.0 FROM generate_series(1, " + rows + ") g");
        for (int i = 1; i <= smallTables; i++) {
            db.execute("INSERT INTO small_" + i + " SELECT g, 'v' || g, g * " + i + " FROM generate_series(1, 1000) g");
        }
        db.execute("VACUUM ANALYZE");
    }

    private boolean loaded(PostgresDatabase target) {
        return target.queryLong("SELECT count(*) FROM big") == rows
                && target.queryLong("SELECT count(*) FROM small_" + smallTables) == (smallTables == 0 ? 0 : 1000);
    }

    private void nativeCopy(PostgresDatabase source, PostgresDatabase target) throws Exception {
        schema(target);
        String sub = target.name() + "_sub";
        source.execute("CREATE PUBLICATION " + sub + "_pub FOR TABLE " + tables());
        target.execute("CREATE SUBSCRIPTION " + sub + " CONNECTION 'host=" + source.host() + " port=" + source.port()
                + " dbname=" + source.name() + " user=" + source.user() + " password=" + source.password()
                + "' PUBLICATION " + sub + "_pub WITH (copy_data = true)");
        while (target.queryLong("SELECT count(*) FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid"
                + " WHERE s.subname = '" + sub + "' AND r.srsubstate NOT IN ('r', 's')") > 0 || !loaded(target)) {
            Thread.sleep(50);
        }
        target.execute("DROP SUBSCRIPTION " + sub);
        source.execute("DROP PUBLICATION " + sub + "_pub");
    }

    private void copyPipe(PostgresDatabase source, PostgresDatabase target) throws Exception {
        schema(target);
        try (Connection in = source.connect(); Connection out = target.connect()) {
            for (String table : tables().split(",")) {
                PipedInputStream pipe = new PipedInputStream(1 << 20);
                PipedOutputStream feed = new PipedOutputStream(pipe);
                CompletableFuture<Long> reader = CompletableFuture.supplyAsync(() -> {
                    try (feed) {
                        return in.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY " + table + " TO STDOUT", feed);
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

    private void trellara(PostgresDatabase source, PostgresDatabase target, KafkaBroker broker, ConnectWorker worker)
            throws Exception {
        schema(target);
        String strict = "snapbench.strict";
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
        src.put("source.id", "snapbench-src");
        src.put("database.id", "snapbench-db");
        src.put("dataset.id", "snapbench");
        src.put("slot.name", "snapbench_slot");
        src.put("publication.name", "snapbench_pub");
        src.put("table.include.list", tables());
        src.put("topic.strict", strict);
        src.put("kafka.bootstrap.servers", broker.bootstrapServers());
        src.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        src.put("value.converter", ConnectorConfigs.CONVERTER_CLASS);
        // the source's own validation: its default envelope cap needs these (the snapshot itself is chunked)
        src.put("producer.override.max.request.size", ConnectorConfigs.MAX_MESSAGE_BYTES);
        src.put("producer.override.buffer.memory", ConnectorConfigs.SOURCE_BUFFER_MEMORY);
        src.put("dataset.strict.max_envelope_bytes", ConnectorConfigs.SOURCE_MAX_ENVELOPE_BYTES);
        rest.createConnector("snapbench-source", src);
        Map<String, String> sink = new HashMap<>(ConnectorConfigs.sink(target, strict, Map.of()));
        sink.remove("consumer.override.max.partition.fetch.bytes"); // Kafka's default fetch sizes
        rest.createConnector("snapbench-sink", sink);
        long lastLog = System.nanoTime();
        while (!loaded(target)) {
            Thread.sleep(100);
            if (System.nanoTime() - lastLog > 10_000_000_000L) {
                lastLog = System.nanoTime();
                System.out.println("  trellara: waiting, source task " + rest.status("snapbench-source").state()
                        + ", sink " + rest.status("snapbench-sink").state());
            }
        }
        rest.deleteAndAwait("snapbench-sink");
        rest.deleteAndAwait("snapbench-source");
    }
}
