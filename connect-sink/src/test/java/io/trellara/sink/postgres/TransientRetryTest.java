package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.TargetProgressLost;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.session.ConnectionFactory;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;

class TransientRetryTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId ACCOUNTS = rel("app", "accounts");
  final List<Long> sleeps = new ArrayList<>();

  /**
   * The retry budget's clock: advanced by the sleeps, so budgets are exact whatever the machine's
   * speed.
   */
  final java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec("CREATE TABLE app.accounts (id int PRIMARY KEY, balance numeric NOT NULL)");
  }

  /**
   * Backoff 100, 200, 400, 400... ms; a retry budget that admits exactly {@code attempts} attempts.
   */
  private TransactionApplier applier(ConnectionFactory f, int attempts) {
    return applier(f, attempts, false);
  }

  private TransactionApplier applier(ConnectionFactory f, int attempts, boolean synchronousCommit) {
    long budget = 0;
    for (int i = 0; i < attempts - 1; i++) {
      budget += Math.min(100L << i, 400L);
    }
    return new TransactionApplier(
        f,
        RelationMapper.identity(),
        ApplyOptions.builder("s")
            .synchronousCommitOff(!synchronousCommit)
            .maxRetryDuration(Duration.ofMillis(budget))
            .initialBackoff(Duration.ofMillis(100))
            .maxBackoff(Duration.ofMillis(400))
            .retryJitter(0)
            .build(),
        ms -> {
          sleeps.add(ms);
          clock.addAndGet(ms * 1_000_000L);
        },
        clock::get);
  }

  private static SourceTransaction open(long lsn, int id) {
    return tx(lsn)
        .insert(
            ACCOUNTS, key("id", "integer", Integer.toString(id)), val("balance", "numeric", "1"))
        .at("t", 0, id);
  }

  @Test
  void retriesOnAFreshConnectionWhenTheFirstConnectFails() {
    AtomicInteger opens = new AtomicInteger();
    ConnectionFactory flaky =
        () -> {
          if (opens.incrementAndGet() == 1) {
            throw new SQLException("the database system is starting up", "57P03");
          }
          return pg.connections().open();
        };
    try (TransactionApplier a = applier(flaky, 3)) {
      ApplyResult r = a.apply(open(0x10, 1));
      assertThat(r.applied()).hasSize(1);
      assertThat(r.attempts()).isEqualTo(2);
      assertThat(a.metrics().retries()).isEqualTo(1);
    }
    assertThat(sleeps).containsExactly(100L);
    assertThat(pg.count("app.accounts")).isEqualTo(1);
  }

  @Test
  void reappliesTheWholeGroupAfterTheBackendIsTerminated() throws Exception {
    List<Connection> opened = new ArrayList<>();
    ConnectionFactory tracking =
        () -> {
          Connection c = pg.connections().open();
          opened.add(c);
          return c;
        };
    try (TransactionApplier a = applier(tracking, 3, true)) {
      a.apply(open(0x10, 1));
      int pid = opened.get(0).unwrap(PGConnection.class).getBackendPID();
      pg.exec("SELECT pg_terminate_backend(" + pid + ")");
      ApplyResult r = a.apply(List.of(open(0x20, 2), open(0x30, 3)));
      assertThat(r.applied()).hasSize(2);
      assertThat(a.metrics().retries()).isEqualTo(1);
    }
    assertThat(opened).hasSize(2);
    assertThat(pg.rows("SELECT id FROM app.accounts ORDER BY id"))
        .containsExactly(List.of("1"), List.of("2"), List.of("3"));
    assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(3);
  }

  /**
   * At the defaults (synchronous_commit=off) a lost connection may mean a crashed target that lost
   * its last commits and their progress: nothing more is applied until the task has read its
   * progress again.
   */
  @Test
  void asksForTheProgressToBeReadAgainWhenTheConnectionIsLostAfterAsynchronousCommits()
      throws Exception {
    List<Connection> opened = new ArrayList<>();
    ConnectionFactory tracking =
        () -> {
          Connection c = pg.connections().open();
          opened.add(c);
          return c;
        };
    try (TransactionApplier a = applier(tracking, 3)) {
      a.apply(open(0x10, 1));
      int pid = opened.get(0).unwrap(PGConnection.class).getBackendPID();
      pg.exec("SELECT pg_terminate_backend(" + pid + ")");
      assertThatThrownBy(() -> a.apply(List.of(open(0x20, 2))))
          .isInstanceOf(TargetProgressLost.class);
      assertThat(pg.count("app.accounts")).isEqualTo(1);
      assertThat(a.recordedPositions()).containsEntry(new TopicPartitionKey("t", 0), 1L);
      assertThat(a.apply(open(0x20, 2)).applied()).hasSize(1); // once read again, apply goes on
    }
    assertThat(pg.count("app.accounts")).isEqualTo(2);
  }

  /**
   * Once the target has flushed every asynchronous commit, a lost connection is retried in place.
   */
  @Test
  void retriesInPlaceWhenEveryAsynchronousCommitIsKnownToBeFlushed() throws Exception {
    List<Connection> opened = new ArrayList<>();
    ConnectionFactory tracking =
        () -> {
          Connection c = pg.connections().open();
          opened.add(c);
          return c;
        };
    try (TransactionApplier a = applier(tracking, 3)) {
      a.apply(open(0x10, 1));
      Map<TopicPartitionKey, Long> applied = Map.of(new TopicPartitionKey("t", 0), 1L);
      pg.exec("SELECT pg_switch_wal()"); // flushes everything written so far
      assertThat(a.durable(applied)).isEqualTo(applied);
      int pid = opened.get(0).unwrap(PGConnection.class).getBackendPID();
      pg.exec("SELECT pg_terminate_backend(" + pid + ")");
      assertThat(a.apply(open(0x20, 2)).applied()).hasSize(1);
      assertThat(a.metrics().retries()).isEqualTo(1);
    }
  }

  @Test
  void retriesASerializationFailure() {
    pg.exec(
        "CREATE SEQUENCE app.once",
        "CREATE FUNCTION app.fail_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            + " IF nextval('app.once') = 1 THEN RAISE EXCEPTION 'simulated' USING ERRCODE = '40001';"
            + " END IF; RETURN NEW; END $$",
        "CREATE TRIGGER fail_once BEFORE INSERT ON app.accounts FOR EACH ROW EXECUTE FUNCTION app.fail_once()");
    try (TransactionApplier a = applier(pg.connections(), 3)) {
      assertThat(a.apply(open(0x10, 1)).applied()).hasSize(1);
      assertThat(a.metrics().retries()).isEqualTo(1);
    }
    assertThat(pg.count("app.accounts")).isEqualTo(1);
  }

  @Test
  void findsTheGroupAppliedWhenTheCommitOutcomeWasUnknown() {
    AtomicInteger commits = new AtomicInteger();
    ConnectionFactory lostAck =
        () -> {
          Connection real = pg.connections().open();
          return (Connection)
              Proxy.newProxyInstance(
                  Connection.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (proxy, m, args) -> {
                    if (m.getName().equals("commit") && commits.incrementAndGet() == 1) {
                      real.commit();
                      real.close();
                      throw new SQLException(
                          "An I/O error occurred while sending to the backend.", "08006");
                    }
                    try {
                      return m.invoke(real, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                  });
        };
    try (TransactionApplier a = applier(lostAck, 3)) {
      SourceTransaction t = open(0x10, 1);
      ApplyResult r = a.apply(t);
      assertThat(r.applied()).containsExactly(t.key());
      assertThat(r.duplicates()).isEmpty();
      assertThat(a.metrics().retries()).isEqualTo(1);
    }
    assertThat(pg.count("app.accounts")).isEqualTo(1);
    assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(1);
  }

  @Test
  void givesUpOnceTheRetryTimeIsSpentWithBoundedBackoff() {
    ConnectionFactory down =
        () -> {
          throw new SQLException("Connection refused", "08001");
        };
    try (TransactionApplier a = applier(down, 5)) {
      assertThatThrownBy(() -> a.apply(open(0x10, 1)))
          .isInstanceOf(ApplyException.class)
          .satisfies(
              e -> {
                ApplyException ae = (ApplyException) e;
                assertThat(ae.reason()).isEqualTo(ApplyException.Reason.RETRIES_EXHAUSTED);
                assertThat(ae.sqlState()).isEqualTo("08001");
              })
          .hasMessageContaining("5 attempts");
    }
    assertThat(sleeps).containsExactly(100L, 200L, 400L, 400L);
  }

  /**
   * At the defaults (backoff from 200 ms to 10 s, 10 minutes of retries) a 60 s target outage is
   * ridden out.
   */
  @Test
  void ridesOutASixtySecondOutageAtTheDefaults() {
    long outageEnds = 60_000_000_000L;
    ConnectionFactory downForAMinute =
        () -> {
          if (clock.get() < outageEnds) {
            throw new SQLException("Connection refused", "08001");
          }
          return pg.connections().open();
        };
    try (TransactionApplier a =
        new TransactionApplier(
            downForAMinute,
            RelationMapper.identity(),
            ApplyOptions.defaults("s"),
            ms -> {
              sleeps.add(ms);
              clock.addAndGet(ms * 1_000_000L);
            },
            clock::get)) {
      ApplyResult r = a.apply(open(0x10, 1));
      assertThat(r.applied()).hasSize(1);
      assertThat(a.metrics().retries()).isEqualTo(sleeps.size());
    }
    assertThat(sleeps.stream().mapToLong(Long::longValue).sum()).isGreaterThanOrEqualTo(60_000L);
    assertThat(sleeps).allSatisfy(ms -> assertThat(ms).isLessThanOrEqualTo(10_000L));
    assertThat(pg.count("app.accounts")).isEqualTo(1);
    assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(1);
  }

  @Test
  void doesNotRetryAPermanentError() {
    pg.exec("INSERT INTO app.accounts VALUES (1, 0)");
    AtomicInteger opens = new AtomicInteger();
    ConnectionFactory counting =
        () -> {
          opens.incrementAndGet();
          return pg.connections().open();
        };
    try (TransactionApplier a = applier(counting, 5)) {
      assertThatThrownBy(() -> a.apply(open(0x10, 1)))
          .isInstanceOf(ApplyException.class)
          .satisfies(e -> assertThat(((ApplyException) e).sqlState()).isEqualTo("23505"));
      // the session survives a permanent error: the next transaction applies on the same connection
      a.apply(open(0x20, 2));
    }
    assertThat(opens.get()).isEqualTo(1);
    assertThat(sleeps).isEmpty();
  }
}
