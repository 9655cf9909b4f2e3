package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A two-worker Connect cluster (two JVMs in one group, plugin.path = the unpacked component
 * archive) runs the source and the sink while a writer commits a steady stream of bank transfers;
 * the worker that runs the sink task (task 0) is killed with SIGKILL and never started again. The
 * other worker must take the tasks over by itself: every committed transaction reaches the target
 * exactly once, the target ends equal to the source, and a reader polling the target the whole time
 * never sees a partial transaction.
 *
 * <p>The test prints kill → sink task assigned to the survivor → RUNNING → first new rows on the
 * target → converged (every transaction committed before the first new rows applied); it asserts no
 * timing. The settings are those docs/operations.md ("Losing a worker") recommends; {@code
 * -Dtrellara.failover.settings=stock} runs Kafka Connect's own defaults instead ({@code
 * scheduled.rebalance.max.delay.ms} 5 min, worker session 10 s, sink consumer session 45 s), {@code
 * no-delay} the same with {@code scheduled.rebalance.max.delay.ms=0}; {@code
 * -Dtrellara.failover.worker=k=v,...} and {@code -Dtrellara.failover.sink=k=v,...} add worker and
 * sink settings ({@code {sink}} stands for the sink's name), {@code
 * -Dtrellara.failover.sinkTasks=N} sets the sink's tasks.max and {@code
 * -Dtrellara.failover.modes=strict} picks the modes.
 *
 * <p>The workload and its checks are {@link TransferWorkload}'s.
 */
@EitherPlatform
class TwoWorkerFailoverIT {

  private static final String SETTINGS =
      System.getProperty("trellara.failover.settings", "recommended");
  private static final int LANES = 4;
  private static final Duration WAIT = Duration.ofSeconds(120);

  static Stream<String> modes() {
    return Arrays.stream(
            System.getProperty("trellara.failover.modes", "strict,partitioned").split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty());
  }

