package io.trellara.sink.postgres.session;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The prepared statements of one {@link TargetSession}, by SQL text (which encodes relation and
 * statement shape), at most {@value #MAX_STATEMENTS}: the least recently used is closed when
 * another comes. It only keeps them; the session prepares them, so every statement still goes
 * through the session and ends an open COPY first.
 */
final class StatementCache {
  private static final int MAX_STATEMENTS = 256;

  private final LinkedHashMap<String, PreparedStatement> statements =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, PreparedStatement> eldest) {
          if (size() > MAX_STATEMENTS) {
            closeQuietly(eldest.getValue());
            return true;
          }
          return false;
        }
      };

  /** The statement prepared for {@code sql}, or null. */
  PreparedStatement get(String sql) {
    return statements.get(sql);
  }

  void put(String sql, PreparedStatement statement) {
    statements.put(sql, statement);
  }

  /** Closes and forgets every statement (after DDL, or when the sink altered a table). */
  void closeAll() {
    statements.values().forEach(StatementCache::closeQuietly);
    statements.clear();
  }

  private static void closeQuietly(Statement s) {
    try {
      s.close();
    } catch (SQLException ignored) {
      // a statement of a broken connection
    }
  }
}
