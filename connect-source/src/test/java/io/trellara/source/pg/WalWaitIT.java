package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.pgoutput.PgOutputParser;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestServers;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;

/**
 * {@link WalWait} on a replication connection the engine's way ({@link
 * PgEndpoint#connectForReplication}): it wakes for WAL, times out without, fails when cut.
 */
@EitherPlatform
class WalWaitIT {
  private static TestServers.Postgres pg;
  private static PostgresDatabase db;
  private static PgEndpoint endpoint;

  @BeforeAll
  static void start() {
    pg = TestServers.current().postgres("wal-wait").start();
    db = pg.createDatabase("walwait");
    db.execute("CREATE TABLE t (id int PRIMARY KEY)", "CREATE PUBLICATION wal_wait FOR TABLE t");
    endpoint =
        new PgEndpoint(
            pg.host(), pg.port(), db.name(), pg.user(), pg.password(), "disable", "", "", "", "");
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void wakesWhenATransactionArrivesAndTimesOutWhileNoneDoes() throws Exception {
    try (Connection c = sql();
        Connection replication = replication();
        PGReplicationStream stream = stream(c, replication, "wal_wait_a")) {
      WalWait wal = WalWait.on(replication);
      assertThat(wal.waits()).isTrue();
      assertThat(idle(wal, stream)).as("times out on a quiet stream").isTrue();

      // a transaction committed while the capture thread waits wakes it, and every message follows
      CompletableFuture<Void> insert =
          CompletableFuture.runAsync(
              () -> {
                try (Connection w = sql()) {
                  TimeUnit.MILLISECONDS.sleep(300);
                  exec(w, "INSERT INTO t VALUES (1)");
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      PgOutputParser parser = new PgOutputParser(1);
      List<Class<?>> messages = new ArrayList<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!messages.contains(PgOutputMessage.Commit.class) && System.nanoTime() < deadline) {
        if (wal.await(10_000)) {
          ByteBuffer b = stream.readPending();
          if (b != null) {
            messages.add(parser.parse(b).getClass());
          }
        }
      }
      insert.get(10, TimeUnit.SECONDS);
      assertThat(messages)
          .containsExactly(
              PgOutputMessage.Begin.class,
              PgOutputMessage.Relation.class,
              PgOutputMessage.Insert.class,
              PgOutputMessage.Commit.class);
      assertThat(idle(wal, stream)).as("quiet again").isTrue();
    }
  }

  @Test
  void aClosedConnectionFailsTheWait() throws Exception {
    try (Connection c = sql();
        Connection replication = replication()) {
      stream(c, replication, "wal_wait_b");
      WalWait wal = WalWait.on(replication);
      replication.unwrap(org.postgresql.core.BaseConnection.class).getQueryExecutor().abort();
      assertThatThrownBy(() -> wal.await(1_000))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("08006"));
    }
  }

  @Test
  void aConnectionWithoutPgjdbcsStreamDoesNotWait() throws Exception {
    Connection other =
        (Connection)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {Connection.class},
                (p, m, a) -> {
                  throw new SQLException("not pgjdbc");
                });
    WalWait wal = WalWait.on(other);
    assertThat(wal.waits()).isFalse();
    assertThat(wal.await(10_000)).isTrue(); // at once: the caller looks, and paces its looks itself
  }

  /** Reads what is there (a keepalive at the stream's start) until a wait of 200 ms times out. */
  private static boolean idle(WalWait wal, PGReplicationStream stream) throws SQLException {
    for (int i = 0; i < 50; i++) {
      if (!wal.await(200)) {
        return true;
      }
      assertThat(stream.readPending()).as("no transaction was committed").isNull();
    }
    return false;
  }

  private static PGReplicationStream stream(Connection c, Connection replication, String slot)
      throws SQLException {
    exec(c, "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
    return replication
        .unwrap(PGConnection.class)
        .getReplicationAPI()
        .replicationStream()
        .logical()
        .withSlotName(slot)
        .withSlotOption("proto_version", "1")
        .withSlotOption("publication_names", "wal_wait")
        .withStatusInterval(10, TimeUnit.SECONDS)
        .start();
  }

  private static Connection sql() throws SQLException {
    return endpoint.connect();
  }

  private static Connection replication() throws SQLException {
    return endpoint.connectForReplication();
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
