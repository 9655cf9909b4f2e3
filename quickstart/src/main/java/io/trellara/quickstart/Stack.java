package io.trellara.quickstart;

import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The servers the pipeline runs on: source and target PostgreSQL (embedded, or existing ones given
 * by URL), a Kafka broker (embedded, or an existing cluster), and the Connect worker, always
 * embedded. Started in parallel where they can be, stopped in reverse order.
 */
final class Stack implements AutoCloseable {

  static final String DATABASE = "shop";

  /**
   * Cleanup that must run once the worker has stopped (its tasks hold the slot) and before the
   * servers stop.
   */
  interface Action {
    void run() throws Exception;
  }

  private final Options options;
  private final RunNames names;
  private final ConsoleReport report;
  private final List<AutoCloseable> started = new ArrayList<>();
  private final List<Action> afterWorkerStops = new ArrayList<>();

  private PostgresServer sourceServer;
  private PostgresServer targetServer;
  private KafkaBroker broker;
  private ConnectWorker worker;
  private Admin admin;
  private Db source;
  private Db target;
  private String bootstrapServers;
  private long startupMillis;

  Stack(Options options, RunNames names, ConsoleReport report) {
    this.options = options;
    this.names = names;
    this.report = report;
  }

  void start() throws Exception {
    long s0 = System.nanoTime();
    report.step("starting " + String.join(", ", parts()) + " in this JVM ...");
    if (options.embeddedSource() || options.embeddedTarget()) {
      report.step(
          "  demo settings: PostgreSQL fsync=off and temp data directories (fast, not crash-safe;"
              + " deleted at exit)");
    }
    Thread sourceStart = null;
    Thread targetStart = null;
    if (options.embeddedSource()) {
      sourceServer = track(embeddedPostgres("source"));
      sourceStart =
          startThread(
              () -> {
                sourceServer.start();
                report.step("  source PostgreSQL 17 up (port " + sourceServer.port() + ")");
              },
              "source-pg");
    }
    if (options.embeddedTarget()) {
      targetServer = track(embeddedPostgres("target"));
      targetStart =
          startThread(
              () -> {
                targetServer.start();
                report.step("  target PostgreSQL 17 up (port " + targetServer.port() + ")");
              },
              "target-pg");
    }
    try {
      startKafkaAndWorker();
    } finally {
      join(sourceStart);
      join(targetStart);
    }
    source =
        options.embeddedSource()
            ? embeddedDb("source", sourceServer)
            : new Db("source", options.sourceJdbc, options.sourceUser, options.sourcePassword);
    target =
        options.embeddedTarget()
            ? embeddedDb("target", targetServer)
            : new Db("target", options.targetJdbc, options.targetUser, options.targetPassword);
    startupMillis = ConsoleReport.millisSince(s0);
  }

  private void startKafkaAndWorker() throws Exception {
    broker =
        track(KafkaBroker.builder().build()); // unstarted with an external Kafka: only its temp dir
    if (options.embeddedKafka()) {
      broker.start();
      bootstrapServers = broker.bootstrapServers();
      report.step("  Kafka broker up (" + bootstrapServers + ")");
    } else {
      bootstrapServers = options.bootstrapServers;
    }
    admin =
        track(
            Admin.create(
                Map.of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrapServers,
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                    30_000)));
    admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
    ConnectWorker.Builder wb =
        ConnectWorker.builder(broker).groupId(names.workerGroup()).restPort(restPort());
    if (!options.embeddedKafka()) {
      wb.set("bootstrap.servers", bootstrapServers)
          .set("config.storage.replication.factor", "-1")
          .set("offset.storage.replication.factor", "-1")
          .set("status.storage.replication.factor", "-1");
    }
    worker = track(wb.build());
    worker.start();
    report.step("  Connect worker up (REST " + worker.restUrl() + ")");
  }

  /** What runs in this JVM, in start order. */
  List<String> parts() {
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
      throw new IllegalStateException(
          "the embedded " + label + " PostgreSQL did not start (see the log above)");
    }
    server.execute("postgres", "CREATE DATABASE " + DATABASE);
    return new Db(label, server.jdbcUrl(DATABASE), server.user(), server.password());
  }

  private int restPort() {
    int wanted = options.restPort;
    try (ServerSocket socket = new ServerSocket(wanted, 1, InetAddress.getLoopbackAddress())) {
      return wanted;
    } catch (IOException e) {
      report.step("  port " + wanted + " is taken: the Connect REST API gets a free port");
      return 0;
    }
  }

  Db source() {
    return source;
  }

  Db target() {
    return target;
  }

  Admin admin() {
    return admin;
  }

  ConnectWorker worker() {
    return worker;
  }

  String bootstrapServers() {
    return bootstrapServers;
  }

  long startupMillis() {
    return startupMillis;
  }

  /** Registers cleanup of what the run created on existing servers (slot, publication, topics). */
  void afterWorkerStops(Action cleanup) {
    afterWorkerStops.add(cleanup);
  }

  /**
   * Worker (connectors and tasks stopped, offsets committed), the cleanup, then broker and
   * PostgreSQL servers.
   */
  @Override
  public void close() {
    long c0 = System.nanoTime();
    report.blank();
    List<String> parts = parts();
    parts.set(parts.size() - 1, "connectors and Connect worker");
    Collections.reverse(parts);
    report.line("stopping: " + String.join(", ", parts) + " ...");
    List<String> timings = new ArrayList<>();
    if (worker != null) {
      long w0 = System.nanoTime();
      quietly(worker::close);
      started.remove(worker);
      timings.add(
          String.format(
              Locale.ROOT, "connectors and worker %.1f s", ConsoleReport.millisSince(w0) / 1000.0));
    }
    afterWorkerStops.forEach(this::quietly);
    afterWorkerStops.clear();
    for (int i = started.size() - 1; i >= 0; i--) {
      AutoCloseable resource = started.get(i);
      long r0 = System.nanoTime();
      if (resource == broker && !options.embeddedKafka()) {
        Logging.setLevel(
            "io.trellara.testplatform.EmbeddedKafka",
            "OFF"); // never started: only its temp dir goes
      }
      quietly(resource::close);
      String what =
          resource == broker
              ? (options.embeddedKafka() ? "Kafka" : null)
              : resource == sourceServer
                  ? "source PostgreSQL"
                  : resource == targetServer ? "target PostgreSQL" : null;
      if (what != null) {
        timings.add(
            String.format(Locale.ROOT, "%s %.1f s", what, ConsoleReport.millisSince(r0) / 1000.0));
      }
    }
    started.clear();
    report.line(
        String.format(
            Locale.ROOT,
            "stopped in %.1f s (%s)%s",
            ConsoleReport.millisSince(c0) / 1000.0,
            String.join(", ", timings),
            options.embeddedSource() || options.embeddedTarget() || options.embeddedKafka()
                ? "; embedded servers' temp directories deleted"
                : ""));
  }

  private void quietly(Action action) {
    try {
      action.run();
    } catch (Exception | AssertionError e) {
      Throwable cause = e.getCause();
      report.line(
          "  (while stopping: " + e.getMessage() + (cause != null ? ": " + cause : "") + ")");
    }
  }

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
}
