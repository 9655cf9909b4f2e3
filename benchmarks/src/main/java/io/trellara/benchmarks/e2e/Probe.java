package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.PostgresDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * One open connection that reads a benchmark database, so that polling costs an index lookup and
 * not a new backend per look (the same for every leg: the polls share the two cores with the
 * pipeline).
 */
final class Probe implements AutoCloseable {
  private final PostgresDatabase db;
  private final Connection connection;
  private final Map<String, PreparedStatement> rowLookups = new HashMap<>();

  Probe(PostgresDatabase db) {
    this.db = db;
    this.connection = db.connect();
  }

  /** Whether the row with this primary key is visible. */
  boolean has(String table, long id) throws SQLException {
    PreparedStatement lookup = rowLookups.get(table);
    if (lookup == null) {
      lookup = connection.prepareStatement("SELECT 1 FROM " + table + " WHERE id = ?");
      rowLookups.put(table, lookup);
    }
    lookup.setLong(1, id);
    try (ResultSet rs = lookup.executeQuery()) {
      return rs.next();
    }
  }

  /** The first column of the first row, as text. */
  String text(String sql) throws SQLException {
    try (Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      if (!rs.next()) {
        throw new IllegalStateException("no row from " + sql + " on " + db);
      }
      return rs.getString(1);
    }
  }

  long number(String sql) throws SQLException {
    return Long.parseLong(text(sql));
  }

  /**
   * Row count and an md5 of every row in key order: equal on both sides means the tables are equal.
   */
  String digest(String table) throws SQLException {
    return text(
        "SELECT count(*) || ' rows, md5 ' || coalesce(md5(string_agg(t::text, ',' ORDER BY id)), '-')"
            + " FROM "
            + table
            + " t");
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
