package io.trellara.benchmarks.e2e;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The latency workload: single-row transactions paced apart, each timed from its COMMIT returning
 * on the source (the source has flushed it, so no pipeline can see it earlier) to the row being
 * visible on the target. One open connection to the target looks for the row every {@value
 * #LOOK_MICROS} µs from the COMMIT on (an index lookup of about 0.1 ms: the resolution is well
 * under a millisecond); between transactions nothing polls, so the looks take little CPU from the
 * pipeline they measure, the same for every leg.
 *
 * <p>Before the transactions, the leg's idle cost: the JVM's CPU time (the broker, the Connect
 * worker and, for the Trellara legs, both connectors; native replication runs in the PostgreSQL
 * servers, so its leg shows what the broker and the worker cost alone) over {@code idleSeconds}
 * without traffic, and the busiest threads.
 */
final class PacedLatency {
  private static final long GIVE_UP_NANOS = TimeUnit.MINUTES.toNanos(5);

  /**
   * Transactions at the same pace before the measured ones, unmeasured ({@code
   * -Dbench.latency.warmup}, default none): a worker that has run for a while has compiled its hot
   * paths; a fresh one is still compiling them.
   */
  private static final int WARMUP = Integer.getInteger("bench.latency.warmup", 0);

  static final long LOOK_MICROS = 200;

  /**
   * Transactions a second committed meanwhile by a second client ({@code
   * -Dbench.latency.background}, default none): the measured ones then see a pipeline under that
   * load, each a single-row insert like them, evenly paced.
   */
  private static final int BACKGROUND = Integer.getInteger("bench.latency.background", 0);

  /** One leg's figures in milliseconds, and its idle CPU in CPU-milliseconds per second. */
  record Result(
      String mode,
      int samples,
      double p50,
      double p95,
      double p99,
      double max,
      double idleCpuMsPerS) {}

  private final int transactions;
  private final long paceNanos;
  private final int idleSeconds;

  PacedLatency(int transactions, long paceMillis, int idleSeconds) {
    this.transactions = transactions;
    this.paceNanos = TimeUnit.MILLISECONDS.toNanos(paceMillis);
    this.idleSeconds = idleSeconds;
  }

  Result run(Leg leg) throws Exception {
    try (Connection source = leg.source().connect();
        Probe target = new Probe(leg.target())) {
      long warm = insert(source);
      await(leg, target, warm);
      for (int i = 0; i < WARMUP; i++) {
        LockSupport.parkNanos(paceNanos);
        warm = insert(source);
      }
      await(leg, target, warm);
      double idle = idleCpu(leg);
      KafkaArrivals kafka =
          leg.strictTopic() == null
              ? null
              : new KafkaArrivals(leg.bootstrapServers(), leg.strictTopic());
      Thread.sleep(1000); // the probe's consumer is fetching
      List<Double> ms = new ArrayList<>(transactions);
      List<Long> commits = new ArrayList<>(transactions);
      Background background = BACKGROUND > 0 ? Background.start(leg, BACKGROUND) : null;
      long next = System.nanoTime();
      for (int i = 0; i < transactions; i++) {
        LockSupport.parkNanos(next - System.nanoTime());
        next += paceNanos;
        long id = insert(source);
        long committed = System.nanoTime();
        commits.add(committed);
        ms.add((look(leg, target, id) - committed) / 1e6);
      }
      String load = background == null ? "" : background.stop();
      if (kafka != null) {
        Thread.sleep(500);
        kafka.close();
        printKafka(leg, commits, kafka.arrivals());
      }
      printSlowest(leg, ms);
      Collections.sort(ms);
      int n = ms.size();
      Result r =
          new Result(
              leg.mode(),
              n,
              ms.get(n / 2),
              ms.get(n * 95 / 100),
              ms.get(n * 99 / 100),
              ms.get(n - 1),
              idle);
      System.out.printf(
          Locale.ROOT,
          "[%s] latency: %d single-row transactions %d ms apart, COMMIT → visible"
              + " p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms%s (load average %s)%n",
          leg.mode(),
          n,
          TimeUnit.NANOSECONDS.toMillis(paceNanos),
          r.p50(),
          r.p95(),
          r.p99(),
          r.max(),
          load,
          loadAverage());
      return r;
    }
  }

