package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The workloads every leg runs, in this order, watched the same way whatever carries the rows: by
 * reading the target tables over one open connection ({@link Probe}), never through a pipeline's
 * own bookkeeping. Both pipelines make a transaction visible all at once, so its last row being
 * visible means all of it is.
 */
final class Workloads {
  private static final String[] SCHEMA = {
    "CREATE TABLE bulk (id bigint PRIMARY KEY, a int, b text, c numeric(12,2), d timestamptz)",
    "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL)",
    "CREATE TABLE transfer (id bigserial PRIMARY KEY, src int, dst int, amount int)",
    "INSERT INTO account SELECT g, 1000000 FROM generate_series(1, 1000) g"
  };
  static final String TABLES = "public.bulk,public.account,public.transfer";
  private static final int WARM_ROWS = 1000;
  private static final int LATENCY_SAMPLES = 200;

  /** Cheap enough to poll: the transfer count and every account balance, read in one snapshot. */
  private static final String TRANSFER_FINGERPRINT =
      "SELECT (SELECT count(*) FROM transfer) || ' transfers, "
          + "accounts md5 ' || (SELECT md5(string_agg(t::text, ',' ORDER BY id)) FROM account t)";

  private static final long GIVE_UP_NANOS = TimeUnit.MINUTES.toNanos(20);

  private final int bulkRows;
  private final int transfers;

  /**
   * Transfers run before the measured ones, unmeasured ({@code -Dbench.warmup.transfers}, default
   * none).
   */
  private static final int WARMUP_TRANSFERS = Integer.getInteger("bench.warmup.transfers", 0);

  Workloads(int bulkRows, int transfers) {
    this.bulkRows = bulkRows;
    this.transfers = transfers;
  }

  /** The same tables (and the same 1,000 seeded accounts) on source and target: no initial copy. */
  static void createTables(PostgresDatabase db) {
    db.execute(SCHEMA);
  }

  LegResult run(Leg leg) throws Exception {
    try (Connection source = leg.source().connect();
        Probe sourceProbe = new Probe(leg.source());
        Probe target = new Probe(leg.target())) {
      warmUp(leg, source, target);
      Bulk bulk = bulk(leg, source, sourceProbe, target);
      Latency latency = latency(leg, source, target);
      if (WARMUP_TRANSFERS
          > 0) { // not measured: the JIT compiles the hot paths, as in a worker that ran a while
        transfers(leg, source, sourceProbe, target, WARMUP_TRANSFERS, "warm-up transfers");
      }
      Transfers transfer = transfers(leg, source, sourceProbe, target, transfers, "transfers");
      return new LegResult(
          leg.mode(),
          bulk.startToEqual(),
          bulk.commitToApplied(),
          transfer.converged(),
          transfer.onSource(),
          latency.p50Millis(),
          latency.p99Millis(),
          transfer.cpuMillis(),
          transfer.workerCpuMillis(),
          transfer.workerJitMillis());
    }
  }

  /** A first small transaction end to end: every connection, cache and worker on the way is up. */
  private static void warmUp(Leg leg, Connection source, Probe target) throws Exception {
    try (Statement st = source.createStatement()) {
      st.execute(
          "INSERT INTO bulk SELECT -g, g, 'warm', g, now() FROM generate_series(1, "
              + WARM_ROWS
              + ") g");
    }
    long start = System.nanoTime();
    await(leg, "the warm-up rows", () -> target.has("bulk", -WARM_ROWS), Leg.Stages.NONE, 2);
    System.out.printf(
        "[%s] warm-up transaction applied %.2f s after its commit%n",
        leg.mode(), (System.nanoTime() - start) / 1e9);
  }

  private record Bulk(double startToEqual, double commitToApplied) {}

  private record Latency(double p50Millis, double p99Millis) {}

  private record Transfers(
      double converged,
      double onSource,
      double cpuMillis,
      double workerCpuMillis,
      double workerJitMillis) {}

