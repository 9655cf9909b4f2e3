package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.FreePorts;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.Test;

/**
 * One large transaction (1,000,000 rows by default; {@code -Dtrellara.large.rows=5000000} for the
 * benchmark figure, {@code -Dtrellara.large.mode=partitioned} for partitioned scale mode) through a
 * Connect worker in its own JVM with {@code -Xmx256m}: the source spills it and streams it out as
 * chunks, the sink stages the chunks and applies the whole transaction at its commit marker. The
 * worker must survive, the target must equal the source, and the figures (time, peak heap read over
 * JMX) are printed for docs/benchmarks.md.
 */
@EitherPlatform
class LargeTransactionIT {
  private static final int ROWS = Integer.getInteger("trellara.large.rows", 1_000_000);
  private static final String MODE = System.getProperty("trellara.large.mode", "strict_chunked");
  private static final String HEAP = System.getProperty("trellara.large.heap", "256m");
  private static final Duration WAIT = Duration.ofMinutes(Math.max(10, ROWS / 100_000));

  @Test
  void aLargeTransactionFlowsThroughAWorkerWithABoundedHeap() throws Exception {
    TrellaraStack stack = TrellaraStack.get();
    Path pluginPath = PluginWorker.unpackArchive("it-plugin-path-large");
    int jmxPort = FreePorts.next();
    try (TestScope scope = stack.newScope("large")) {
      PostgresDatabase source = scope.sourceDatabase();
      PostgresDatabase target = scope.targetDatabase();
      String table =
          "CREATE TABLE big (id bigint PRIMARY KEY, tenant int NOT NULL, payload text,"
              + " amount numeric(12,2))";
      source.execute(table);
      target.execute(table);
      boolean partitioned = MODE.equals("partitioned");
      String strict = scope.createTopic("strict", 1);
      String lanes = partitioned ? scope.createTopic("lanes", 6) : null;

      try (ConnectWorkerProcess worker =
          ConnectWorker.builder(stack.broker())
              .groupId(scope.prefix() + "-large")
              .pluginPath(pluginPath)
              .pluginDiscovery("service_load")
              .jvmArg("-Xmx" + HEAP)
              .jvmArg("-Dcom.sun.management.jmxremote.port=" + jmxPort)
              .jvmArg("-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort)
              .jvmArg("-Dcom.sun.management.jmxremote.authenticate=false")
              .jvmArg("-Dcom.sun.management.jmxremote.ssl=false")
              .jvmArg("-Djava.rmi.server.hostname=127.0.0.1")
              .buildProcess()) {
        worker.start();
        ConnectRestClient rest = worker.rest();
        Map<String, String> src =
            new HashMap<>(
                ConnectorConfigs.source(
                    scope,
                    source,
                    strict,
                    "public.big",
                    Map.of(
                        "spill.directory",
                        pluginPath.getParent().resolve("large-spill").toString())));
        if (partitioned) {
          src.putAll(
              Map.of(
                  "dataset.mode",
                  "partitioned_scale_mode",
                  "topic.partitioned",
                  lanes,
                  "dataset.partitioned.partition_count",
                  "6"));
        } else {
          src.put("dataset.strict_chunking.max_changes_per_chunk", "5000");
        }
        String sourceName = scope.connectorName("source");
        rest.createConnector(sourceName, src);
        Map<String, String> sink =
            new HashMap<>(
                ConnectorConfigs.sink(
                    target, partitioned ? strict + "," + lanes : strict, Map.of()));
        // Kafka's default fetch sizes: a poll holds about a megabyte per partition, not 64 MiB
        sink.remove("consumer.override.max.partition.fetch.bytes");
        sink.put("tasks.max", partitioned ? "3" : "1");
        String sinkName = scope.connectorName("sink");
        rest.createConnector(sinkName, sink);
        rest.awaitRunning(sourceName);
        rest.awaitRunning(sinkName);

        try (JMXConnector jmx =
            JMXConnectorFactory.connect(
                new JMXServiceURL(
                    "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"))) {
          MBeanServerConnection mbeans = jmx.getMBeanServerConnection();
          List<MemoryPoolMXBean> heapPools = heapPools(mbeans);
          heapPools.forEach(MemoryPoolMXBean::resetPeakUsage);

          long t0 = System.nanoTime();
          source.execute(
              "INSERT INTO big SELECT g, g % 97, repeat('p', 80) || g, g / 100.0"
                  + " FROM generate_series(1, "
                  + ROWS
                  + ") g");
          double committed = (System.nanoTime() - t0) / 1e9;
          MemoryMXBean memory =
              ManagementFactory.newPlatformMXBeanProxy(
                  mbeans, ManagementFactory.MEMORY_MXBEAN_NAME, MemoryMXBean.class);
          long[] sampledPeak = {0};
          long[] liveAfterGc = {0};
          await()
              .atMost(WAIT)
              .pollInterval(Duration.ofMillis(500))
              .until(
                  () -> {
                    sampledPeak[0] =
                        Math.max(sampledPeak[0], memory.getHeapMemoryUsage().getUsed());
                    liveAfterGc[0] =
                        Math.max(
                            liveAfterGc[0],
                            heapPools.stream()
                                .filter(p -> p.getCollectionUsage() != null)
                                .mapToLong(p -> p.getCollectionUsage().getUsed())
                                .sum());
                    return target.queryLong("SELECT count(*) FROM big") == ROWS
                        || !worker.isRunning();
                  });
          double applied = (System.nanoTime() - t0) / 1e9;
          assertThat(worker.isRunning())
              .as("worker alive at -Xmx" + HEAP + "; log:\n%s", worker.logTail())
              .isTrue();

          String fingerprint = "SELECT sum(hashtext(t::text)::bigint) FROM big t";
          assertThat(target.queryLong(fingerprint)).isEqualTo(source.queryLong(fingerprint));
          System.out.printf(
              Locale.ROOT,
              "LargeTransactionIT: %,d rows, %s, worker -Xmx%s: INSERT"
                  + " committed in %.1f s, applied on the target %.1f s after the INSERT began (%.1f s"
                  + " after commit); heap used at most %,d MiB, heap after the last collection at most %,d MiB (sampled)%n",
              ROWS,
              MODE,
              HEAP,
              committed,
              applied,
              applied - committed,
              sampledPeak[0] >> 20,
              liveAfterGc[0] >> 20);
        }
        assertThat(rest.status(sourceName).toString()).contains("RUNNING");
        rest.deleteAndAwait(sinkName);
        rest.deleteAndAwait(sourceName);
      }
    }
  }

  private static List<MemoryPoolMXBean> heapPools(MBeanServerConnection mbeans) throws Exception {
    return mbeans
        .queryNames(new ObjectName(ManagementFactory.MEMORY_POOL_MXBEAN_DOMAIN_TYPE + ",*"), null)
        .stream()
        .map(
            n -> {
              try {
                return ManagementFactory.newPlatformMXBeanProxy(
                    mbeans, n.toString(), MemoryPoolMXBean.class);
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            })
        .filter(p -> p.getType() == MemoryType.HEAP)
        .toList();
  }
}
