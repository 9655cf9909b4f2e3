package io.trellara.benchmarks.e2e.resnap;

import io.trellara.benchmarks.e2e.WorkerRun;
import io.trellara.benchmarks.e2e.WorkerThreads;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

/**
 * Issue 30's benchmark: a large table loaded again into a target while W1 streams into it, the
 * Trellara way (a {@code snapshot} signal: an online snapshot) and the native way ({@code ALTER
 * SUBSCRIPTION ... REFRESH PUBLICATION WITH (copy_data = true)}) between the same two durable
 * PostgreSQL 17 servers, one leg after the other, with a broker and a Connect worker. Each leg: W1
 * at a steady rate; once its first transaction is on the target, {@link TargetWatch} starts and
 * {@value #BASELINE_PROPERTY} seconds of baseline are watched; then the load is asked for and timed
 * until complete on the target, and watched until W1's lag is back under 1 s and a few seconds
 * more; W1 stops, the target must equal the source (W1's tables by digest, the big table by count
 * and sums) or the run fails. Prints each leg's figures and a summary table (docs/benchmarks.md,
 * "Online re-snapshot under W1").
 *
 * <p>Not a test: run by hand (docs/benchmarks.md has the class path recipe): {@code java -cp ...
 * -Dbench.worker=process io.trellara.benchmarks.e2e.resnap.ResnapshotBenchmark 10000000 200
 * native,trellara}: rows of the big table, W1 transactions a second (0: as fast as one client can),
 * legs. {@code -Dbench.resnap.sampleMillis} (200) paces the lag samples, {@code
 * -Dbench.resnap.countPauseMillis} (1000) the counting reader; {@code -Dbench.source.extra=k=v,...}
 * and {@code -Dbench.sink.extra=k=v,...} add settings to the Trellara leg's connectors.
 */
public final class ResnapshotBenchmark {
  static final String BIG =
      "CREATE TABLE big (id bigint PRIMARY KEY, account int NOT NULL, note text,"
          + " at timestamptz NOT NULL, amount numeric(12,2))";
  private static final String BASELINE_PROPERTY = "bench.resnap.baselineSeconds";
  private static final long BASELINE_SECONDS = Long.getLong(BASELINE_PROPERTY, 10);
  private static final long SAMPLE_MILLIS = Long.getLong("bench.resnap.sampleMillis", 200);
  private static final long COUNT_PAUSE_MILLIS =
      Long.getLong("bench.resnap.countPauseMillis", 1000);

  /** Rows of the big table deleted on Trellara's target first: its load is seen to land. */
  private static final long DAMAGE = 1000;

  /** Seconds watched after W1's lag is back under 1 s. */
  private static final long AFTER_SECONDS = 5;

  private static final long SECOND = 1_000_000_000L;
  private static final long GIVE_UP = TimeUnit.MINUTES.toNanos(60);

  private final long rows;
  private final int rate;