  /** One transaction of {@code bulkRows} inserts, timed from its start and from its COMMIT. */
  private Bulk bulk(Leg leg, Connection source, Probe sourceProbe, Probe target) throws Exception {
    Leg.Stages stages = leg.stages();
    stages.sample();
    long start = System.nanoTime();
    source.setAutoCommit(false);
    try (Statement st = source.createStatement()) {
      st.execute(
          "INSERT INTO bulk SELECT g, g % 1000, md5(g::text), g * 0.01, now() FROM generate_series(1, "
              + bulkRows
              + ") g");
      source.commit();
    } finally {
      source.setAutoCommit(true);
    }
    long committed = System.nanoTime();
    long applied =
        await(leg, "the bulk transaction", () -> target.has("bulk", bulkRows), stages, 2);
    long equal =
        await(
            leg,
            "every bulk row",
            () -> target.number("SELECT count(*) FROM bulk WHERE id > 0") == bulkRows,
            stages,
            2);
    stages.print(committed);
    verifyEqual(leg, "bulk", sourceProbe, target);
    double commitToApplied = (applied - committed) / 1e9;
    double startToEqual = (equal - start) / 1e9;
    System.out.printf(
        "[%s] bulk: %,d-row transaction, INSERT %.2f s on the source; COMMIT → applied %.2f s"
            + " (%,.0f rows/s); start → target equal %.2f s%n",
        leg.mode(),
        bulkRows,
        (committed - start) / 1e9,
        commitToApplied,
        bulkRows / commitToApplied,
        startToEqual);
    return new Bulk(startToEqual, commitToApplied);
  }

  /**
   * Paced single-row transactions, each timed from its COMMIT returning to visible on the target.
   */
  private static Latency latency(Leg leg, Connection source, Probe target) throws Exception {
    List<Double> ms = new ArrayList<>();
    try (Statement st = source.createStatement()) {
      for (int i = 0; i < LATENCY_SAMPLES; i++) {
        long id;
        try (ResultSet rs =
            st.executeQuery(
                "INSERT INTO transfer (src, dst, amount) VALUES (1, 2, 0)" + " RETURNING id")) {
          rs.next();
          id = rs.getLong(1);
        }
        long committed = System.nanoTime();
        long visible =
            await(leg, "transfer " + id, () -> target.has("transfer", id), Leg.Stages.NONE, 0);
        ms.add((visible - committed) / 1e6);
      }
    }
    Collections.sort(ms);
    int n = ms.size();
    System.out.printf(
        "[%s] latency: %d single-row transactions, COMMIT → visible p50 %.1f ms, p90 %.1f ms,"
            + " p99 %.1f ms, max %.1f ms%n",
        leg.mode(), n, ms.get(n / 2), ms.get(n * 9 / 10), ms.get(n * 99 / 100), ms.get(n - 1));
    return new Latency(ms.get(n / 2), ms.get(n * 99 / 100));
  }

