package io.trellara.plugin.crash;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.FreePorts;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TcpProxy;
import io.trellara.testplatform.TestScope;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The pipeline under test: the source and sink connectors on Connect workers in JVMs of their own
 * (worker {@code a} always, {@code b} while a rebalance step runs), on the sequence's private
 * broker, the sink reaching the target through a {@link TcpProxy} (for outages), the source
 * reaching its database directly (its server restarts instead). Connectors are created through
 * REST, as users do.
 */
final class Pipeline implements AutoCloseable {
  final ConnectWorkerProcess a;
  final ConnectWorkerProcess b;
  final JmxProbe jmxA;
  final JmxProbe jmxB;
  final TcpProxy toTarget;
  final String sourceName;
  final String sinkName;
  final String strictTopic;
  final String lanesTopic;
  private final KafkaBroker broker;
  private final SequencePlan plan;
  private final Map<String, String> sourceConfig;
  private final Map<String, String> sinkConfig;

  Pipeline(
      TestScope scope,
      KafkaBroker broker,
      Path pluginPath,
      SequencePlan plan,
      PostgresDatabase source,
      PostgresDatabase target,
      List<Workload.Table> tables) {
    this.broker = broker;
    this.plan = plan;
    this.sourceName = scope.connectorName("source");
    this.sinkName = scope.connectorName("sink");
    this.strictTopic = scope.topic("strict");
    this.lanesTopic = plan.mode() == BoundaryMode.PARTITIONED ? scope.topic("lanes") : null;
    this.toTarget = TcpProxy.to("crash-target", target.host(), target.port());
    int portA = FreePorts.next();
    int portB = FreePorts.next();
    this.a = worker(scope, pluginPath, portA);
    this.b = worker(scope, pluginPath, portB);
    this.jmxA = new JmxProbe(portA);
    this.jmxB = new JmxProbe(portB);

    String list = tables.stream().map(t -> "public." + t.name()).collect(Collectors.joining(","));
    Map<String, String> src =
        new HashMap<>(ConnectorConfigs.source(scope, source, strictTopic, list, Map.of()));
    src.put("kafka.bootstrap.servers", broker.bootstrapServers());
    src.put("snapshot.mode", "initial");
    src.putAll(plan.mode().source(lanesTopic));
    this.sourceConfig = Map.copyOf(src);

    String topics = lanesTopic == null ? strictTopic : strictTopic + "," + lanesTopic;
    Map<String, String> sink = new HashMap<>(ConnectorConfigs.sink(target, topics, Map.of()));
    sink.put(
        "connection.url",
        "jdbc:postgresql://" + toTarget.host() + ":" + toTarget.port() + "/" + target.name());
    sink.put("snapshot.apply", plan.snapshotApply());
    sink.putAll(plan.mode().sink(sinkName));
    this.sinkConfig = Map.copyOf(sink);
  }

  private ConnectWorkerProcess worker(TestScope scope, Path pluginPath, int jmxPort) {
    ConnectWorker.Builder builder =
        ConnectWorker.builder(broker)
            .groupId(scope.prefix() + "-crash")
            .pluginPath(pluginPath)
            .pluginDiscovery("service_load")
            .set("session.timeout.ms", "6000")
            .set("heartbeat.interval.ms", "1000")
            .set("offset.flush.interval.ms", Integer.toString(plan.offsetFlushMs()))
            .jvmArg("-Xmx512m")
            .jvmArg("-XX:+UseSerialGC");
    JmxProbe.jvmArgs(jmxPort).forEach(builder::jvmArg);
    return builder.buildProcess();
  }

  /** The workers' offsets topic (ConnectWorker names it after the group). */
  String offsetsTopic() {
    return a.properties().get("offset.storage.topic");
  }

  void createTopics() {
    broker.createTopic(strictTopic, 1, ConnectorConfigs.topicConfigs());
    if (lanesTopic != null) {
      broker.createTopic(lanesTopic, BoundaryMode.LANES, ConnectorConfigs.topicConfigs());
    }
  }

  void createSource() {
    rest().createConnector(sourceName, sourceConfig);
  }

  void createSink() {
    rest().createConnector(sinkName, sinkConfig);
  }

  /** The REST API of a running worker (a first). */
  ConnectRestClient rest() {
    return (a.isRunning() || !b.isRunning() ? a : b).rest();
  }

  List<ConnectWorkerProcess> running() {
    List<ConnectWorkerProcess> out = new ArrayList<>();
    for (ConnectWorkerProcess w : List.of(a, b)) {
      if (w.isRunning()) {
        out.add(w);
      }
    }
    return out;
  }

  JmxProbe jmx(ConnectWorkerProcess w) {
    return w == a ? jmxA : jmxB;
  }

  /** The JMX probe of the worker that runs task 0 of {@code connector}, else of worker a. */
  JmxProbe jmxOf(String connector) {
    ConnectorStatus status = statusOrNull(connector);
    if (status != null && !status.tasks().isEmpty() && status.tasks().get(0).workerId() != null) {
      String worker = status.tasks().get(0).workerId();
      if (worker.endsWith(":" + b.restUrl().getPort()) && b.isRunning()) {
        return jmxB;
      }
    }
    return jmxA;
  }

  /** null while no worker answers (a broker restart takes the REST API away for a while). */
  ConnectorStatus statusOrNull(String connector) {
    try {
      return rest().status(connector);
    } catch (RuntimeException e) {
      return null;
    }
  }

  String connectorOf(String which) {
    return which.equals("source") ? sourceName : sinkName;
  }

  void recreate(String which) {
    String name = connectorOf(which);
    rest().deleteAndAwait(name);
    if (which.equals("source")) {
      createSource();
    } else {
      createSink();
    }
  }

  /**
   * Stops the source, deletes its offsets through REST and resumes it: a source without offsets
   * snapshots again, and the sink replaces the target's tables.
   */
  void resetSourceOffsets() {
    ConnectRestClient rest = rest();
    rest.stop(sourceName);
    rest.awaitState(sourceName, "STOPPED");
    System.out.println("CrashSequences: offset reset: " + rest.resetOffsets(sourceName));
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (rest.offsets(sourceName).path("offsets").size() > 0 && System.nanoTime() < deadline) {
      Faults.park(0.2);
    }
    // the worker reads the tombstones into its offset store in the background: a task started at
    // once may still find the old offsets
    Faults.park(2);
    rest.resume(sourceName);
  }

  /** Kills (SIGKILL) every running worker. */
  void killAll() {
    for (ConnectWorkerProcess w : running()) {
      jmx(w).disconnect();
      w.kill();
    }
  }

  /** Copies the worker logs into {@code dir} (the processes delete them on close). */
  void keepLogs(Path dir) {
    for (ConnectWorkerProcess w : List.of(a, b)) {
      try {
        if (Files.exists(w.logFile())) {
          Files.createDirectories(dir);
          Files.copy(
              w.logFile(),
              dir.resolve("worker-" + (w == a ? "a" : "b") + ".log"),
              StandardCopyOption.REPLACE_EXISTING);
        }
      } catch (IOException e) {
        // best effort: the report says where the logs should be
      }
    }
  }

  @Override
  public void close() {
    jmxA.close();
    jmxB.close();
    a.kill(); // a hung task must not hold the close up: nothing is flushed on purpose now
    b.kill();
    a.close();
    b.close();
    toTarget.close();
  }
}
