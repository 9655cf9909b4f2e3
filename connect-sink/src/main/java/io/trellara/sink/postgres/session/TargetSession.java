package io.trellara.sink.postgres.session;

import io.trellara.connect.common.SessionTimeouts;
import io.trellara.sink.postgres.apply.RowLayout;
import io.trellara.sink.postgres.schema.QualifiedName;
import io.trellara.sink.postgres.schema.TargetTable;
import io.trellara.sink.postgres.schema.TargetTables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * One target connection with its session settings, its prepared statements (cached by SQL text,
 * which encodes relation and statement shape) and the target tables already verified to exist.
 */
public final class TargetSession implements AutoCloseable {
  private static final int MAX_STATEMENTS = 256;

  public final Connection connection;

  /** Target tables as the catalog described them (see {@link TargetTables#describe}). */
  public final Map<QualifiedName, TargetTable> tables = new HashMap<>();

  /** Per target table, the fingerprint of the schema version its rows were last prepared for. */
  public final Map<QualifiedName, String> preparedFingerprints = new HashMap<>();

  /** Per target table, how the positional rows of the schema version last written map onto it. */
  public final Map<QualifiedName, RowLayout> layouts = new HashMap<>();

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
  private CopyManager copyManager;

  /**
   * A COPY of insert rows still open on the connection (see ChangeWriter): cancelled before a
   * rollback.
   */
  public org.postgresql.copy.CopyIn openCopy;

  /** What the statement in flight is about, for error messages. */
  public String relation;

  private String eventKey;
  private String runLastKey;
  private long runRows;

  private TargetSession(Connection connection) {
    this.connection = connection;
  }

  /**
   * The search_path of every sink session: names the sink resolves (types by {@code to_regtype})
   * never depend on the role's or the database's setting, and nothing a user can create shadows the
   * catalog. Every function the sink calls is schema-qualified as well.
   */
  public static final String SEARCH_PATH = "pg_catalog, public";

  /**
   * Opens a connection with the session settings the wire's text values assume (UTC, ISO dates,
   * postgres intervals) and the pinned search_path, then turns auto-commit off.
   */
  public static TargetSession open(ConnectionFactory factory) throws SQLException {
    Connection c = factory.open();
    try {
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        // no statement, idle-transaction or (PostgreSQL 17+) transaction timeout: a COPY stays open
        // while
        // the next chunk of its table arrives, a streamed transaction between its chunks, and a
        // snapshot
        // applied atomically lasts as long as its load (retries are bounded in time by the sink)
        s.execute(
            "SET search_path = "
                + SEARCH_PATH
                + "; SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD';"
                + " SET IntervalStyle = 'postgres'; SET extra_float_digits = 3; SET bytea_output = 'hex';"
                + " "
                + SessionTimeouts.OFF);
      }
      c.setAutoCommit(false);
      return new TargetSession(c);
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  public void at(String relation, String eventKey) {
    this.relation = relation;
    this.eventKey = eventKey;
    this.runRows = 0;
  }

  /**
   * At a run of rows: its first and last event keys and its size, put into words only if an error
   * names them.
   */
  public void atRun(String relation, String firstKey, String lastKey, long rows) {
    this.relation = relation;
    this.eventKey = firstKey;
    this.runLastKey = lastKey;
    this.runRows = rows;
  }

  /** The event key (or range of them) the session is at, for error context; null when none. */
  public String eventKey() {
    return runRows <= 1 || eventKey == null
        ? eventKey
        : eventKey + " .. " + runLastKey + " (" + runRows + " rows)";
  }

  /**
   * A cached prepared statement; an open COPY is ended first, since no other statement can run
   * during one.
   */
  public PreparedStatement prepare(String sql) throws SQLException {
    endCopy();
    PreparedStatement ps = statements.get(sql);
    if (ps == null) {
      ps = connection.prepareStatement(sql);
      statements.put(sql, ps);
    }
    return ps;
  }

  public CopyManager copyManager() throws SQLException {
    if (copyManager == null) {
      copyManager = connection.unwrap(PGConnection.class).getCopyAPI();
    }
    return copyManager;
  }

  /** After DDL: cached statements and table descriptions may no longer hold. */
  public void invalidate() {
    statements.values().forEach(TargetSession::closeQuietly);
    statements.clear();
    forgetTables();
  }

  /** After the sink altered {@code target}: describe it again, prepare its statements again. */
  public void forget(QualifiedName target) {
    statements.values().forEach(TargetSession::closeQuietly);
    statements.clear();
    tables.remove(target);
    preparedFingerprints.remove(target);
    layouts.remove(target);
  }

  /** After a rollback: a table created or altered by the rolled-back transaction is as it was. */
  public void forgetTables() {
    tables.clear();
    preparedFingerprints.clear();
    layouts.clear();
  }

  public boolean rollbackQuietly() {
    cancelCopyQuietly();
    try {
      if (!connection.isClosed()) {
        connection.rollback();
        return true;
      }
    } catch (SQLException ignored) {
      // the connection is unusable; the caller discards the session
    }
    return false;
  }

  /** Ends the open COPY, if any: PostgreSQL has inserted every row sent when it returns. */
  public void endCopy() throws SQLException {
    org.postgresql.copy.CopyIn in = openCopy;
    if (in == null) {
      return;
    }
    try {
      in.endCopy();
      openCopy = null;
    } finally {
      cancelCopyQuietly(); // only when endCopy failed
    }
  }

  /**
   * Ends an open COPY without its rows (they never become visible: the transaction is rolled back
   * next).
   */
  public void cancelCopyQuietly() {
    org.postgresql.copy.CopyIn in = openCopy;
    openCopy = null;
    if (in != null && in.isActive()) {
      try {
        in.cancelCopy();
      } catch (SQLException ignored) {
        // the connection is broken or the COPY already failed: the rollback or the close that
        // follows decides
      }
    }
  }

  @Override
  public void close() {
    invalidate();
    try {
      connection.close();
    } catch (SQLException ignored) {
      // closing a broken connection
    }
  }

  private static void closeQuietly(Statement s) {
    try {
      s.close();
    } catch (SQLException ignored) {
      // a statement of a broken connection
    }
  }
}