  /** Worker and sink settings under test, and the sink's tasks.max. */
  record Settings(
      String name, Map<String, String> worker, Map<String, String> sink, int sinkTasks) {

    static Settings of(String profile, String mode, String sinkName) {
      int tasks = Integer.getInteger("trellara.failover.sinkTasks", "strict".equals(mode) ? 1 : 2);
      Map<String, String> worker = new LinkedHashMap<>();
      Map<String, String> sink = new LinkedHashMap<>();
      switch (profile) {
        case "stock" -> {
          // Connect's defaults (the platform's worker uses 0 so restarted workers resume at once);
          // offset.flush.interval.ms as docker/connect-distributed.properties ships it
          worker.put("scheduled.rebalance.max.delay.ms", "300000");
          worker.put("offset.flush.interval.ms", "10000");
        }
        case "no-delay" -> worker.put("scheduled.rebalance.max.delay.ms", "0");
        case "recommended" -> { // as docker/connect-distributed.properties and config-examples/ set
          // them
          worker.put("scheduled.rebalance.max.delay.ms", "0");
          worker.put("session.timeout.ms", "6000");
          worker.put("heartbeat.interval.ms", "2000");
          if (tasks == 1) {
            sink.put("consumer.override.group.instance.id", sinkName);
          } else {
            sink.put("consumer.override.session.timeout.ms", "6000");
            sink.put("consumer.override.heartbeat.interval.ms", "2000");
          }
        }
        default ->
            throw new IllegalArgumentException(
                "trellara.failover.settings: stock, no-delay or"
                    + " recommended,"
                    + " not "
                    + profile);
      }
      worker.putAll(pairs(System.getProperty("trellara.failover.worker", "")));
      sink.putAll(
          pairs(System.getProperty("trellara.failover.sink", "").replace("{sink}", sinkName)));
      return new Settings(profile, worker, sink, tasks);
    }

    private static Map<String, String> pairs(String text) {
      Map<String, String> out = new LinkedHashMap<>();
      for (String pair : text.split(",")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          out.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
      }
      return out;
    }

    long rebalanceDelayMs() {
      return Long.parseLong(worker.getOrDefault("scheduled.rebalance.max.delay.ms", "300000"));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void theSurvivingWorkerTakesTheTasksOverAndNothingIsLostOrAppliedTwice(String mode)
      throws Exception {
    long testStarted = System.nanoTime();
    TrellaraStack stack = TrellaraStack.get();
    Path pluginPath = PluginWorker.unpackArchive("it-plugin-path-failover");
    try (TestScope scope = stack.newScope("failover_" + mode)) {
      PostgresDatabase source = scope.sourceDatabase();
      PostgresDatabase target = scope.targetDatabase();
      TransferWorkload workload = new TransferWorkload(source, target);
      workload.createTables();
      String strict = scope.createTopic("strict", 1);
      String lanes = "partitioned".equals(mode) ? scope.createTopic("lanes", LANES) : null;
      String sourceName = scope.connectorName("source");
      String sinkName = scope.connectorName("sink");
      Settings settings = Settings.of(SETTINGS, mode, sinkName);
      List<ConnectWorkerProcess> workers = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        ConnectWorker.Builder builder =
            ConnectWorker.builder(stack.broker())
                .groupId(scope.prefix() + "-cluster")
                .pluginPath(pluginPath)
                .pluginDiscovery("service_load")
                .jvmArg("-Xmx384m");
        settings.worker().forEach(builder::set);
        workers.add(builder.buildProcess());
      }
      ConnectWorkerProcess killed = null;
      ConnectWorkerProcess survivor = null;
      try {
        workers.forEach(
            ConnectWorkerProcess::start); // both in the group before anything is assigned
        ConnectRestClient rest = workers.get(0).rest();
        Map<String, String> src =
            new HashMap<>(
                ConnectorConfigs.source(scope, source, strict, TransferWorkload.TABLES, Map.of()));
        // snapshot.mode=never: the test follows every source transaction by its xid; under the
        // default,
        // a worker lost before Connect's first offset flush after the snapshot snapshots again,
        // folding
        // the outage's transactions into the new snapshot (docs/snapshot.md)
        src.put("snapshot.mode", "never");
        if (lanes != null) {
          src.putAll(
              Map.of(
                  "dataset.mode",
                  "partitioned_scale_mode",
                  "topic.partitioned",
                  lanes,
                  "dataset.partitioned.partition_count",
                  Integer.toString(LANES)));
        }
        rest.createConnector(sourceName, src);
        Map<String, String> sink =
            new HashMap<>(
                ConnectorConfigs.sink(
                    target, lanes == null ? strict : strict + "," + lanes, Map.of()));
        sink.put("tasks.max", Integer.toString(settings.sinkTasks()));
        sink.putAll(settings.sink());
        rest.createConnector(sinkName, sink);
        rest.awaitRunning(sourceName, 1, WAIT);
        rest.awaitRunning(sinkName, settings.sinkTasks(), WAIT);
        String slotActive =
            "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '"
                + scope.slotName()
                + "'";
        await("slot " + scope.slotName() + " active")
            .atMost(WAIT)
            .until(() -> source.queryLong(slotActive) == 1);

        workload.start();
        workload.awaitApplied(100, "transfers applied before the kill");

        // kill the worker that runs sink task 0; the other one is never stopped
        ConnectorStatus sinkBefore = rest.status(sinkName);
        ConnectorStatus sourceBefore = rest.status(sourceName);
        String sinkWorker = sinkBefore.tasks().get(0).workerId();
        killed =
            workers.stream()
                .filter(w -> sinkWorker.endsWith(":" + w.restUrl().getPort()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no worker runs " + sinkBefore));
        survivor = workers.get(killed == workers.get(0) ? 1 : 0);
        String survivorId = "127.0.0.1:" + survivor.restUrl().getPort();
        String placement =
            "sink tasks "
                + placement(sinkBefore)
                + ", source task "
                + placement(sourceBefore)
                + ", killed "
                + sinkWorker;
        killed.kill();
        long killedAt = System.nanoTime();
        long maxAtKill = workload.newestApplied();
        int committedAtKill = workload.committed();

        ConnectRestClient survivorRest = survivor.rest();
        long assignedAt = 0;
        long runningAt = 0;
        long firstRowsAt = 0;
        long convergedAt = 0;
        int resumeN = 0;
        long lastStatus = 0;
        // the delay holds the tasks back, and the writer's backlog grows meanwhile
        long deadline = killedAt + WAIT.toNanos() + 2 * settings.rebalanceDelayMs() * 1_000_000L;
        while (convergedAt == 0) {
          long now = System.nanoTime();
          if (now > deadline) {
            throw new AssertionError(
                "no takeover within "
                    + (deadline - killedAt) / 1_000_000_000L
                    + " s of the kill ("
                    + placement
                    + "; first new rows "
                    + since(firstRowsAt, killedAt)
                    + "); sink "
                    + survivorRest.status(sinkName));
          }
          if (now - lastStatus > 200_000_000L) {
            lastStatus = now;
            ConnectorStatus status = survivorRest.status(sinkName);
            if (status.isFailed()) {
              throw new AssertionError(
                  "sink FAILED after the kill: " + status + "\n" + status.firstTrace());
            }
            ConnectorStatus.TaskStatus task0 =
                status.tasks().isEmpty() ? null : status.tasks().get(0);
            if (runningAt == 0 && task0 != null && survivorId.equals(task0.workerId())) {
              assignedAt = assignedAt == 0 ? now : assignedAt;
              if ("RUNNING".equals(task0.state())) {
                runningAt = now;
              }
            }
          }
          if (firstRowsAt == 0) {
            if (workload.newestApplied() > maxAtKill) {
              firstRowsAt = now;
              resumeN = workload.lastCommitted();
            }
          } else if (workload.appliedUpTo(resumeN)) {
            convergedAt = now;
          }
          LockSupport.parkNanos(50_000_000L);
        }
        int backlog = resumeN - committedAtKill;

        LockSupport.parkNanos(2_000_000_000L); // transfers go on a while after the takeover
        int transfers = workload.verify();
        ConnectorStatus sinkAfter = survivorRest.status(sinkName);
        ConnectorStatus sourceAfter = survivorRest.status(sourceName);
        assertThat(sinkAfter.isRunning(settings.sinkTasks())).as("sink " + sinkAfter).isTrue();
        assertThat(sourceAfter.isRunning(1)).as("source " + sourceAfter).isTrue();
        assertThat(
                Stream.concat(sinkAfter.tasks().stream(), sourceAfter.tasks().stream())
                    .map(ConnectorStatus.TaskStatus::workerId))
            .as("every task on the survivor")
            .containsOnly(survivorId);

        System.out.printf(
            Locale.ROOT,
            "TwoWorkerFailoverIT[%s, %s]: %s; kill -> sink task 0 assigned to"
                + " the survivor %s -> RUNNING %s -> first new rows %.2f s -> converged %.2f s"
                + " (%d transfers committed before the kill, backlog %d); %d transfers in all, each"
                + " applied once, target equals source; reader %d reads, no partial state; worker %s,"
                + " sink tasks.max=%d %s; test %.1f s%n",
            mode,
            settings.name(),
            placement,
            since(assignedAt, killedAt),
            since(runningAt, killedAt),
            (firstRowsAt - killedAt) / 1e9,
            (convergedAt - killedAt) / 1e9,
            committedAtKill,
            backlog,
            transfers,
            workload.reads(),
            settings.worker(),
            settings.sinkTasks(),
            settings.sink(),
            (System.nanoTime() - testStarted) / 1e9);
      } catch (Throwable t) {
        for (ConnectWorkerProcess w : workers) {
          System.out.println("TwoWorkerFailoverIT " + w + " log tail:\n" + w.logTail());
        }
        throw t;
      } finally {
        workload.close();
        try {
          for (ConnectWorkerProcess w : workers) {
            if (w.isRunning()) {
              ConnectRestClient rest = w.rest();
              for (String name : List.of(sinkName, sourceName)) {
                if (rest.connectors().contains(name)) {
                  rest.deleteAndAwait(name);
                }
              }
              break;
            }
          }
        } finally {
          for (int i = 0; i < workers.size(); i++) {
            keepLog(
                workers.get(i),
                pluginPath
                    .getParent()
                    .resolve(
                        "failover-"
                            + mode
                            + "-worker-"
                            + i
                            + (workers.get(i) == killed ? "-killed" : "")
                            + ".log"));
            workers.get(i).close();
          }
        }
      }
    }
  }

  private static String placement(ConnectorStatus status) {
    Map<Integer, String> byTask = new TreeMap<>();
    status.tasks().forEach(t -> byTask.put(t.id(), t.workerId()));
    return byTask.toString();
  }

  private static String since(long at, long from) {
    return at == 0 ? "(not seen)" : String.format(Locale.ROOT, "%.2f s", (at - from) / 1e9);
  }

  private static void keepLog(ConnectWorkerProcess worker, Path copy) {
    try {
      Files.copy(worker.logFile(), copy, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      System.out.println("TwoWorkerFailoverIT: could not keep the worker log: " + e);
    }
  }
}
