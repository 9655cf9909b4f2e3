package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Nothing waits without a bound: a target statement that waits for a lock another session holds,
 * and a COPY whose server process stopped taking rows, end in {@code STALLED} within {@code
 * apply.stall.timeout.ms} (2 s here), with the statement cancelled on the server and the sink's
 * transaction rolled back, so the sink holds no lock afterwards. Without the watchdog both wait
 * forever (the preemptive timeouts below).
 */
class WatchdogStallTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  private static final RelationId ACCOUNTS = rel("app", "accounts");
  private static final Duration BOUND = Duration.ofSeconds(2);

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec("CREATE TABLE app.accounts (id int PRIMARY KEY, balance numeric)");
  }

  private static TransactionApplier applier() {
    return new TransactionApplier(
        pg.connections(),
        RelationMapper.identity(),
        ApplyOptions.builder("s").stallTimeout(BOUND).retryJitter(0).build());
  }

  private static SourceTransaction inserts(long lsn, int from, int rows) {
    Tx t = tx(lsn);
    String wide = "9".repeat(200);
    for (int i = from; i < from + rows; i++) {
      t.insert(
          ACCOUNTS, key("id", "integer", Integer.toString(i)), val("balance", "numeric", wide));
    }
    return t.at("t", 0, lsn);
  }

  /** Locks on app.accounts held or awaited by any session but {@code except} and the query's. */
  private static long sinkLocks(int except) {
    return Long.parseLong(
        pg.one(
            "SELECT count(*) FROM pg_locks WHERE relation = 'app.accounts'::regclass"
                + " AND pid <> pg_backend_pid() AND pid <> "
                + except));
  }

  @Test
  void aLockHeldByAnotherSessionEndsInStalledNamingTheHolder() throws Exception {
    try (Connection holder = pg.connections().open();
        TransactionApplier a = applier()) {
      holder.setAutoCommit(false);
      int holderPid;
      try (Statement s = holder.createStatement();
          ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        holderPid = rs.getInt(1);
        s.execute("LOCK TABLE app.accounts IN ACCESS EXCLUSIVE MODE");
      }
      ApplyException e =
          assertTimeoutPreemptively(
              Duration.ofSeconds(60),
              () -> {
                try {
                  a.apply(inserts(0x10, 1, 10));
                  throw new AssertionError("applied through another session's lock");
                } catch (ApplyException stalled) {
                  return stalled;
                }
              });
      assertThat(e.reason()).isEqualTo(ApplyException.Reason.STALLED);
      assertThat(e.getMessage())
          .contains("STALLED", "target statement", "waiting on Lock", Integer.toString(holderPid));
      assertThat(sinkLocks(holderPid)).as("the sink's transaction was rolled back").isZero();
      holder.rollback();
    }
    assertThat(pg.count("app.accounts")).isZero();
  }

  @Test
  void aCopyWhoseServerProcessStoppedEndsInStalledAndReleasesItsLocks() throws Exception {
    try (TransactionApplier a = applier()) {
      CompletableFuture<Object> applying =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return a.apply(inserts(0x10, 1, 200_000));
                } catch (RuntimeException e) {
                  return e;
                }
              });
      String pid = awaitCopy();
      signal("STOP", pid);
      Object outcome;
      try {
        outcome =
            assertTimeoutPreemptively(
                Duration.ofSeconds(60), () -> applying.get(60, TimeUnit.SECONDS));
      } finally {
        signal("CONT", pid);
      }
      assertThat(outcome).isInstanceOf(ApplyException.class);
      ApplyException e = (ApplyException) outcome;
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(ApplyException.Reason.STALLED);
      assertThat(e.getMessage()).contains("COPY", "app");
      pg.await("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid, "0");
      assertThat(sinkLocks(0)).isZero();
      assertThat(pg.count("app.accounts")).isZero();
    }
  }

  /** The server process of the sink's session once it is inside its COPY. */
  private static String awaitCopy() throws InterruptedException, ExecutionException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < deadline) {
      String pid =
          pg.one(
              "SELECT pid::text FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
                  + " AND query LIKE 'COPY%accounts%'");
      if (pid != null) {
        return pid;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(2_000_000L);
    }
    throw new AssertionError("the sink never began its COPY");
  }

  private static void signal(String signal, String pid) throws Exception {
    Process p = new ProcessBuilder("kill", "-" + signal, pid).inheritIO().start();
    assertThat(p.waitFor()).isZero();
  }

  @SuppressWarnings("unused")
  private static List<String> activity() {
    return pg.rows("SELECT pid, state, wait_event_type, query FROM pg_stat_activity").stream()
        .map(Object::toString)
        .toList();
  }
}
