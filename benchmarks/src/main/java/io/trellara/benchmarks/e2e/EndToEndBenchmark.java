package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.PostgresServer;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Commit-to-applied on the real pipeline: two durable embedded PostgreSQL 17 servers (fsync on), an in-JVM
 * KRaft broker and Connect worker, the source and sink connectors POSTed as JSON. Prints the figures that go
 * into docs/benchmarks.md. Not a test: run it by hand,
 * {@code ./mvnw -q -pl benchmarks -am install -DskipTests && ./mvnw -q -pl benchmarks exec:java
 * -Dexec.mainClass=io.trellara.benchmarks.e2e.EndToEndBenchmark -Dexec.args="300000 20000 strict"}; the
 * third argument is the boundary mode: strict, strict_chunked or partitioned.
 */
public final class EndToEndBenchmark {
    /** One 300k-row envelope is ~100 MB: every limit on its way is raised to 256 MiB. */
    static final String LARGE = Integer.toString(256 * 1024 * 1024);

    public static void main(String[] args) throws Exception {
        int bulkRows = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
        int transfers = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        String mode = args.length > 2 ? args[2] : "strict";
        boolean partitioned = mode.equals("partitioned");
        System.out.println("boundary mode: " + mode);
        long t0 = System.nanoTime();
        try (PostgresServer sourcePg = PostgresServer.builder().name("bench-source").durable().build().start();
             PostgresServer targetPg = PostgresServer.builder().name("bench-target").durable().build().start();
             KafkaBroker broker = KafkaBroker.builder().build()) {
            broker.start();
            ConnectWorker worker = ConnectWorker.builder(broker).groupId("bench").build().start();
            try {
                System.out.printf("platform up in %.1f s%n", (System.nanoTime() - t0) / 1e9);
                PostgresDatabase src = sourcePg.createDatabase("bench");
                PostgresDatabase dst = targetPg.createDatabase("bench");
                String ddl1 = "CREATE TABLE bulk (id bigint PRIMARY KEY, a int, b text, c numeric(12,2), d timestamptz)";
                String ddl2 = "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL)";
                String ddl3 = "CREATE TABLE transfer (id bigserial PRIMARY KEY, src int, dst int, amount int)";
                src.execute(ddl1, ddl2, ddl3, "INSERT INTO account SELECT g, 1000000 FROM generate_series(1, 1000) g");
                dst.execute(ddl1, ddl2, ddl3, "INSERT INTO account SELECT g, 1000000 FROM generate_series(1, 1000) g");
                String topic = "bench.strict";
                String lanes = "bench.lanes";
                broker.createTopic(topic, 1, Map.of("max.message.bytes", LARGE));
                Map<String, String> source = sourceConfig(src, topic, broker.bootstrapServers());
                if (partitioned) {
                    broker.createTopic(lanes, 6, Map.of("max.message.bytes", LARGE));
                    source.putAll(Map.of("dataset.mode", "partitioned_scale_mode", "topic.partitioned", lanes,
                            "dataset.partitioned.partition_count", "6"));
                } else if (mode.equals("strict_chunked")) {
                    source.put("dataset.strict_chunking.max_changes_per_chunk", "5000");
                }
                worker.rest().createConnector("bench-source", source);
                worker.rest().awaitRunning("bench-source");
                worker.rest().createConnector("bench-sink", ConnectorConfigs.sink(dst,
                        partitioned ? topic + "," + lanes : topic,
                        Map.of("apply.group.max.transactions", "200", "tasks.max", partitioned ? "3" : "1",
                                "consumer.override.max.partition.fetch.bytes", LARGE,
                                "consumer.override.fetch.max.bytes", LARGE)));
                worker.rest().awaitRunning("bench-sink");

                src.execute("INSERT INTO bulk SELECT -g, g, 'warm', g, now() FROM generate_series(1, 1000) g");
                awaitApplied(dst, 1);

                bulk(src, dst, broker, topic, bulkRows);
                latency(src, dst, 200);
                throughput(src, dst, transfers);
            } finally {
                worker.stop();
            }
        }
    }

