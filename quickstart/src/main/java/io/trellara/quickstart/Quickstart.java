package io.trellara.quickstart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresServer;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The whole Trellara pipeline on one machine: source PostgreSQL, Kafka, a Connect worker running the source and
 * sink connectors, target PostgreSQL; a demo workload; a verification that both sides are equal.
 */
public final class Quickstart implements AutoCloseable {

    static final String SOURCE_CONNECTOR = "trellara-source";
    static final String SINK_CONNECTOR = "trellara-sink";
    static final String DATABASE = "shop";

    private final Options options;
    private final PrintStream out;
    private final long t0 = System.nanoTime();
    private final String runId = Long.toString(System.nanoTime() % 1_000_000L, 36);
    private final List<AutoCloseable> started = new ArrayList<>();
    private final ObjectMapper json = new ObjectMapper();

    private PostgresServer sourceServer;
    private PostgresServer targetServer;
    private KafkaBroker broker;
    private ConnectWorker worker;
    private Admin admin;
    private Db source;
    private Db target;
    /** What the sink connects as: a least-privilege role on an embedded target. */
    private Db applier;
    private String bootstrapServers;
    private String topic;
    private String slot;
    private String publication;
    private String sourceId;
    private String workerGroup;
    private ScheduledExecutorService monitor;
    private volatile boolean monitoring;
    private volatile boolean closing;
    private boolean closed;
    private final Map<String, Long> millis = new LinkedHashMap<>();

