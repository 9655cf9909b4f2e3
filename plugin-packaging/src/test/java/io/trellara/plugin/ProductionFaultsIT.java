package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TcpProxy;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TestServers;
import io.trellara.testplatform.TrellaraStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The faults of production, one after the other, under a steady transfer workload ({@link
 * TransferWorkload}), on a stock broker of the test's own (topic auto-creation on) and a Connect
 * worker in a JVM of its own loading the component archive, the connectors at their default
 * settings: every connection between the worker and each PostgreSQL server is cut (reset, as a
 * dropped NAT entry does) and the server stays unreachable for 5 s; then the broker, the source
 * server and the target server are each stopped and started again 5 s later (the target's last
 * asynchronous commits may be lost with it: the sink reads again from the progress the target
 * kept). Nobody restarts a connector: both must come back by themselves, with nothing lost, nothing
 * applied twice and no partial transaction seen on the target.
 *
 * <p>Prints, per fault, fault cleared → first transfer committed after it on the target → converged
 * (everything committed before it applied); asserts no timing.
 */
@EitherPlatform
class ProductionFaultsIT {
  private static final Duration OUTAGE = Duration.ofSeconds(5);
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final int LANES = 4;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"strict", "partitioned"})
  void theConnectorsRideThroughCutConnectionsAndABrokerRestartByThemselves(String mode)
      throws Exception {
    TrellaraStack stack = TrellaraStack.get();
    Path pluginPath = PluginWorker.unpackArchive("it-plugin-path-faults");
    try (TestScope scope = stack.newScope("faults_" + mode);
        KafkaBroker broker =
            TestServers.current().kafka(KafkaBroker.builder().autoCreateTopics(true)).start()) {
      PostgresDatabase source = scope.sourceDatabase();
      PostgresDatabase target = scope.targetDatabase();
      TransferWorkload workload = new TransferWorkload(source, target);
      workload.createTables();
      String sourceName = scope.connectorName("source");
      String sinkName = scope.connectorName("sink");
      String strict = scope.topic("strict");
      String lanes = scope.topic("lanes");
      List<String> report = new ArrayList<>();
      try (TcpProxy toSource = TcpProxy.to("source", source.host(), source.port());
          TcpProxy toTarget = TcpProxy.to("target", target.host(), target.port());
          ConnectWorkerProcess worker =
              ConnectWorker.builder(broker)
                  .groupId(scope.prefix() + "-faults")
                  .pluginPath(pluginPath)
                  .pluginDiscovery("service_load")
                  .jvmArg("-Xmx384m")
                  .buildProcess()) {
        worker.start();
        ConnectRestClient rest = worker.rest();
        Map<String, String> src =
            new HashMap<>(
                ConnectorConfigs.source(scope, source, strict, TransferWorkload.TABLES, Map.of()));
        // snapshot.mode=never: the test follows every source transaction by its xid; under the
        // default,
        // a source task restarted by a fault before Connect's first offset flush after the snapshot
        // snapshots again, folding the outage's transactions into the new snapshot
        // (docs/snapshot.md)
        src.put("snapshot.mode", "never");
        src.put("database.hostname", toSource.host());
        src.put("database.port", Integer.toString(toSource.port()));
        src.put("kafka.bootstrap.servers", broker.bootstrapServers());
        src.remove("producer.override.linger.ms"); // the producer's defaults
        if (mode.equals("partitioned")) {
          src.putAll(
              Map.of(
                  "dataset.mode",
                  "partitioned_scale_mode",
                  "topic.partitioned",
                  lanes,
                  "dataset.partitioned.partition_count",
                  Integer.toString(LANES)));
        }
        Map<String, String> sink =
            new HashMap<>(
                ConnectorConfigs.sink(
                    target, mode.equals("partitioned") ? strict + "," + lanes : strict, Map.of()));
        sink.put(
            "connection.url",
            "jdbc:postgresql://" + toTarget.host() + ":" + toTarget.port() + "/" + target.name());
        sink.remove("consumer.override.auto.offset.reset"); // Connect's default for sinks
        rest.createConnector(
            sourceName, src); // it creates its topics (StockKafkaTopicsIT: either order)
        rest.createConnector(sinkName, sink);
        rest.awaitRunning(sourceName, 1, WAIT);
        rest.awaitRunning(sinkName, 1, WAIT);
        await("slot active")
            .atMost(WAIT)
            .until(
                () ->
                    source.queryLong(
                            "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '"
                                + scope.slotName()
                                + "'")
                        == 1);
        workload.start();
        workload.awaitApplied(100, "transfers applied before the first fault");

        report.add(
            fault(
                "source connections cut",
                workload,
                rest,
                sourceName,
                sinkName,
                () -> {
                  toSource.refuse(true);
                  toSource.cut();
                },
                () -> toSource.refuse(false)));
        report.add(
            fault(
                "target connections cut",
                workload,
                rest,
                sourceName,
                sinkName,
                () -> {
                  toTarget.refuse(true);
                  toTarget.cut();
                },
                () -> toTarget.refuse(false)));
        report.add(
            fault(
                "broker restarted",
                workload,
                rest,
                sourceName,
                sinkName,
                broker::stop,
                broker::start));
        report.add(
            fault(
                "source server restarted",
                workload,
                rest,
                sourceName,
                sinkName,
                source.server()::stop,
                source.server()::start));
        report.add(
            fault(
                "target server restarted",
                workload,
                rest,
                sourceName,
                sinkName,
                target.server()::stop,
                target.server()::start));

        LockSupport.parkNanos(2_000_000_000L);
        int transfers = workload.verify();
        assertThat(rest.status(sourceName).isRunning(1))
            .as("source " + rest.status(sourceName))
            .isTrue();
        assertThat(rest.status(sinkName).isRunning(1)).as("sink " + rest.status(sinkName)).isTrue();
        System.out.printf(
            Locale.ROOT,
            "ProductionFaultsIT[%s]: %s; %d transfers, each applied once, target"
                + " equals source; reader %d reads, no partial state%n",
            mode,
            String.join("; ", report),
            transfers,
            workload.reads());
        rest.deleteAndAwait(sinkName);
        rest.deleteAndAwait(sourceName);
      } catch (Throwable t) {
        System.out.println("ProductionFaultsIT[" + mode + "] " + String.join("; ", report));
        throw t;
      } finally {
        workload.close();
        source.dropReplicationSlots(scope.slotName());
      }
    }
  }

  /**
   * Injects a fault, holds it for {@link #OUTAGE} while the writer goes on, clears it, and measures
   * the pipeline coming back by itself; a connector or task found FAILED fails the test.
   */
  private static String fault(
      String name,
      TransferWorkload workload,
      ConnectRestClient rest,
      String source,
      String sink,
      Runnable inject,
      Runnable clear) {
    long injectedAt = System.nanoTime();
    inject.run();
    while (System.nanoTime() - injectedAt < OUTAGE.toNanos()) {
      LockSupport.parkNanos(200_000_000L);
    }
    clear.run();
    long clearedAt = System.nanoTime();
    int committedAtClear = workload.lastCommitted();
    long firstRowsAt = 0;
    long convergedAt = 0;
    long lastStatus = 0;
    while (convergedAt == 0) {
      long now = System.nanoTime();
      if (now - clearedAt > WAIT.toNanos()) {
        throw new AssertionError(
            name
                + ": not back within "
                + WAIT.toSeconds()
                + " s of clearing (first"
                + " new rows "
                + (firstRowsAt == 0 ? "not seen" : (firstRowsAt - clearedAt) / 1e9 + " s")
                + "); source "
                + rest.status(source)
                + ", sink "
                + rest.status(sink));
      }
      if (now - lastStatus > 500_000_000L) {
        lastStatus = now;
        for (String connector : List.of(source, sink)) {
          ConnectorStatus status = statusOrNull(rest, connector);
          if (status != null && status.isFailed()) {
            throw new AssertionError(
                name + ": " + connector + " FAILED: " + status + "\n" + status.firstTrace());
          }
        }
      }
      if (firstRowsAt == 0 && workload.newestApplied() > committedAtClear) {
        firstRowsAt = now;
      }
      if (firstRowsAt != 0 && workload.appliedUpTo(committedAtClear)) {
        convergedAt = now;
      }
      LockSupport.parkNanos(50_000_000L);
    }
    return String.format(
        Locale.ROOT,
        "%s for %d s: cleared -> first new rows %.2f s -> converged %.2f s",
        name,
        OUTAGE.toSeconds(),
        (firstRowsAt - clearedAt) / 1e9,
        (convergedAt - clearedAt) / 1e9);
  }

  /**
   * The REST API answers once the worker is back in its group (a broker restart takes it away for a
   * while).
   */
  private static ConnectorStatus statusOrNull(ConnectRestClient rest, String connector) {
    try {
      return rest.status(connector);
    } catch (RuntimeException e) {
      return null;
    }
  }
}
