package io.trellara.testplatform;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * One database on a PostgreSQL server of either platform ({@link TestServers.Postgres}): connection
 * details and small SQL helpers for tests.
 */
public final class PostgresDatabase {

  private final TestServers.Postgres server;
  private final String name;

  PostgresDatabase(TestServers.Postgres server, String name) {
    this.server = server;
    this.name = name;
  }

  public TestServers.Postgres server() {
    return server;
  }

  public String name() {
    return name;
  }

  public String host() {
    return server.host();
  }

  public int port() {
    return server.port();
  }

  public String user() {
    return server.user();
  }

  public String password() {
    return server.password();
  }

  public String jdbcUrl() {
    return server.jdbcUrl(name);
  }

  public DataSource dataSource() {
    return server.dataSource(name);
  }

  /** A new auto-commit connection; the caller closes it. */
  public Connection connect() {
    return server.connect(name);
  }

  /** Each statement auto-committed on its own. */
  public void execute(String... statements) {
    server.execute(name, statements);
  }

  /** All statements in one transaction (committed at the end, rolled back on error). */
  public void executeInTransaction(String... statements) {
    try (Connection connection = connect()) {
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        for (String sql : statements) {
          statement.execute(sql);
        }
        connection.commit();
      } catch (SQLException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "transaction failed on " + jdbcUrl() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The first column of the first row as a long (e.g. {@code select count(*) ...}); fails on no
   * row.
   */
  public long queryLong(String sql) {
    List<List<Object>> rows = query(sql);
    if (rows.isEmpty() || rows.get(0).get(0) == null) {
      throw new IllegalStateException("no value from: " + sql);
    }
    return ((Number) rows.get(0).get(0)).longValue();
  }

  /** The first column of the first row as text, or null when there is no row. */
  public String queryString(String sql) {
    List<List<Object>> rows = query(sql);
    if (rows.isEmpty() || rows.get(0).get(0) == null) {
      return null;
    }
    return rows.get(0).get(0).toString();
  }

  /**
   * The first column of every row as text (null stays null), in the order the query returns them.
   */
  public List<String> queryStrings(String sql) {
    return query(sql).stream().map(r -> r.get(0) == null ? null : r.get(0).toString()).toList();
  }

  /** All rows, each as the list of its column values (JDBC objects). */
  public List<List<Object>> query(String sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      List<List<Object>> rows = new ArrayList<>();
      while (rs.next()) {
        List<Object> row = new ArrayList<>(columns);
        for (int i = 1; i <= columns; i++) {
          row.add(rs.getObject(i));
        }
        rows.add(row);
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException("query failed on " + jdbcUrl() + ": " + e.getMessage(), e);
    }
  }

  /** Drops the logical replication slots of this database whose names start with the prefix. */
  public void dropReplicationSlots(String slotPrefix) {
    execute(
        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
            + " WHERE database = current_database() AND NOT active AND slot_name LIKE '"
            + slotPrefix.replace("'", "''")
            + "%'");
  }

  /**
   * Number of replication slots of this database with the prefix that a walsender is still using.
   */
  public long activeReplicationSlots(String slotPrefix) {
    return queryLong(
        "SELECT count(*) FROM pg_replication_slots WHERE database = current_database()"
            + " AND active AND slot_name LIKE '"
            + slotPrefix.replace("'", "''")
            + "%'");
  }

  /** Drops the database (slots on it must be gone first). */
  public void drop() {
    server.dropDatabase(name);
  }

  @Override
  public String toString() {
    return jdbcUrl();
  }
}
