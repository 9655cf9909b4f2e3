package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresServer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Commit-to-applied on the real pipeline next to PostgreSQL's native logical replication, in the
 * same run: two durable embedded PostgreSQL 17 servers (fsync on), an in-JVM KRaft broker and
 * Connect worker, the source and sink connectors POSTed as JSON. Each leg ({@link
 * NativeReplicationLeg}, {@link TrellaraLeg}) runs the same {@link Workloads} on fresh databases of
 * its own between the same two servers, one leg after the other; {@link Report} prints every figure
 * with its ratio to native. Prints the figures that go into docs/benchmarks.md. Not a test: run it
 * by hand, {@code ./mvnw -q -B install -DskipTests -DskipITs && ./mvnw -q -B -pl benchmarks
 * exec:java -Dexec.mainClass=io.trellara.benchmarks.e2e.EndToEndBenchmark -Dexec.args="300000 20000
 * all"}; the arguments are the bulk transaction's rows, the number of transfer transactions and the
 * legs: {@code all} (native, strict, strict_chunked, partitioned, debezium), {@code native}, or
 * legs separated by commas (e.g. {@code strict} or {@code strict,partitioned,debezium}), which run
 * after native. {@code partitioned} runs one leg per sink task count of {@code
 * -Dbench.partitioned.sinkTasks} (default {@code 1,2,4}); {@code partitioned@2} runs one. {@code
 * debezium} ({@link DebeziumLeg}) is Debezium's PostgreSQL source and JDBC sink in the same worker,
 * loaded from the plugin archives this module's build unpacks into {@code target/debezium-plugins}
 * (the worker's {@code plugin.path} when the leg runs).
 *
 * <p>Latency mode, {@code -Dexec.args="latency 500 strict 30 20"}: {@link PacedLatency} with native
 * replication and the named legs at the defaults users get (no producer, consumer or apply
 * overrides): the number of single-row transactions, the legs, the seconds of idle measured before
 * them (0: none) and the milliseconds between commits. {@code -Dbench.latency.background=R} adds a
 * second client committing R single-row transactions a second meanwhile. {@code
 * -Dbench.latency.warmup=N} runs N unmeasured transactions at the same pace first in every leg.
 *
 * <p>{@code -Dbench.warmup.leg=strict} (any boundary mode) runs one leg of that mode first and
 * discards its figures: the first leg of a run otherwise pays the broker's and the worker's JIT,
 * 2–4 ms of latency and up to twice the CPU per row.
 *
 * <p>{@code -Dbench.worker.exactly_once=true} starts the worker with {@code
 * exactly.once.source.support=enabled}.
 *
 * <p>{@code -Dbench.worker=process} runs the Connect worker in a JVM of its own and reports its CPU
 * per replicated row apart from the broker's and the workload's; {@code
 * -Dbench.worker.jvmArgs="..."} adds options to its JVM. With it, {@code -Dbench.floor.rate=N} ends
 * a transfers run with {@link ConnectFloor}: what Kafka Connect itself costs per transaction in
 * each boundary mode's wire shape, with no-op connectors at N transactions a second.
 */
public final class EndToEndBenchmark {

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("latency")) {
      latency(args);
      return;
    }
    int bulkRows = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
    int transfers = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    List<String> modes = modes(args.length > 2 ? args[2] : "strict");
    System.out.println("legs: " + String.join(", ", modes));
    Workloads workloads = new Workloads(bulkRows, transfers);
    // -Dbench.floor.rate=N: after the legs, Connect's own cost in each mode's wire shape at N
    // transactions a second
    Integer floorRate = Integer.getInteger("bench.floor.rate");
    List<String> shapes =
        modes.stream()
            .map(m -> m.contains("@") ? m.substring(0, m.indexOf('@')) : m)
            .filter(TrellaraLeg.MODES::contains)
            .distinct()
            .toList();
    List<LegResult> results =
        onPlatform(
            modes,
            false,
            workloads::run,
            platform -> {},
            floorRate == null
                ? platform -> {}
                : platform -> ConnectFloor.measure(platform, shapes, transfers, floorRate));
    Report.print(results, bulkRows, transfers);
  }

  private static void latency(String[] args) throws Exception {
    int transactions = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    List<String> modes = modes(args.length > 2 ? args[2] : "strict");
    int idleSeconds = args.length > 3 ? Integer.parseInt(args[3]) : 30;
    long paceMillis = args.length > 4 ? Long.parseLong(args[4]) : 20;
    System.out.println("latency legs: " + String.join(", ", modes) + " (at defaults)");
    PacedLatency workload = new PacedLatency(transactions, paceMillis, idleSeconds);
    // Kafka's own floor at its defaults, before the legs (a fresh broker) and after them (a warm
    // one)
    PlatformStep floor =
        platform -> KafkaFloor.measure(platform.broker(), transactions, paceMillis);
    List<PacedLatency.Result> results = onPlatform(modes, true, workload::run, floor, floor);
    PacedLatency.print(results);
  }

  /** One leg's workload. */
  private interface LegRun<R> {
    R run(Leg leg) throws Exception;
  }

  /** Something measured on the platform itself, before the first leg or after the last. */
  private interface PlatformStep {
    void run(Platform platform) throws Exception;
  }

  /**
   * Starts the platform (two durable PostgreSQL servers, the broker and a worker), runs {@code run}
   * on each leg in turn on fresh databases of its own, and stops everything.
   */
  private static <R> List<R> onPlatform(
      List<String> modes,
      boolean atDefaults,
      LegRun<R> run,
      PlatformStep beforeLegs,
      PlatformStep afterLegs)
      throws Exception {
    List<R> results = new ArrayList<>();
    long t0 = System.nanoTime();
    try (PostgresServer sourcePg =
            PostgresServer.builder().name("bench-source").durable().build().start();
        PostgresServer targetPg =
            PostgresServer.builder().name("bench-target").durable().build().start();
        KafkaBroker broker = KafkaBroker.builder().build()) {
      broker.start();
      WorkerRun worker = WorkerRun.start(broker, modes.contains(DebeziumLeg.MODE));
      try {
        System.out.printf(
            "platform up in %.1f s (Connect worker %s)%n",
            (System.nanoTime() - t0) / 1e9, worker.where());
        Platform platform =
            new Platform(
                sourcePg, targetPg, broker, worker.rest(), worker::cpuNanos, worker.threads());
        String warmupLeg = System.getProperty("bench.warmup.leg");
        if (warmupLeg != null) { // the broker's and the worker's JIT, before anything is measured
          try (Leg leg = leg(warmupLeg, platform, atDefaults)) {
            leg.start();
            System.out.printf("warm-up leg (%s), not measured:%n", warmupLeg);
            run.run(leg);
          }
        }
        beforeLegs.run(platform);
        for (String mode : modes) {
          try (Leg leg = leg(mode, platform, atDefaults)) {
            leg.start();
            results.add(run.run(leg));
          }
        }
        afterLegs.run(platform);
      } finally {
        worker.stop();
      }
    }
    return results;
  }

  private static Leg leg(String mode, Platform platform, boolean atDefaults) {
    return switch (mode) {
      case "native" -> new NativeReplicationLeg(platform);
      case DebeziumLeg.MODE -> new DebeziumLeg(platform);
      default -> new TrellaraLeg(mode, platform, atDefaults);
    };
  }

  /**
   * Native first, always: every other leg is reported as a ratio to it (and to Debezium's when it
   * runs).
   */
  static List<String> modes(String argument) {
    Set<String> modes = new LinkedHashSet<>();
    modes.add("native");
    List<String> asked = new java.util.ArrayList<>();
    if (argument.equals("all")) {
      asked.addAll(TrellaraLeg.MODES);
      asked.add(DebeziumLeg.MODE);
    } else {
      asked.addAll(List.of(argument.split(",")));
    }
    for (String mode : asked) {
      String m = mode.trim();
      String base = m.contains("@") ? m.substring(0, m.indexOf('@')) : m;
      if (!m.equals("native") && !m.equals(DebeziumLeg.MODE) && !TrellaraLeg.MODES.contains(base)) {
        throw new IllegalArgumentException(
            "unknown leg "
                + m
                + ": use all, native, "
                + DebeziumLeg.MODE
                + " or one of "
                + TrellaraLeg.MODES);
      }
      if (m.equals("partitioned")) { // one leg per sink task count (bench.partitioned.sinkTasks)
        TrellaraLeg.partitionedSinkTasks().forEach(n -> modes.add("partitioned@" + n));
      } else {
        modes.add(m);
      }
    }
    return List.copyOf(modes);
  }
}