  /**
   * The PLATFORM.md transfer workload: transactions of 2 updates + 2 inserts, as fast as one client
   * can, timed on the source and until the target equals the source.
   */
  private static Transfers transfers(
      Leg leg, Connection source, Probe sourceProbe, Probe target, int transfers, String what)
      throws Exception {
    Random r = new Random(what.startsWith("warm") ? 2 : 1); // the measured ones as before
    var os =
        (com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
    WorkerThreads threads = leg.workerThreads();
    Map<String, Double> threads0 = threads == null ? Map.of() : threads.cpuMillis();
    long cpu0 = os.getProcessCpuTime();
    long worker0 = leg.workerCpuNanos();
    long jit0 = jit.getTotalCompilationTime();
    long start = System.nanoTime();
    source.setAutoCommit(false);
    try (Statement st = source.createStatement()) {
      for (int i = 0; i < transfers; i++) {
        int a = 1 + r.nextInt(1000);
        int b = 1 + r.nextInt(1000);
        st.execute("UPDATE account SET balance = balance - 5 WHERE id = " + a);
        st.execute("UPDATE account SET balance = balance + 5 WHERE id = " + b);
        st.execute("INSERT INTO transfer (src, dst, amount) VALUES (" + a + ", " + b + ", 5)");
        st.execute("INSERT INTO transfer (src, dst, amount) VALUES (" + b + ", " + a + ", 0)");
        source.commit();
      }
    } finally {
      source.setAutoCommit(true);
    }
    long sourceDone = System.nanoTime();
    String expected = sourceProbe.text(TRANSFER_FINGERPRINT); // the source no longer changes
    long converged =
        await(
            leg,
            "the transfers",
            () -> expected.equals(target.text(TRANSFER_FINGERPRINT)),
            Leg.Stages.NONE,
            5);
    double cpuMillis = (os.getProcessCpuTime() - cpu0) / 1e6;
    double workerCpuMillis = worker0 < 0 ? -1 : (leg.workerCpuNanos() - worker0) / 1e6;
    double jitSeconds = (jit.getTotalCompilationTime() - jit0) / 1e3;
    Map<String, Double> threads1 = threads == null ? Map.of() : threads.cpuMillis();
    Map<String, Double> used =
        threads0.isEmpty() || threads1.isEmpty()
            ? Map.of()
            : WorkerThreads.byRole(threads0, threads1);
    String byThread = WorkerThreads.perTransaction(used, transfers);
    double workerJitMillis = used.isEmpty() ? -1 : used.get(WorkerThreads.JIT);
    verifyEqual(leg, "account", sourceProbe, target);
    verifyEqual(leg, "transfer", sourceProbe, target);
    double sourceSeconds = (sourceDone - start) / 1e9;
    double total = (converged - start) / 1e9;
    System.out.printf(
        "[%s] %s: %,d transactions (4 rows each) committed in %.1f s (%,.0f tx/s); target"
            + " equal %.1f s after the first began (%,.0f tx/s end to end), %.2f s after the last commit; this"
            + " JVM used %,.0f CPU-ms meanwhile, its JIT compiled for %.1f s%s%n",
        leg.mode(),
        what,
        transfers,
        sourceSeconds,
        transfers / sourceSeconds,
        total,
        transfers / total,
        (converged - sourceDone) / 1e9,
        cpuMillis,
        jitSeconds,
        workerCpuMillis < 0
            ? ""
            : String.format("; the worker's JVM used %,.0f CPU-ms", workerCpuMillis));
    if (!byThread.isEmpty()) {
      System.out.printf("[%s] %s: the worker's threads, %s%n", leg.mode(), what, byThread);
    }
    return new Transfers(total, sourceSeconds, cpuMillis, workerCpuMillis, workerJitMillis);
  }

  /**
   * A full comparison once the target looks caught up: a pipeline that lost or changed a row fails
   * the run.
   */
  private static void verifyEqual(Leg leg, String table, Probe source, Probe target)
      throws Exception {
    String expected = source.digest(table);
    String actual = target.digest(table);
    if (!expected.equals(actual)) {
      throw new IllegalStateException(
          "["
              + leg.mode()
              + "] target "
              + table
              + " differs from the source: "
              + actual
              + " against "
              + expected);
    }
  }

  /**
   * Polls until the check holds, sampling the stages between polls; returns System.nanoTime() then.
   */
  private static long await(Leg leg, String what, Check check, Leg.Stages stages, long pauseMillis)
      throws Exception {
    long deadline = System.nanoTime() + GIVE_UP_NANOS;
    while (!check.holds()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "[" + leg.mode() + "] " + what + " never reached the target");
      }
      stages.sample();
      if (pauseMillis > 0) {
        Thread.sleep(pauseMillis);
      } else {
        LockSupport.parkNanos(100_000); // single-row latency: a finer look than a millisecond
      }
    }
    return System.nanoTime();
  }

  @FunctionalInterface
  private interface Check {
    boolean holds() throws Exception;
  }
}
