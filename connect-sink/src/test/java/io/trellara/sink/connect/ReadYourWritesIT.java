package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.awaitEqual;
import static io.trellara.sink.connect.Pipelines.deploySink;
import static io.trellara.sink.connect.Pipelines.deploySource;
import static io.trellara.sink.connect.Pipelines.schema;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Read-your-writes under a transfer workload (W1: 2 updates and 2 inserts per transaction): a
 * service commits a transfer on the source, takes {@code pg_current_wal_lsn()}, calls {@code
 * trellara.wait_for_lsn} on the target and reads its own writes there. Writers keep the W1 load on
 * while one service thread samples; prints p50 and p99 of commit → wait_for_lsn true (measured,
 * never asserted) and asserts every read after a true return saw the transaction's writes.
 */
@EitherPlatform
class ReadYourWritesIT {
  private static final int ACCOUNTS = 1000;
  private static final int WRITERS = 3;
  private static final int SAMPLES = Integer.getInteger("ryw.samples", 200);

  /**
   * Each writer's pace: 3 × 100 transfers a second. Unpaced, three writers outrun the sink on a
   * shared 2-core machine and the figure would be the growing lag, not read-your-writes.
   */
  private static final long WRITER_PERIOD_NANOS =
      TimeUnit.MILLISECONDS.toNanos(Long.getLong("ryw.writer.period.ms", 10));

  /** One W1 transfer's writes: the two accounts' versions after it, and its two history rows. */
  private record Transfer(int from, int to, long fromVersion, long toVersion, long h1, long h2) {}

  @Test
  void aServiceReadsItsOwnTransferOnTheTargetOnceWaitForLsnReturnsTrue() throws Exception {
    try (TestScope scope = STACK.newScope("ryw")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(
          src,
          dst,
          "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL, version bigint NOT NULL)",
          "CREATE TABLE history (id bigint PRIMARY KEY, account int NOT NULL, delta bigint NOT NULL)",
          "INSERT INTO account SELECT g, 1000000, 0 FROM generate_series(1, " + ACCOUNTS + ") g");
      src.execute("CREATE SEQUENCE history_id");
      String strict = scope.createTopic("strict", 1);
      deploySource(
          scope, src, strict, "public.account,public.history", Map.of("snapshot.mode", "never"));
      deploySink(scope, "sink", dst, strict, Map.of());

      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong transfers = new AtomicLong();
      ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        long seed = w;
        writers.add(
            pool.submit(
                () -> {
                  try (Connection c = src.connect()) {
                    SplittableRandom r = new SplittableRandom(seed);
                    long next = System.nanoTime();
                    while (!stop.get()) {
                      transfer(c, r);
                      transfers.incrementAndGet();
                      next += WRITER_PERIOD_NANOS;
                      // paces the writer to a rate the pipeline follows; waits for nothing
                      LockSupport.parkNanos(next - System.nanoTime());
                    }
                  }
                  return null;
                }));
      }
      List<Long> micros = new ArrayList<>();
      List<String> unread = new ArrayList<>();
      long started = System.nanoTime();
      try (Connection service = src.connect();
          Connection reader = dst.connect();
          PreparedStatement lsn = service.prepareStatement("SELECT pg_current_wal_lsn()::text");
          PreparedStatement wait =
              reader.prepareStatement("SELECT trellara.wait_for_lsn(?::pg_lsn, '30 seconds')")) {
        SplittableRandom r = new SplittableRandom(42);
        for (int i = 0; i < SAMPLES; i++) {
          Transfer t = transfer(service, r);
          long committed = System.nanoTime();
          String at = one(lsn);
          wait.setString(1, at);
          boolean applied = "t".equals(one(wait));
          micros.add(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - committed));
          if (!applied) {
            unread.add("wait_for_lsn(" + at + ") returned false at its 30 s timeout");
          } else if (!sees(reader, t)) {
            unread.add("after wait_for_lsn(" + at + ") the target lacks " + t);
          }
        }
      } finally {
        stop.set(true);
        for (Future<?> f : writers) {
          f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      awaitEqual(src, dst, "account", "id");
      awaitEqual(src, dst, "history", "id");
      Collections.sort(micros);
      System.out.printf(
          java.util.Locale.ROOT,
          "read-your-writes: %d samples under W1 (%d writers, %d transfers in %.1f s):"
              + " source commit -> wait_for_lsn true p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
          micros.size(),
          WRITERS,
          transfers.get() + SAMPLES,
          seconds,
          percentile(micros, 0.50) / 1000.0,
          percentile(micros, 0.99) / 1000.0,
          micros.get(micros.size() - 1) / 1000.0);
      assertThat(unread).as("reads right after wait_for_lsn returned true").isEmpty();
      assertThat(micros).hasSize(SAMPLES);
    }
  }

  /** W1: move an amount between two accounts, one history row each; in one transaction. */
  private static Transfer transfer(Connection c, SplittableRandom r) throws SQLException {
    int from = 1 + r.nextInt(ACCOUNTS);
    int to = 1 + (from + r.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
    long amount = 1 + r.nextInt(100);
    c.setAutoCommit(false);
    try (PreparedStatement up =
            c.prepareStatement(
                "UPDATE account SET balance = balance + ?, version = version + 1 WHERE id = ?"
                    + " RETURNING version");
        PreparedStatement in =
            c.prepareStatement(
                "INSERT INTO history VALUES (nextval('history_id'), ?, ?) RETURNING id")) {
      long fromVersion = update(up, -amount, from);
      long toVersion = update(up, amount, to);
      long h1 = insert(in, from, -amount);
      long h2 = insert(in, to, amount);
      c.commit();
      return new Transfer(from, to, fromVersion, toVersion, h1, h2);
    } catch (SQLException e) {
      c.rollback();
      if ("40P01".equals(e.getSQLState())) { // two transfers locked the same pair crosswise
        return transfer(c, r);
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private static long update(PreparedStatement up, long delta, int id) throws SQLException {
    up.setLong(1, delta);
    up.setInt(2, id);
    return Long.parseLong(one(up));
  }

  private static long insert(PreparedStatement in, int account, long delta) throws SQLException {
    in.setInt(1, account);
    in.setLong(2, delta);
    return Long.parseLong(one(in));
  }

  /** The transfer's two history rows, and both accounts at its version or later. */
  private static boolean sees(Connection target, Transfer t) throws SQLException {
    try (PreparedStatement ps =
        target.prepareStatement(
            "SELECT (SELECT count(*) FROM history WHERE id IN (?, ?)) = 2"
                + " AND (SELECT version FROM account WHERE id = ?) >= ?"
                + " AND (SELECT version FROM account WHERE id = ?) >= ?")) {
      ps.setLong(1, t.h1());
      ps.setLong(2, t.h2());
      ps.setInt(3, t.from());
      ps.setLong(4, t.fromVersion());
      ps.setInt(5, t.to());
      ps.setLong(6, t.toVersion());
      return "t".equals(one(ps));
    }
  }

  private static String one(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static long percentile(List<Long> sorted, double p) {
    return sorted.get(Math.max(0, (int) Math.ceil(p * sorted.size()) - 1));
  }
}