    Quickstart(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    // ------------------------------------------------------------------------------------------------ entry points

    public static void main(String[] args) {
        prepareLogging();
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("quickstart: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (options.help) {
            Options.printHelp(System.out);
            return;
        }
        Quickstart quickstart = new Quickstart(options, System.out);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            silenceLogging(); // Ctrl-C: PostgreSQL's own hooks may stop it under the running tasks; no error spam
            quickstart.close();
        }, "trellara-quickstart-shutdown"));
        int code;
        try {
            code = quickstart.run();
        } catch (Exception | AssertionError e) {
            if (quickstart.closing) {
                return; // Ctrl-C during the run: the shutdown hook stops everything
            }
            System.out.println();
            System.out.println("quickstart FAILED: " + e.getMessage());
            Throwable cause = e.getCause();
            while (cause != null) {
                System.out.println("  caused by: " + cause);
                cause = cause.getCause();
            }
            quickstart.close();
            System.exit(1);
            return;
        }
        if (options.exitAfterVerify) {
            quickstart.close();
            System.exit(code);
            return;
        }
        quickstart.watchUntilStopped();
    }

    /** In-process run for tests: always exits after the verification; returns 0 on PASS, 1 on FAIL. */
    public static int runAndExit(String... args) throws Exception {
        prepareLogging();
        Options options = Options.parse(args);
        options.exitAfterVerify = true;
        try (Quickstart quickstart = new Quickstart(options, System.out)) {
            return quickstart.run();
        }
    }

    /**
     * The test platform's jar carries a {@code log4j2-test.xml} (found before {@code log4j2.xml}); the quickstart
     * points log4j2 at its own file, quiet: Kafka, Connect, zonky and PostgreSQL at WARN.
     */
    static void prepareLogging() {
        if (System.getProperty("log4j2.configurationFile") == null) {
            System.setProperty("log4j2.configurationFile", "log4j2.xml");
        }
        // Jersey (Connect's REST server) logs through java.util.logging
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.SEVERE);
        for (java.util.logging.Handler h : java.util.logging.Logger.getLogger("").getHandlers()) {
            h.setLevel(java.util.logging.Level.SEVERE);
        }
    }

    /** All log4j2 loggers OFF (by reflection: log4j-core is a runtime dependency). */
    static void silenceLogging() {
        setLevel("", "OFF");
    }

    private static void setLevel(String logger, String levelName) {
        try {
            Class<?> level = Class.forName("org.apache.logging.log4j.Level");
            Class.forName("org.apache.logging.log4j.core.config.Configurator")
                    .getMethod("setAllLevels", String.class, level).invoke(null, logger, level.getField(levelName).get(null));
        } catch (ReflectiveOperationException | LinkageError ignored) {
            // another logging backend: keep its output
        }
    }

    // ------------------------------------------------------------------------------------------------ the run

    int run() throws Exception {
        out.println();
        out.println("Trellara quickstart: PostgreSQL -> Kafka Connect -> PostgreSQL, each source transaction applied"
                + " as one target transaction");
        out.println();
        startStack();
        createSchema();
        deployConnectors();
        long w0 = System.nanoTime();
        startMonitor();
        runWorkload();
        millis.put("workload", ms(w0));
        long v0 = System.nanoTime();
        boolean pass = verify();
        millis.put("verification", ms(v0));
        out.println();
        step(String.format(Locale.ROOT, "timings: start-up %.1f s, workload %.1f s, catch-up and verification %.1f s",
                millis.get("startup") / 1000.0, millis.get("workload") / 1000.0, millis.get("verification") / 1000.0));
        printConnectorStatus();
        return pass ? 0 : 1;
    }

    private void startStack() throws Exception {
        long s0 = System.nanoTime();
        step("starting " + String.join(", ", embeddedParts()) + " in this JVM ...");
        if (options.embeddedSource() || options.embeddedTarget()) {
            step("  demo settings: PostgreSQL fsync=off and temp data directories (fast, not crash-safe; deleted at exit)");
        }
        Thread sourceStart = null;
        Thread targetStart = null;
        if (options.embeddedSource()) {
            sourceServer = track(embeddedPostgres("source"));
            sourceStart = startThread(() -> {
                sourceServer.start();
                step("  source PostgreSQL 17 up (port " + sourceServer.port() + ")");
            }, "source-pg");
        }
        if (options.embeddedTarget()) {
            targetServer = track(embeddedPostgres("target"));
            targetStart = startThread(() -> {
                targetServer.start();
                step("  target PostgreSQL 17 up (port " + targetServer.port() + ")");
            }, "target-pg");
        }
        try {
            broker = track(KafkaBroker.builder().build()); // unstarted with an external Kafka: only its temp dir
            if (options.embeddedKafka()) {
                broker.start();
                bootstrapServers = broker.bootstrapServers();
                step("  Kafka broker up (" + bootstrapServers + ")");
            } else {
                bootstrapServers = options.bootstrapServers;
            }
            admin = track(Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000)));
            admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
            workerGroup = options.embeddedKafka() ? "trellara-quickstart" : "trellara-quickstart-" + runId;
            ConnectWorker.Builder wb = ConnectWorker.builder(broker).groupId(workerGroup).restPort(restPort());
            if (!options.embeddedKafka()) {
                wb.set("bootstrap.servers", bootstrapServers)
                        .set("config.storage.replication.factor", "-1")
                        .set("offset.storage.replication.factor", "-1")
                        .set("status.storage.replication.factor", "-1");
            }
            worker = track(wb.build());
            worker.start();
            step("  Connect worker up (REST " + worker.restUrl() + ")");
        } finally {
            join(sourceStart);
            join(targetStart);
        }
        source = options.embeddedSource() ? embeddedDb("source", sourceServer)
                : new Db("source", options.sourceJdbc, options.sourceUser, options.sourcePassword);
        target = options.embeddedTarget() ? embeddedDb("target", targetServer)
                : new Db("target", options.targetJdbc, options.targetUser, options.targetPassword);
        millis.put("startup", ms(s0));
        step(String.format(Locale.ROOT, "stack up in %.1f s", millis.get("startup") / 1000.0));
        out.println("    source PostgreSQL  " + source.psql() + (options.embeddedSource() ? "" : "  (existing)")
                + "  " + passwordHint(options.embeddedSource(), "--source-password"));
        out.println("    target PostgreSQL  " + target.psql() + (options.embeddedTarget() ? "" : "  (existing)")
                + "  " + passwordHint(options.embeddedTarget(), "--target-password"));
        out.println("    Kafka              " + bootstrapServers + (options.embeddedKafka() ? "" : "  (existing)"));
        out.println("    Connect REST       " + worker.restUrl());
    }

    private List<String> embeddedParts() {
        List<String> parts = new ArrayList<>();
        if (options.embeddedSource()) {
            parts.add("source PostgreSQL 17");
        }
        if (options.embeddedTarget()) {
            parts.add("target PostgreSQL 17");
        }
        if (options.embeddedKafka()) {
            parts.add("Kafka broker (KRaft)");
        }
        parts.add("Connect worker");
        return parts;
    }

    private PostgresServer embeddedPostgres(String name) {
        String zone = ZoneId.systemDefault().getId();
        return PostgresServer.builder().name(name).timeZone(zone).set("log_timezone", zone).build();
    }

    private Db embeddedDb(String label, PostgresServer server) {
        if (!server.isRunning()) {
            throw new IllegalStateException("the embedded " + label + " PostgreSQL did not start (see the log above)");
        }
        server.execute("postgres", "CREATE DATABASE " + DATABASE);
        return new Db(label, server.jdbcUrl(DATABASE), server.user(), server.password());
    }

    private int restPort() {
        int wanted = options.restPort;
        try (ServerSocket socket = new ServerSocket(wanted, 1, InetAddress.getLoopbackAddress())) {
            return wanted;
        } catch (IOException e) {
            step("  port " + wanted + " is taken: the Connect REST API gets a free port");
            return 0;
        }
    }

    private void createSchema() {
        String wal = source.queryString("SHOW wal_level");
        if (!"logical".equals(wal)) {
            throw new IllegalStateException("the source PostgreSQL runs with wal_level=" + wal
                    + "; logical decoding needs wal_level=logical (ALTER SYSTEM SET wal_level = logical; restart)");
        }
        boolean externalSource = !options.embeddedSource();
        sourceId = "quickstart-" + runId;
        slot = externalSource ? "trellara_quickstart_" + runId : "trellara_quickstart";
        publication = slot;
        topic = options.embeddedKafka() ? "trellara.quickstart.strict" : "trellara.quickstart." + runId + ".strict";
        source.execute(DemoWorkload.schemaDdl());
        target.execute(DemoWorkload.schemaDdl());
        applier = options.embeddedTarget() ? leastPrivilegeApplier() : target;
        step("schema " + DemoWorkload.SCHEMA + " created on both sides: customer, product (stock), orders, order_line,"
                + " payment");
        int rf = options.embeddedKafka() ? 1 : -1;
        NewTopic newTopic = new NewTopic(topic, Optional.of(1), rf > 0 ? Optional.of((short) rf) : Optional.empty())
                .configs(ConnectorConfigs.topicConfigs());
        try {
            admin.createTopics(List.of(newTopic)).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topic " + topic + ": " + e.getMessage(), e);
        }
    }

    /**
     * The sink connects as a role that owns the demo tables (so structured schema evolution may ALTER them) and
     * its own schema trellara_sink, and nothing else: no superuser, no CREATE on the database. An existing target
     * is used with the user given.
     */
    private Db leastPrivilegeApplier() {
        byte[] secret = new byte[12];
        new java.security.SecureRandom().nextBytes(secret);
        String password = java.util.HexFormat.of().formatHex(secret); // hex: safe inside the SQL literal
        List<String> sql = new ArrayList<>(List.of(
                "CREATE ROLE trellara_applier LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '" + password + "'",
                "GRANT USAGE ON SCHEMA " + DemoWorkload.SCHEMA + " TO trellara_applier",
                "CREATE SCHEMA trellara_sink AUTHORIZATION trellara_applier"));
        for (String table : DemoWorkload.tableList().split(",")) {
            sql.add("ALTER TABLE " + table + " OWNER TO trellara_applier");
        }
        target.execute(sql.toArray(new String[0]));
        step("sink role trellara_applier on the target: owns the demo tables and trellara_sink, nothing else");
        return new Db("target (sink role)", target.url, "trellara_applier", password);
    }

    // ------------------------------------------------------------------------------------------------ connectors

    private void deployConnectors() {
        ConnectRestClient rest = worker.rest();
        Map<String, String> sourceConfig = connectorConfig("source", ConnectorConfigs.SOURCE_CLASS, builtInSource());
        Map<String, String> sinkConfig = connectorConfig("sink", ConnectorConfigs.SINK_CLASS, builtInSink());
        rest.createConnector(SOURCE_CONNECTOR, sourceConfig);
        rest.awaitRunning(SOURCE_CONNECTOR);
        rest.createConnector(SINK_CONNECTOR, sinkConfig);
        rest.awaitRunning(SINK_CONNECTOR);
        step("connectors POSTed to " + worker.restUrl() + "connectors and RUNNING: " + SOURCE_CONNECTOR + ", "
                + SINK_CONNECTOR + " (topic " + topic + "; the sink runs no DDL text and evolves schemas structurally)");
    }

    private Map<String, String> builtInSource() {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", ConnectorConfigs.SOURCE_CLASS);
        c.put("tasks.max", "1");
        c.put("database.hostname", source.host);
        c.put("database.port", Integer.toString(source.port));
        c.put("database.dbname", source.database);
        c.put("database.user", source.user);
        c.put("database.password", source.password);
        c.put("database.sslmode", options.embeddedSource() ? "disable" : "prefer");
        c.put("source.id", sourceId);
        c.put("database.id", source.database);
        c.put("dataset.id", "quickstart");
        c.put("slot.name", slot);
        c.put("publication.name", publication);
        c.put("table.include.list", DemoWorkload.tableList());
        c.put("topic.strict", topic);
        c.put("kafka.bootstrap.servers", bootstrapServers);
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
        c.put("topics", topic);
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

    /**
     * The example JSON from {@code config-examples/} when there is one for the class (placeholder hosts
     * substituted, and the connection, identity, topic and slot settings of this run on top), validated by the
     * worker; otherwise, or when the example does not validate, the built-in configuration.
     */
    private Map<String, String> connectorConfig(String kind, String connectorClass, Map<String, String> builtIn) {
        Optional<Path> example = findExample(connectorClass);
        if (example.isEmpty()) {
            step("  " + kind + " config: built in (no " + kind + " example in " + options.configDir + "/)");
            return builtIn;
        }
        try {
            JsonNode root = json.readTree(example.get().toFile());
            JsonNode config = root.has("config") ? root.get("config") : root;
            Map<String, String> merged = new LinkedHashMap<>();
            config.properties().forEach(e -> merged.put(e.getKey(), substitute(e.getValue().asText())));
            merged.remove("name");
            merged.remove("relation.mapping"); // the demo keeps schema and table names
            merged.putAll(builtIn);
            ConnectRestClient.ValidationResult validation = worker.rest().validate(connectorClass, merged);
            if (validation.errorCount() > 0) {
                step("  " + kind + " config: built in (" + example.get() + " does not validate here: "
                        + validation.messages() + ")");
                return builtIn;
            }
            step("  " + kind + " config: " + example.get() + " (hosts, ports, databases and names substituted)");
            return merged;
        } catch (IOException | RuntimeException e) {
            step("  " + kind + " config: built in (cannot use " + example.get() + ": " + e.getMessage() + ")");
            return builtIn;
        }
    }

    private Optional<Path> findExample(String connectorClass) {
        Path dir = options.configDir;
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        List<Path> candidates = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().forEach(p -> {
                try {
                    JsonNode root = json.readTree(p.toFile());
                    JsonNode config = root.has("config") ? root.get("config") : root;
                    if (connectorClass.equals(config.path("connector.class").asText())) {
                        candidates.add(p);
                    }
                } catch (IOException | RuntimeException ignored) {
                    // not a connector document
                }
            });
        } catch (IOException e) {
            return Optional.empty();
        }
        // the plain strict example first: no chunking, partitioning or protocol variants
        return candidates.stream().sorted((a, b) -> Integer.compare(rank(a), rank(b))).findFirst();
    }

    private static int rank(Path p) {
        String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
        int rank = n.length();
        for (String variant : new String[] {"chunk", "partition", "protocol", "proto1", "v1", "standalone"}) {
            if (n.contains(variant)) {
                rank += 1000;
            }
        }
        return rank;
    }

    private String substitute(String value) {
        return value.replace("source-postgres", source.host).replace("target-postgres", target.host)
                .replace("kafka:9092", bootstrapServers);
    }

    // ------------------------------------------------------------------------------------------------ workload

    private void runWorkload() throws Exception {
        DemoWorkload w = new DemoWorkload(source);
        step("workload:");
        w.seed();
        step("  seed: " + DemoWorkload.CUSTOMERS + " customers, " + DemoWorkload.PRODUCTS + " products"
                + " (1 transaction)");
        for (int i = 0; i < options.orders; i++) {
            w.order(null, null);
        }
        step("  " + options.orders + " orders: each order + 1-5 lines + payment + stock decrements in ONE transaction");
        w.largeDescription(1);
        w.order(null, 1);
        step(String.format(Locale.ROOT, "  TOAST: a %,d-byte product description (stored out of line), then an order that"
                + " updates that product's stock and leaves the description untouched", w.descriptionBytes(1)));
        long l0 = System.nanoTime();
        w.largeOrder(options.rows);
        step(String.format(Locale.ROOT, "  large transaction: one order with %,d lines, its payment and stock decrements"
                + " (%.1f s on the source)", options.rows, ms(l0) / 1000.0));
        w.addChannelColumn();
        int after = Math.max(1, Math.min(20, options.orders));
        for (int i = 0; i < after; i++) {
            w.order(i % 2 == 0 ? "mobile" : "web", null);
        }
        step("  DDL: ALTER TABLE " + DemoWorkload.SCHEMA + ".orders ADD COLUMN channel ... (+ an UPDATE, one"
                + " transaction), added on the target by structured schema evolution; then " + after + " orders using the new"
                + " column");
        expectedTransactions = w.transactions();
        step(String.format(Locale.ROOT, "  %,d source transactions committed", expectedTransactions));
    }

    private long expectedTransactions;

    // ------------------------------------------------------------------------------------------------ progress

    private record Progress(long captured, long applied, long walBehind, long latencyMs) {
        String line() {
            return String.format(Locale.ROOT, "captured %,d tx | applied %,d tx | behind %,d tx | slot %s behind%s", captured,
                    applied, Math.max(0, captured - applied), bytes(walBehind),
                    latencyMs >= 0 ? " | last commit->applied " + latencyMs + " ms" : "");
        }
    }

    private Progress progress() {
        long applied = 0;
        long latency = -1;
        try {
            applied = target.queryLong("SELECT count(*) FROM trellara_sink.applied_transactions WHERE source_id = '"
                    + sourceId + "'");
            if (applied > 0) {
                latency = target.queryLong("SELECT round(extract(epoch FROM applied_at - commit_timestamp) * 1000)"
                        + " FROM trellara_sink.applied_transactions WHERE source_id = '" + sourceId
                        + "' ORDER BY commit_lsn_value DESC LIMIT 1");
            }
        } catch (RuntimeException e) {
            // trellara_sink is created by the sink's first task
        }
        long captured = endOffset();
        long wal = source.queryLong("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)"
                + " FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
        return new Progress(captured, applied, wal, latency);
    }

    private long endOffset() {
        TopicPartition tp = new TopicPartition(topic, 0);
        try {
            return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get(10, TimeUnit.SECONDS)
                    .offset();
        } catch (Exception e) {
            return -1;
        }
    }

    private void startMonitor() {
        monitor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "trellara-quickstart-progress");
            t.setDaemon(true);
            return t;
        });
        monitoring = true;
        monitor.scheduleWithFixedDelay(() -> {
            if (monitoring && !closing) {
                try {
                    step("  progress: " + progress().line());
                } catch (RuntimeException e) {
                    // a progress line is not worth an error
                }
            }
        }, 2, 2, TimeUnit.SECONDS);
    }

    // ------------------------------------------------------------------------------------------------ verification

    private record TableCheck(String table, long sourceRows, long targetRows, String sourceMd5, String targetMd5) {
        boolean equal() {
            return sourceRows == targetRows && sourceMd5.equals(targetMd5);
        }
    }

    private List<TableCheck> compareTables() {
        List<TableCheck> checks = new ArrayList<>();
        for (String[] t : DemoWorkload.TABLES) {
            String sql = "SELECT count(*) || ' ' || md5(coalesce(string_agg(t::text, ',' ORDER BY " + t[1]
                    + "), '')) FROM " + DemoWorkload.SCHEMA + "." + t[0] + " t";
            String[] s = source.queryString(sql).split(" ");
            String[] d;
            try {
                d = target.queryString(sql).split(" ");
            } catch (RuntimeException e) {
                d = new String[] {"-1", "error"};
            }
            checks.add(new TableCheck(t[0], Long.parseLong(s[0]), Long.parseLong(d[0]), s[1], d[1]));
        }
        return checks;
    }

    private boolean verify() throws InterruptedException {
        step("waiting for the target to catch up, then comparing every table (row count + md5 of all rows in key order)");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.verifyTimeoutSeconds);
        List<TableCheck> checks;
        Progress p;
        String failure = null;
        while (true) {
            failure = connectorFailure();
            if (failure != null) {
                checks = compareTables();
                p = progress();
                break;
            }
            p = progress();
            checks = p.applied() >= expectedTransactions ? compareTables() : null;
            if (checks != null && checks.stream().allMatch(TableCheck::equal) && p.applied() >= p.captured()) {
                break;
            }
            if (System.nanoTime() > deadline) {
                if (checks == null) {
                    checks = compareTables();
                }
                break;
            }
            Thread.sleep(500);
        }
        monitoring = false;
        step("  progress: " + p.line());
        long largest = 0;
        try {
            largest = target.queryLong("SELECT max(change_count) FROM trellara_sink.applied_transactions"
                    + " WHERE source_id = '" + sourceId + "'");
        } catch (RuntimeException ignored) {
            // no checkpoint table: nothing was applied
        }
        boolean txOk = p.applied() == expectedTransactions && p.applied() == p.captured();
        out.println();
        out.println("  VERIFICATION                 source rows   target rows   source md5     target md5     result");
        out.println("  ---------------------------  -----------   -----------   ------------   ------------   ------");
        boolean pass = true;
        for (TableCheck c : checks) {
            pass &= c.equal();
            out.println(String.format(Locale.ROOT, "  %-27s  %,11d   %,11d   %-12s   %-12s   %s", DemoWorkload.SCHEMA + "." + c.table(),
                    c.sourceRows(), c.targetRows(), abbrev(c.sourceMd5()), abbrev(c.targetMd5()),
                    c.equal() ? "PASS" : "FAIL"));
        }
        out.println(String.format(Locale.ROOT, "  %-79s   %s", String.format(Locale.ROOT, "transactions: %,d committed on the source,"
                + " %,d on the topic, %,d applied on the target", expectedTransactions, p.captured(), p.applied()),
                txOk ? "PASS" : "FAIL"));
        pass &= txOk;
        boolean largeOk = largest >= options.rows;
        out.println(String.format(Locale.ROOT, "  %-79s   %s", String.format(Locale.ROOT, "large transaction: %,d lines"
                + " applied in one target transaction (%,d changes)", options.rows, largest), largeOk ? "PASS" : "FAIL"));
        pass &= largeOk;
        out.println();
        if (failure != null) {
            out.println("  " + failure);
        }
        out.println(pass
                ? String.format(Locale.ROOT, "  RESULT: PASS  every table is equal; %,d source transactions applied as %,d target"
                        + " transactions (largest: %,d changes)", expectedTransactions, p.applied(), largest)
                : "  RESULT: FAIL  source and target differ"
                        + (System.nanoTime() > deadline ? " after waiting " + options.verifyTimeoutSeconds + " s" : ""));
        return pass;
    }

    /** Null while both connectors and their tasks run; otherwise which one failed and the start of its trace. */
    private String connectorFailure() {
        for (String name : List.of(SOURCE_CONNECTOR, SINK_CONNECTOR)) {
            try {
                ConnectorStatus s = worker.rest().status(name);
                if (s.isFailed()) {
                    String trace = s.firstTrace() == null ? "" : s.firstTrace();
                    String[] lines = trace.split("\n");
                    return "connector " + name + " FAILED: " + (lines.length > 0 ? lines[0] : "")
                            + "\n  (full trace: curl -s " + worker.restUrl() + "connectors/" + name + "/status)";
                }
            } catch (RuntimeException e) {
                // the REST API is briefly unavailable during a rebalance
            }
        }
        return null;
    }

    private static String abbrev(String md5) {
        return md5.length() > 12 ? md5.substring(0, 12) : md5;
    }

    // ------------------------------------------------------------------------------------------------ after the run

    private void printConnectorStatus() {
        ConnectRestClient rest = worker.rest();
        for (String name : List.of(SOURCE_CONNECTOR, SINK_CONNECTOR)) {
            ConnectorStatus s = rest.status(name);
            StringBuilder tasks = new StringBuilder();
            s.tasks().forEach(t -> tasks.append(tasks.length() == 0 ? "" : ", ").append("task ").append(t.id())
                    .append(' ').append(t.state()));
            step("connector " + name + ": " + s.state() + " (" + tasks + ")");
        }
    }

    /** Where the password is, since it is never printed. */
    static String passwordHint(boolean embedded, String option) {
        return embedded ? "(no password: trust authentication)"
                : "(password: the one given with " + option + "; export it as PGPASSWORD for psql)";
    }

    private void watchUntilStopped() {
        String rest = worker.restUrl().toString();
        String src = source.psql();
        String dst = target.psql();
        out.println();
        out.println("Running. Try:");
        out.println("  curl -s " + rest + "connectors?expand=status");
        out.println("  curl -s " + rest + "connectors/" + SINK_CONNECTOR + "/config");
        out.println("  psql \"" + src + "\" -c \"INSERT INTO " + DemoWorkload.SCHEMA
                + ".customer VALUES (1001, 'You', 'you@example.com', now())\"");
        out.println("  psql \"" + dst + "\" -c \"SELECT * FROM " + DemoWorkload.SCHEMA + ".customer WHERE id = 1001\"");
        out.println("  psql \"" + dst + "\" -c \"SELECT commit_lsn, change_count, ddl_count, applied_at FROM"
                + " trellara_sink.applied_transactions ORDER BY commit_lsn_value DESC LIMIT 5\"");
        out.println("New transactions show up below as they are captured and applied. Ctrl-C stops everything"
                + (options.embeddedSource() && options.embeddedTarget() && options.embeddedKafka()
                        ? " and deletes the temp data." : "."));
        Progress last = null;
        while (!closing) {
            try {
                Thread.sleep(1000);
                Progress p = progress();
                if (last != null && (p.captured() != last.captured() || p.applied() != last.applied())) {
                    step(p.line());
                }
                last = p;
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // shutting down, or a server is briefly unavailable
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ shutdown

    /** Connectors, worker, broker, PostgreSQL; slots, publications and topics this run created on existing servers. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closing = true;
        monitoring = false;
        long c0 = System.nanoTime();
        out.println();
        List<String> parts = embeddedParts();
        parts.set(parts.size() - 1, "connectors and Connect worker");
        java.util.Collections.reverse(parts);
        out.println("stopping: " + String.join(", ", parts) + " ...");
        if (monitor != null) {
            monitor.shutdownNow();
        }
        List<String> timings = new ArrayList<>();
        if (worker != null) {
            long w0 = System.nanoTime();
            quietly(worker::close); // orderly: connectors and tasks stopped, offsets committed
            started.remove(worker);
            timings.add(String.format(Locale.ROOT, "connectors and worker %.1f s", ms(w0) / 1000.0));
        }
        if (source != null && slot != null && !options.embeddedSource()) {
            quietly(() -> {
                org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(15))
                        .until(() -> source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE active AND"
                                + " slot_name = '" + slot + "'") == 0);
                source.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                        + " WHERE slot_name = '" + slot + "'", "DROP PUBLICATION IF EXISTS " + publication);
            });
        }
        if (admin != null && !options.embeddedKafka() && topic != null) {
            quietly(() -> admin.deleteTopics(List.of(topic, workerGroup + "-configs", workerGroup + "-offsets",
                    workerGroup + "-status")).all().get(30, TimeUnit.SECONDS));
        }
        for (int i = started.size() - 1; i >= 0; i--) {
            AutoCloseable resource = started.get(i);
            long r0 = System.nanoTime();
            if (resource == broker && !options.embeddedKafka()) {
                setLevel("io.trellara.testplatform.KafkaBroker", "OFF"); // never started: only its temp dir goes
            }
            quietly(resource::close);
            String what = resource == broker ? (options.embeddedKafka() ? "Kafka" : null)
                    : resource == sourceServer ? "source PostgreSQL" : resource == targetServer ? "target PostgreSQL" : null;
            if (what != null) {
                timings.add(String.format(Locale.ROOT, "%s %.1f s", what, ms(r0) / 1000.0));
            }
        }
        started.clear();
        out.println(String.format(Locale.ROOT, "stopped in %.1f s (%s)%s", ms(c0) / 1000.0, String.join(", ", timings),
                options.embeddedSource() || options.embeddedTarget() || options.embeddedKafka()
                        ? "; embedded servers' temp directories deleted" : ""));
    }

    private interface Action {
        void run() throws Exception;
    }

    private void quietly(Action action) {
        try {
            action.run();
        } catch (Exception | AssertionError e) {
            Throwable cause = e.getCause();
            out.println("  (while stopping: " + e.getMessage() + (cause != null ? ": " + cause : "") + ")");
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private <T extends AutoCloseable> T track(T resource) {
        started.add(resource);
        return resource;
    }

    private static Thread startThread(Runnable runnable, String name) {
        Thread t = new Thread(runnable, "trellara-quickstart-" + name);
        t.start();
        return t;
    }

    private static void join(Thread t) throws InterruptedException {
        if (t != null) {
            t.join();
        }
    }

    private long ms(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }

    private final Object printLock = new Object();

    private void step(String line) {
        synchronized (printLock) {
            out.println(String.format(Locale.ROOT, "[%5.1fs] %s", (System.nanoTime() - t0) / 1e9, line));
        }
    }

    private static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        if (n < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f kB", n / 1024.0);
        }
        return String.format(Locale.ROOT, "%.1f MB", n / (1024.0 * 1024));
    }
}
