package io.trellara.plugin;

import io.trellara.testplatform.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Source transactions the plugin ITs commit and then look for on the target by their id. */
final class SourceTransactions {
  private SourceTransactions() {}

  /**
   * Runs the statements as one source transaction and returns its 32-bit xid (as the record key
   * carries it).
   */
  static String commit(PostgresDatabase db, String... statements) throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (String sql : statements) {
        s.execute(sql);
      }
      String xid = xid(s);
      c.commit();
      return xid;
    }
  }

  /** The 32-bit xid of the transaction {@code s} is in (assigning one if it has none yet). */
  static String xid(Statement s) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT (txid_current() % 4294967296)::text")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