  private ResnapshotBenchmark(long rows, int rate) {
    this.rows = rows;
    this.rate = rate;
  }

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
    int rate = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    List<String> legs = List.of((args.length > 2 ? args[2] : "native,trellara").split(","));
    new ResnapshotBenchmark(rows, rate).run(legs);
  }

  private void run(List<String> legs) throws Exception {
    System.out.printf(
        Locale.ROOT,
        "re-snapshot of %,d rows under W1 at %s; load average %s%n",
        rows,
        rate == 0 ? "full speed" : rate + " tx/s",
        loadAverage());
    long t0 = System.nanoTime();
    List<ResnapResult> results = new ArrayList<>();
    try (PostgresServer sourcePg =
            PostgresServer.builder().name("resnap-source").durable().build().start();
        PostgresServer targetPg =
            PostgresServer.builder().name("resnap-target").durable().build().start();
        KafkaBroker broker = KafkaBroker.builder().build()) {
      broker.start();
      WorkerRun worker = WorkerRun.start(broker, false);
      try {
        PostgresDatabase source = sourcePg.createDatabase("resnap");
        seed(source, rows);
        System.out.printf(
            Locale.ROOT,
            "platform up and %,d rows (%,d MB) seeded in %.1f s (Connect worker %s)%n",
            rows,
            source.queryLong("SELECT pg_table_size('big')") >> 20,
            (System.nanoTime() - t0) / 1e9,
            worker.where());
        for (String name : legs) {
          try (ResnapLeg leg =
              switch (name.trim()) {
                case "native" -> new NativeResnapLeg(source, targetPg, rows);
                case "trellara" ->
                    new TrellaraResnapLeg(source, targetPg, broker, worker, rows, DAMAGE);
                default -> throw new IllegalArgumentException("unknown leg " + name);
              }) {
            ResnapResult r = measure(leg, source, worker);
            System.out.print(r.describe());
            results.add(r);
          }
        }
      } finally {
        worker.stop();
      }
    }
    System.out.print(ResnapResult.summary(results));
    System.out.printf(Locale.ROOT, "load average at the end %s%n", loadAverage());
  }

  private ResnapResult measure(ResnapLeg leg, PostgresDatabase source, WorkerRun worker)
      throws Exception {
    leg.start();
    W1Writer w1 = new W1Writer(source, rate);
    try (w1) {
      w1.start();
      awaitUntil(leg, "W1's first transaction", () -> targetLastTransfer(leg) > 0);
      try (TargetWatch watch =
          new TargetWatch(
              leg.target(), w1.log(), SAMPLE_MILLIS, COUNT_PAUSE_MILLIS, rows, leg.wholeCounts())) {
        watch.start();
        long watched = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(BASELINE_SECONDS));
        WorkerThreads threads = worker.threads();
        Map<String, Double> threads0 = threads == null ? Map.of() : threads.cpuMillis();
        long cpu0 = worker.cpuNanos();
        long signal = System.nanoTime();
        leg.trigger();
        System.out.printf("[%s] load asked for%n", leg.name());
        awaitUntil(
            leg,
            "the load",
            () -> {
              watch.check();
              return leg.loaded();
            });
        long applied = System.nanoTime();
        long cpu1 = worker.cpuNanos();
        Map<String, Double> threads1 = threads == null ? Map.of() : threads.cpuMillis();
        System.out.printf(
            Locale.ROOT, "[%s] load complete after %.1f s%n", leg.name(), (applied - signal) / 1e9);
        awaitUntil(
            leg,
            "W1 back under 1 s of lag",
            () -> watch.lag.firstAtOrBelow(applied, SECOND) != Series.NONE);
        long caughtUp = watch.lag.firstAtOrBelow(applied, SECOND);
        Thread.sleep(TimeUnit.SECONDS.toMillis(AFTER_SECONDS));
        long end = System.nanoTime();
        watch.close();
        watch.check();
        int transfers = w1.stop();
        verify(leg, source, w1.log().lastId());
        return new ResnapResult(
            leg.name(),
            rows,
            (applied - signal) / 1e9,
            cpu0 < 0 ? -1 : (cpu1 - cpu0) / 1e9,
            byRole(threads0, threads1),
            watch.lag.window(watched, signal),
            watch.lag.window(signal, caughtUp),
            (caughtUp - applied) / 1e9,
            watch.pointReads.window(signal, end),
            watch.countReads.window(signal, end),
            watch.partialReads(),
            watch.partialCounts(),
            watch.lockWaiters.window(signal, end),
            transfers,
            leg.details());
      }
    }
  }

  private static String byRole(Map<String, Double> before, Map<String, Double> after) {
    if (before.isEmpty() || after.isEmpty()) {
      return "";
    }
    StringJoiner out = new StringJoiner(", ");
    WorkerThreads.byRole(before, after)
        .forEach((role, ms) -> out.add(String.format(Locale.ROOT, "%s %.1f", role, ms / 1e3)));
    return out.toString();
  }

  private static long targetLastTransfer(ResnapLeg leg) {
    return leg.target().queryLong("SELECT coalesce(max(id), 0) FROM transfer");
  }

  /** W1's tables equal on both sides by digest; the big table by count and sums. */
  private void verify(ResnapLeg leg, PostgresDatabase source, long lastTransfer) throws Exception {
    awaitUntil(leg, "W1's last transaction", () -> targetLastTransfer(leg) >= lastTransfer);
    for (String sql :
        new String[] {
          "SELECT md5(string_agg(t::text, ',' ORDER BY id)) FROM account t",
          "SELECT count(*) || ' ' || md5(string_agg(t::text, ',' ORDER BY id)) FROM transfer t",
          "SELECT count(*) || ' ' || sum(id) || ' ' || sum(account) || ' ' || sum(amount)"
              + " || ' ' || sum(length(note)) FROM big"
        }) {
      String expected = source.queryString(sql);
      String actual = leg.target().queryString(sql);
      if (!expected.equals(actual)) {
        throw new IllegalStateException(
            "[" + leg.name() + "] target differs: " + actual + " against " + expected + ": " + sql);
      }
    }
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private static void awaitUntil(ResnapLeg leg, String what, Check check) throws Exception {
    long deadline = System.nanoTime() + GIVE_UP;
    while (!check.holds()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("[" + leg.name() + "] " + what + ": not within 60 min");
      }
      Thread.sleep(100);
    }
  }

  /** The big table, {@code rows} rows as SnapshotBenchmark's, vacuumed and analysed. */
  static void seed(PostgresDatabase db, long rows) {
    db.execute(BIG);
    db.execute(
        "INSERT INTO big SELECT g, g % 1000, 'note ' || md5(g::text), timestamptz"
            + " '2026-01-01 00:00:00+00' + g * interval '1 second', (g % 100000) / 100.0"
            + " FROM generate_series(1, "
            + rows
            + ") g");
    db.execute("VACUUM ANALYZE big");
  }

  /** W1's tables on the shared source, fresh for each leg. */
  static void recreateW1(PostgresDatabase source) {
    source.execute("DROP TABLE IF EXISTS account, transfer");
    source.execute(W1Writer.SCHEMA);
  }

  /**
   * Settings added to a connector from a system property, {@code key=value} pairs separated by
   * commas (e.g. {@code -Dbench.source.extra=snapshot.key.range.rows=0}).
   */
  static Map<String, String> extra(String property) {
    Map<String, String> out = new HashMap<>();
    for (String pair : System.getProperty(property, "").split(",")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        out.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
      }
    }
    return out;
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }
}
