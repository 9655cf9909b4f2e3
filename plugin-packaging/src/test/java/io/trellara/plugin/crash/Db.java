package io.trellara.plugin.crash;

import io.trellara.testplatform.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The harness's own queries: each on a fresh connection that waits at most 2 s for a lock and 30 s
 * for a statement, so a check never hangs behind the lock it is meant to report.
 */
final class Db {
  private Db() {}

  static List<List<String>> rows(PostgresDatabase db, String sql) {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("SET lock_timeout = '2s'");
      s.execute("SET statement_timeout = '30s'");
      s.execute("SET application_name = 'crash-harness'");
      try (ResultSet rs = s.executeQuery(sql)) {
        int n = rs.getMetaData().getColumnCount();
        List<List<String>> out = new ArrayList<>();
        while (rs.next()) {
          List<String> row = new ArrayList<>(n);
          for (int i = 1; i <= n; i++) {
            row.add(rs.getString(i));
          }
          out.add(row);
        }
        return out;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage() + " [" + db.name() + ": " + sql + "]", e);
    }
  }

  /** The first column of the first row, or null. */
  static String text(PostgresDatabase db, String sql) {
    List<List<String>> rows = rows(db, sql);
    return rows.isEmpty() ? null : rows.get(0).get(0);
  }

  static long number(PostgresDatabase db, String sql) {
    String v = text(db, sql);
    return v == null ? 0 : Long.parseLong(v);
  }

  /** Rows as aligned text, for diagnostics; the failure's message when the query fails. */
  static String table(PostgresDatabase db, String sql) {
    try {
      StringBuilder out = new StringBuilder();
      for (List<String> row : rows(db, sql)) {
        out.append("  ").append(String.join(" | ", row)).append('\n');
      }
      return out.length() == 0 ? "  (none)\n" : out.toString();
    } catch (RuntimeException e) {
      return "  (query failed: " + e.getMessage() + ")\n";
    }
  }
}