    private static Map<String, String> sourceConfig(PostgresDatabase db, String topic, String bootstrapServers) {
        Map<String, String> c = new HashMap<>();
        c.put("connector.class", ConnectorConfigs.SOURCE_CLASS);
        c.put("tasks.max", "1");
        c.put("database.hostname", db.host());
        c.put("database.port", Integer.toString(db.port()));
        c.put("database.dbname", db.name());
        c.put("database.user", db.user());
        c.put("database.password", db.password());
        c.put("database.sslmode", "disable");
        c.put("source.id", "bench-src");
        c.put("database.id", "bench-db");
        c.put("dataset.id", "bench");
        c.put("slot.name", "bench_slot");
        c.put("publication.name", "bench_pub");
        c.put("table.include.list", "public.bulk,public.account,public.transfer");
        c.put("topic.strict", topic);
        c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        c.put("value.converter", ConnectorConfigs.CONVERTER_CLASS);
        c.put("producer.override.max.request.size", LARGE);
        c.put("producer.override.buffer.memory", Integer.toString(512 * 1024 * 1024));
        c.put("producer.override.linger.ms", "0");
        // the largest record is the envelope cap plus 16 KiB of record overhead: it must fit LARGE
        c.put("dataset.strict.max_envelope_bytes", Integer.toString(Integer.parseInt(LARGE) - 16 * 1024));
        c.put("kafka.bootstrap.servers", bootstrapServers);
        return c;
    }

    private static long applied(PostgresDatabase dst) {
        return dst.queryLong("SELECT count(*) FROM trellara_sink.applied_transactions");
    }

    private static void awaitApplied(PostgresDatabase dst, long count) throws InterruptedException {
        while (true) {
            try {
                if (applied(dst) >= count) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // the checkpoint schema appears when the sink task starts
            }
            Thread.sleep(2);
        }
    }