  /**
   * The three slowest transactions by their place in the run (is it the first after the idle
   * window?).
   */
  private static void printSlowest(Leg leg, List<Double> ms) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < ms.size(); i++) {
      order.add(i);
    }
    order.sort((a, b) -> Double.compare(ms.get(b), ms.get(a)));
    StringBuilder b = new StringBuilder();
    for (int i : order.subList(0, Math.min(3, order.size()))) {
      b.append(String.format(Locale.ROOT, " #%d %.1f ms", i, ms.get(i)));
    }
    System.out.printf("[%s]   slowest:%s%n", leg.mode(), b);
  }

  private static void printKafka(Leg leg, List<Long> commits, List<Long> arrivals) {
    if (arrivals.size() != commits.size()) {
      System.out.printf(
          "[%s] the Kafka probe saw %d records for %d transactions: not split%n",
          leg.mode(), arrivals.size(), commits.size());
      return;
    }
    List<Double> ms = new ArrayList<>();
    for (int i = 0; i < commits.size(); i++) {
      ms.add((arrivals.get(i) - commits.get(i)) / 1e6);
    }
    Collections.sort(ms);
    int n = ms.size();
    System.out.printf(
        Locale.ROOT,
        "[%s]   of which COMMIT → a consumer of the topic has it: p50 %.1f ms, p95 %.1f"
            + " ms, p99 %.1f ms, max %.1f ms%n",
        leg.mode(),
        ms.get(n / 2),
        ms.get(n * 95 / 100),
        ms.get(n * 99 / 100),
        ms.get(n - 1));
  }

  /** The second client: single-row transactions at a fixed rate until stopped. */
  private static final class Background implements Runnable {
    private final Connection source;
    private final long paceNanos;
    private final Thread thread;
    private volatile boolean stop;
    private long committed;
    private long startNanos;
    private long endNanos;
    private Exception failure;

    private Background(Connection source, int perSecond) {
      this.source = source;
      this.paceNanos = 1_000_000_000L / perSecond;
      this.thread = new Thread(this, "latency-background");
    }

    static Background start(Leg leg, int perSecond) throws Exception {
      Background b = new Background(leg.source().connect(), perSecond);
      b.thread.start();
      return b;
    }

    @Override
    public void run() {
      startNanos = System.nanoTime();
      long next = startNanos;
      try (Statement st = source.createStatement()) {
        while (!stop) {
          LockSupport.parkNanos(next - System.nanoTime());
          next += paceNanos;
          st.execute("INSERT INTO transfer (src, dst, amount) VALUES (2, 1, 0)");
          committed++;
        }
      } catch (Exception e) {
        failure = e;
      }
      endNanos = System.nanoTime();
    }

    /** Stops it; what it achieved, for the report. */
    String stop() throws Exception {
      stop = true;
      thread.join(TimeUnit.SECONDS.toMillis(30));
      source.close();
      if (failure != null) {
        throw new IllegalStateException("the background client failed", failure);
      }
      return String.format(
          Locale.ROOT, " under %,.0f background tx/s", committed / ((endNanos - startNanos) / 1e9));
    }
  }

  private static long insert(Connection source) throws Exception {
    try (Statement st = source.createStatement();
        ResultSet rs =
            st.executeQuery(
                "INSERT INTO transfer (src, dst, amount) VALUES (1, 2, 0) RETURNING id")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void await(Leg leg, Probe target, long id) throws Exception {
    long deadline = System.nanoTime() + GIVE_UP_NANOS;
    while (!target.has("transfer", id)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "[" + leg.mode() + "] transfer " + id + " never reached the target");
      }
      Thread.sleep(5);
    }
  }

  /**
   * Looks for the row every {@link #LOOK_MICROS} µs; returns System.nanoTime() when it is visible.
   */
  private static long look(Leg leg, Probe target, long id) throws Exception {
    long deadline = System.nanoTime() + GIVE_UP_NANOS;
    while (!target.has("transfer", id)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "[" + leg.mode() + "] transfer " + id + " never reached the target");
      }
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(LOOK_MICROS));
    }
    return System.nanoTime();
  }

  /** CPU-ms per second of this JVM over the idle window; prints the busiest threads. */
  private double idleCpu(Leg leg) throws InterruptedException {
    if (idleSeconds <= 0) {
      return Double.NaN;
    }
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    var threads = ManagementFactory.getThreadMXBean();
    Thread.sleep(2000); // the warm-up's own work settles
    Map<Long, Long> before = new HashMap<>();
    for (long id : threads.getAllThreadIds()) {
      before.put(id, threads.getThreadCpuTime(id));
    }
    long cpu0 = os.getProcessCpuTime();
    long worker0 = leg.workerCpuNanos();
    long t0 = System.nanoTime();
    Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpuMs = (os.getProcessCpuTime() - cpu0) / 1e6;
    String worker = "";
    if (worker0
        >= 0) { // the worker runs in a JVM of its own: its CPU is the idle cost of the connectors
      double workerMs = (leg.workerCpuNanos() - worker0) / 1e6;
      cpuMs += workerMs;
      worker =
          String.format(
              Locale.ROOT, "; of it the worker's own JVM %.1f CPU-ms/s", workerMs / seconds);
    }
    List<String> busiest = new ArrayList<>();
    List<long[]> used = new ArrayList<>();
    for (long id : threads.getAllThreadIds()) {
      long now = threads.getThreadCpuTime(id);
      Long was = before.get(id);
      if (now > 0 && was != null && now - was > 0) {
        used.add(new long[] {id, now - was});
      }
    }
    used.sort((a, b) -> Long.compare(b[1], a[1]));
    for (long[] u : used.subList(0, Math.min(8, used.size()))) {
      var info = threads.getThreadInfo(u[0]);
      busiest.add(
          String.format(
              Locale.ROOT,
              "%s %.1f",
              info == null ? "?" : info.getThreadName(),
              u[1] / 1e6 / seconds));
    }
    double perSecond = cpuMs / seconds;
    System.out.printf(
        Locale.ROOT,
        "[%s] idle %.0f s: JVM (broker + worker%s) %.1f CPU-ms/s%s (load average %s);"
            + " busiest threads of this JVM, CPU-ms/s: %s%n",
        leg.mode(),
        seconds,
        leg.mode().equals("native") ? "" : " + connectors",
        perSecond,
        worker,
        loadAverage(),
        String.join(", ", busiest));
    return perSecond;
  }

  static String loadAverage() {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      return "?";
    }
  }

  static void print(List<Result> results) {
    System.out.println();
    System.out.println(
        "| mode | samples | p50 ms | p95 ms | p99 ms | max ms | idle JVM CPU-ms/s |");
    System.out.println("|---|---|---|---|---|---|---|");
    for (Result r : results) {
      System.out.printf(
          Locale.ROOT,
          "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f |%n",
          r.mode(),
          r.samples(),
          r.p50(),
          r.p95(),
          r.p99(),
          r.max(),
          r.idleCpuMsPerS());
    }
    System.out.println("load average at the end: " + loadAverage());
  }
}
