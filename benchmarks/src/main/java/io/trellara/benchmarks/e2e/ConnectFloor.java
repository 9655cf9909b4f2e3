package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.ConnectRestClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What Kafka Connect itself costs per W1 transaction in each boundary mode's wire shape, in the
 * same worker as the legs: {@code floor.FloorSourceConnector} hands Connect the records a W1
 * transaction becomes (same count, keys, headers, offsets and about the same sizes, but bytes
 * nobody reads), and {@code floor.FloorSinkConnector} only counts them. Converters {@code
 * StringConverter} and {@code ByteArrayConverter}, everything else at Connect's and Kafka's
 * defaults. The worker's CPU by thread role for the second half of the transactions (the first half
 * warms up) is Connect's floor under the same figure of the Trellara legs: what no connector can go
 * below in that shape.
 */
final class ConnectFloor {
  private static final String FLOOR = "io.trellara.benchmarks.e2e.floor.";

  private ConnectFloor() {}

  static void measure(Platform platform, List<String> shapes, int transactions, int ratePerSecond)
      throws Exception {
    WorkerThreads threads = platform.workerThreads();
    if (threads == null) {
      System.out.println("[connect floor] needs -Dbench.worker=process: skipped");
      return;
    }
    for (String shape : shapes) {
      measure(platform, threads, shape, transactions, ratePerSecond);
    }
  }

  private static void measure(
      Platform platform, WorkerThreads threads, String shape, int transactions, int rate)
      throws Exception {
    String name = "bench-floor-" + shape;
    String strict = "bench.floor." + shape + ".strict";
    String lanes = "bench.floor." + shape + ".lanes";
    platform.broker().createTopic(strict, 1);
    if (shape.equals("partitioned")) {
      platform.broker().createTopic(lanes, 6);
    }
    Path progress = Files.createTempFile("connect-floor", ".count");
    ConnectRestClient rest = platform.worker();
    try {
      Map<String, String> sink =
          Map.of(
              "connector.class",
              FLOOR + "FloorSinkConnector",
              "topics",
              shape.equals("partitioned") ? strict + "," + lanes : strict,
              "key.converter",
              "org.apache.kafka.connect.storage.StringConverter",
              "value.converter",
              "org.apache.kafka.connect.converters.ByteArrayConverter",
              "progress.file",
              progress.toString(),
              "report.at",
              Integer.toString(transactions),
              "transactions",
              Integer.toString(2 * transactions));
      rest.createConnector(name + "-sink", sink);
      rest.awaitRunning(name + "-sink");
      Map<String, String> source =
          Map.of(
              "connector.class",
              FLOOR + "FloorSourceConnector",
              "tasks.max",
              "1",
              "shape",
              shape,
              "topic.strict",
              strict,
              "topic.lanes",
              lanes,
              "key.converter",
              "org.apache.kafka.connect.storage.StringConverter",
              "value.converter",
              "org.apache.kafka.connect.converters.ByteArrayConverter",
              "transactions",
              Integer.toString(2 * transactions),
              "rate",
              Integer.toString(rate));
      rest.createConnector(name + "-source", source);
      await(progress, transactions, 2L * transactions / rate + 120);
      Map<String, Double> before = threads.cpuMillis();
      long t0 = System.nanoTime();
      await(progress, 2L * transactions, 2L * transactions / rate + 120);
      double seconds = (System.nanoTime() - t0) / 1e9;
      Map<String, Double> used = WorkerThreads.byRole(before, threads.cpuMillis());
      System.out.printf(
          Locale.ROOT,
          "[connect floor, %s shape] %,d transactions (after as many unmeasured) at"
              + " %,d tx/s, received in %.1f s: the worker's threads, %s%n",
          shape,
          transactions,
          rate,
          seconds,
          WorkerThreads.perTransaction(used, transactions));
    } finally {
      rest.deleteAndAwait(name + "-source");
      rest.deleteAndAwait(name + "-sink");
      platform.broker().deleteTopic(strict);
      if (shape.equals("partitioned")) {
        platform.broker().deleteTopic(lanes);
      }
      Files.deleteIfExists(progress);
    }
  }

  /** Waits until the sink task has counted {@code count} transactions. */
  private static void await(Path progress, long count, long timeoutSeconds) throws Exception {
    long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
    while (System.nanoTime() < deadline) {
      String s = Files.readString(progress).trim();
      if (!s.isEmpty() && Long.parseLong(s) >= count) {
        return;
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException(
        "the floor sink did not count " + count + " transactions in time");
  }
}
