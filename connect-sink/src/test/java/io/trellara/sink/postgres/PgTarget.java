package io.trellara.sink.postgres;

import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.session.ConnectionFactory;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An embedded PostgreSQL 17 target in an unusual time zone, one per test class: register it with
 * {@code @RegisterExtension static final PgTarget pg = new PgTarget();}.
 */
final class PgTarget implements AutoCloseable, BeforeAllCallback, AfterAllCallback {
  private EmbeddedPostgres pg;

  /** A started target outside JUnit (the benchmark harness). */
  static PgTarget start() {
    PgTarget target = new PgTarget();
    target.beforeAll(null);
    return target;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    try {
      pg =
          EmbeddedPostgres.builder()
              .setServerConfig("timezone", "Asia/Kathmandu")
              .setServerConfig("max_connections", "50")
              .start();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    close();
  }

  ConnectionFactory connections() {
    return () -> pg.getPostgresDatabase().getConnection();
  }

  String jdbcUrl() {
    return pg.getJdbcUrl("postgres", "postgres");
  }

  /** Drops the app schema and the sink's tables and recreates an empty {@code app} schema. */
  void reset() {
    exec(
        "DROP SCHEMA IF EXISTS app CASCADE",
        "DROP SCHEMA IF EXISTS trellara_sink CASCADE",
        "CREATE SCHEMA app");
    try {
      new CheckpointStore(connections()).createSchema();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  void exec(String... sql) {
    try (Connection c = connections().open();
        Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every row as strings (server text output, session TimeZone UTC). */
  List<List<String>> rows(String sql) {
    try (Connection c = connections().open();
        Statement s = c.createStatement()) {
      s.execute("SET TimeZone = 'UTC'");
      List<List<String>> out = new ArrayList<>();
      try (ResultSet rs = s.executeQuery(sql)) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          List<String> row = new ArrayList<>(n);
          for (int i = 1; i <= n; i++) {
            row.add(rs.getString(i));
          }
          out.add(row);
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  String one(String sql) {
    List<List<String>> r = rows(sql);
    return r.isEmpty() ? null : r.get(0).get(0);
  }

  /** Waits (at most 20 s) until {@code sql}'s one value is {@code expected}. */
  void await(String sql, String expected) {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!expected.equals(one(sql))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("still not " + expected + " after 20 s: " + sql);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
    }
  }

  long count(String table) {
    return Long.parseLong(one("SELECT count(*) FROM " + table));
  }

  @Override
  public void close() throws IOException {
    pg.close();
  }
}