    /** One transaction of {@code rows} inserts: source COMMIT returned -> visible on the target. */
    private static void bulk(PostgresDatabase src, PostgresDatabase dst, KafkaBroker broker, String topic, int rows)
            throws Exception {
        long before = applied(dst);
        long offsetBefore = endOffset(broker, topic);
        long start;
        try (Connection c = src.connect(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("INSERT INTO bulk SELECT g, g % 1000, md5(g::text), g * 0.01, now() FROM generate_series(1, "
                    + rows + ") g");
            c.commit();
            start = System.nanoTime();
        }
        Timeline timeline = new Timeline(start);
        while (endOffset(broker, topic) == offsetBefore) {
            timeline.sample();
            Thread.sleep(2);
        }
        double published = (System.nanoTime() - start) / 1e9;
        while (applied(dst) < before + 1) {
            timeline.sample();
            Thread.sleep(2);
        }
        timeline.print();
        double s = (System.nanoTime() - start) / 1e9;
        System.out.printf("bulk: commit -> first record on the topic %.2f s; then -> applied %.2f s%n", published,
                s - published);
        long count = dst.queryLong("SELECT count(*) FROM bulk WHERE id > 0");
        System.out.printf("bulk: %,d-row transaction, commit -> applied %.2f s (%,.0f rows/s); target holds %,d%n",
                rows, s, rows / s, count);
    }

    /** When each stage of the pipeline first moved and last moved, read from the tasks' JMX beans. */
    static final class Timeline {
        private final long start;
        private final java.util.Map<String, long[]> seen = new java.util.LinkedHashMap<>();
        private final javax.management.MBeanServer jmx = java.lang.management.ManagementFactory.getPlatformMBeanServer();

        Timeline(long start) {
            this.start = start;
        }

        void sample() {
            read("io.trellara:type=source-task,connector=bench-source,task=0", "PgOutputMessages");
            read("io.trellara:type=source-task,connector=bench-source,task=0", "TransactionsCaptured");
            read("io.trellara:type=source-task,connector=bench-source,task=0", "TransactionsAcknowledged");
            for (int task = 0; task < 3; task++) {
                read("io.trellara:type=sink-task,connector=bench-sink,task=" + task, "ChunksStaged");
                read("io.trellara:type=sink-task,connector=bench-sink,task=" + task, "RowsInserted");
            }
        }

        private void read(String bean, String attribute) {
            try {
                long v = ((Number) jmx.getAttribute(new javax.management.ObjectName(bean), attribute)).longValue();
                long now = System.nanoTime() - start;
                long[] s = seen.computeIfAbsent(bean.substring(bean.indexOf(",task=")) + " " + attribute,
                        k -> new long[] {v, -1, -1, v});
                if (v != s[3]) {
                    if (s[1] < 0) {
                        s[1] = now;
                    }
                    s[2] = now;
                    s[3] = v;
                }
            } catch (Exception e) {
                // the bean appears when the task starts
            }
        }

        void print() {
            seen.forEach((k, s) -> System.out.printf("  %-26s first moved %6.2f s, last moved %6.2f s, +%,d%n", k,
                    s[1] / 1e9, s[2] / 1e9, s[3] - s[0]));
        }
    }

    private static long endOffset(KafkaBroker broker, String topic) {
        return broker.endOffsets(topic).values().stream().mapToLong(Long::longValue).sum();
    }

    /** Paced single-row transactions, each timed from COMMIT to visible on the target. */
    private static void latency(PostgresDatabase src, PostgresDatabase dst, int samples) throws Exception {
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < samples; i++) {
            long before = applied(dst);
            src.execute("INSERT INTO transfer (src, dst, amount) VALUES (1, 2, 0)");
            long start = System.nanoTime();
            while (applied(dst) <= before) {
                Thread.onSpinWait();
            }
            ms.add((System.nanoTime() - start) / 1e6);
        }
        Collections.sort(ms);
        System.out.printf("latency: %d single-row transactions, commit -> visible p50 %.1f ms, p90 %.1f ms,"
                + " p99 %.1f ms, max %.1f ms%n", samples, ms.get(samples / 2), ms.get(samples * 9 / 10),
                ms.get(samples * 99 / 100), ms.get(samples - 1));
    }

    /** The PLATFORM.md transfer workload: transactions of 2 updates + 2 inserts, as fast as one client can. */
    private static void throughput(PostgresDatabase src, PostgresDatabase dst, int transactions) throws Exception {
        long before = applied(dst);
        Random r = new Random(1);
        long start = System.nanoTime();
        try (Connection c = src.connect(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            for (int i = 0; i < transactions; i++) {
                int a = 1 + r.nextInt(1000);
                int b = 1 + r.nextInt(1000);
                st.execute("UPDATE account SET balance = balance - 5 WHERE id = " + a);
                st.execute("UPDATE account SET balance = balance + 5 WHERE id = " + b);
                st.execute("INSERT INTO transfer (src, dst, amount) VALUES (" + a + ", " + b + ", 5)");
                st.execute("INSERT INTO transfer (src, dst, amount) VALUES (" + b + ", " + a + ", 0)");
                c.commit();
            }
        }
        double sourceSeconds = (System.nanoTime() - start) / 1e9;
        awaitApplied(dst, before + transactions);
        double total = (System.nanoTime() - start) / 1e9;
        System.out.printf("transfers: %,d transactions (4 rows each) committed in %.1f s (%,.0f tx/s);"
                + " all applied %.1f s after the first commit (%,.0f tx/s, %,.0f rows/s end to end)%n",
                transactions, sourceSeconds, transactions / sourceSeconds, total, transactions / total,
                transactions * 4 / total);
    }
}
