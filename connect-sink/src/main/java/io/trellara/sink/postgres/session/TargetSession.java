package io.trellara.sink.postgres.session;

import io.trellara.connect.common.SessionTimeouts;
import io.trellara.connect.common.liveness.Stage;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyManager;

/**
 * One target connection and the only owner of its state: {@link State#IDLE}, {@link
 * State#IN_TRANSACTION}, {@link State#IN_COPY}, {@link State#CLOSED}. The connection itself is
 * never handed out: every statement goes through {@link #prepare}, {@link #execute}, {@link #query}
 * or {@link #array}, and each of them first ends a COPY that is open, since PostgreSQL's protocol
 * allows nothing else on a connection during a COPY (pgjdbc would wait for its own lock forever:
 * the hang a re-snapshot once ran into). The session also keeps its prepared statements (cached by
 * SQL text, which encodes relation and statement shape) and the target tables already described,
 * and tells its watchdog {@link Stage} what it waits for.
 */
public final class TargetSession implements AutoCloseable {
  private static final int MAX_STATEMENTS = 256;

  /** Where the connection is in PostgreSQL's protocol. */
  public enum State {
    /** No transaction open: the next statement begins one (auto-commit is off). */
    IDLE,
    /** A transaction is open and the connection can take a statement. */
    IN_TRANSACTION,
    /** A {@code COPY ... FROM STDIN} is open: only its rows, its end or its cancel may follow. */
    IN_COPY,
    /** Closed (or aborted by the watchdog): nothing may follow. */
    CLOSED
  }

  /**
   * The search_path of every sink session: names the sink resolves (types by {@code to_regtype})
   * never depend on the role's or the database's setting, and nothing a user can create shadows the
   * catalog. Every function the sink calls is schema-qualified as well.
   */
  public static final String SEARCH_PATH = "pg_catalog, public";

  private final Connection connection;
  private final int backendPid;
  private final Stage stage;
  private volatile State state = State.IDLE;

  /** What this session remembers of the target, by kind (see {@link SessionCache}). */
  private final Map<Class<?>, SessionCache> caches = new HashMap<>();

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
  private CopyIn copy;
  private String copyTarget;

  /** What the statement in flight is about, for error messages. */
  public String relation;

  private String eventKey;
  private String runLastKey;
  private long runRows;
  private String statementKind = "statement";
  private volatile String stalled;

  private TargetSession(Connection connection, int backendPid, Stage stage) {
    this.connection = connection;
    this.backendPid = backendPid;
    this.stage = stage;
  }

  /**
   * Opens a connection with the session settings the wire's text values assume (UTC, ISO dates,
   * postgres intervals) and the pinned search_path, then turns auto-commit off. {@code stage}
   * (nullable) is told what each statement waits for.
   */
  public static TargetSession open(ConnectionFactory factory, Stage stage) throws SQLException {
    Connection c = factory.open();
    try {
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        // no statement, idle-transaction or (PostgreSQL 17+) transaction timeout: a COPY stays open
        // while the next chunk of its table arrives, a streamed transaction between its chunks, and
        // a snapshot applied atomically lasts as long as its load; the sink's watchdog bounds every
        // wait instead (apply.stall.timeout.ms)
        s.execute(
            "SET search_path = "
                + SEARCH_PATH
                + "; SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD';"
                + " SET IntervalStyle = 'postgres'; SET extra_float_digits = 3;"
                + " SET bytea_output = 'hex'; "
                + SessionTimeouts.OFF);
      }
      c.setAutoCommit(false);
      int pid =
          c.isWrapperFor(PGConnection.class) ? c.unwrap(PGConnection.class).getBackendPID() : 0;
      return new TargetSession(c, pid, stage);
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** {@link #open(ConnectionFactory, Stage)} without a watchdog stage. */
  public static TargetSession open(ConnectionFactory factory) throws SQLException {
    return open(factory, null);
  }

  public State state() {
    return state;
  }

  /** The server process of this session ({@code pg_backend_pid()}), 0 when unknown. */
  public int backendPid() {
    return backendPid;
  }

  public void at(String relation, String eventKey) {
    this.relation = relation;
    this.eventKey = eventKey;
    this.runRows = 0;
    progress();
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
    progress();
  }

  /** The event key (or range of them) the session is at, for error context; null when none. */
  public String eventKey() {
    return runRows <= 1 || eventKey == null
        ? eventKey
        : eventKey + " .. " + runLastKey + " (" + runRows + " rows)";
  }

  /** What the session is doing now, in words: the statement kind, the table and the event key. */
  public String doing() {
    String at = eventKey();
    return statementKind
        + (relation == null ? "" : " on " + relation)
        + (at == null || at.isEmpty() ? "" : " at " + at)
        + " (target backend pid "
        + backendPid
        + ", "
        + state.name().toLowerCase(java.util.Locale.ROOT)
        + ")";
  }

  // ---- statements: each ends an open COPY first ----------------------------------------------

  /** A cached prepared statement. */
  public PreparedStatement prepare(String sql) throws SQLException {
    beforeStatement(sql);
    PreparedStatement ps = statements.get(sql);
    if (ps == null) {
      ps = connection.prepareStatement(sql);
      statements.put(sql, ps);
    }
    return ps;
  }

  /** Runs one statement that returns no rows (its text is the sink's own, never the wire's). */
  public void execute(String sql) throws SQLException {
    beforeStatement(sql);
    try (Statement s = connection.createStatement()) {
      s.execute(sql);
    }
  }

  /** What a query's rows become. */
  @FunctionalInterface
  public interface Rows<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /** Runs one query and reads its rows. */
  public <T> T query(String sql, Rows<T> rows) throws SQLException {
    beforeStatement(sql);
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return rows.read(rs);
    }
  }

  /** A SQL array parameter for a statement of this session. */
  public Array array(String elementType, Object[] values) throws SQLException {
    endCopy();
    return connection.createArrayOf(elementType, values);
  }

  private void beforeStatement(String sql) throws SQLException {
    endCopy();
    requireOpen();
    statementKind = kindOf(sql);
    state = State.IN_TRANSACTION;
    progress();
  }

  private static String kindOf(String sql) {
    int start = 0;
    while (start < sql.length() && !Character.isLetter(sql.charAt(start))) {
      start++;
    }
    int end = start;
    while (end < sql.length() && Character.isLetter(sql.charAt(end))) {
      end++;
    }
    return start == end
        ? "statement"
        : sql.substring(start, end).toUpperCase(java.util.Locale.ROOT);
  }

  // ---- COPY --------------------------------------------------------------------------------

  /** True while a COPY into {@code target} (by its SQL) is open. */
  public boolean copyOpen(String copySql) {
    return copy != null && copySql.equals(copyTarget);
  }

  /** True while any COPY is open. */
  public boolean copyOpen() {
    return copy != null;
  }

  /**
   * Opens {@code COPY ... FROM STDIN} (ending one that is open); rows follow with {@link
   * #copyRows}.
   */
  public void beginCopy(String copySql) throws SQLException {
    endCopy();
    requireOpen();
    if (copyManager == null) {
      copyManager = connection.unwrap(PGConnection.class).getCopyAPI();
    }
    statementKind = "COPY";
    copy = copyManager.copyIn(copySql);
    copyTarget = copySql;
    state = State.IN_COPY;
    progress();
  }

  /** Sends rows of the open COPY (every byte sent is progress). */
  public void copyRows(byte[] buffer, int offset, int length) throws SQLException {
    if (copy == null) {
      throw new IllegalStateException("no COPY is open on this session");
    }
    copy.writeToCopy(buffer, offset, length);
    progress();
  }

  /** Ends the open COPY, if any: PostgreSQL has inserted every row sent when it returns. */
  public void endCopy() throws SQLException {
    CopyIn in = copy;
    if (in == null) {
      return;
    }
    try {
      in.endCopy();
      copy = null;
      copyTarget = null;
      state = State.IN_TRANSACTION;
    } finally {
      cancelCopyQuietly(); // only when endCopy failed
    }
  }

  /**
   * Ends an open COPY without its rows (they never become visible: the transaction is rolled back
   * next).
   */
  public void cancelCopyQuietly() {
    CopyIn in = copy;
    copy = null;
    copyTarget = null;
    if (in != null) {
      if (state == State.IN_COPY) {
        state = State.IN_TRANSACTION;
      }
      if (in.isActive()) {
        try {
          in.cancelCopy();
        } catch (SQLException ignored) {
          // the connection is broken or the COPY already failed: the rollback or close decides
        }
      }
    }
  }

  // ---- transaction -------------------------------------------------------------------------

  public void commit() throws SQLException {
    endCopy();
    requireOpen();
    statementKind = "COMMIT";
    connection.commit();
    state = State.IDLE;
  }

  /** Rolls back what is open (a COPY first); false when the connection is unusable. */
  public boolean rollbackQuietly() {
    cancelCopyQuietly();
    try {
      if (state != State.CLOSED && !connection.isClosed()) {
        connection.rollback();
        state = State.IDLE;
        return true;
      }
    } catch (SQLException ignored) {
      // the connection is unusable; the caller discards the session
    }
    return false;
  }

  /** True when the connection is closed (or broken beyond use). */
  public boolean isClosed() {
    try {
      return state == State.CLOSED || connection.isClosed();
    } catch (SQLException e) {
      return true;
    }
  }

  private void requireOpen() throws SQLException {
    if (state == State.CLOSED) {
      throw new SQLException(
          stalled != null ? "the watchdog closed this session: " + stalled : "session closed",
          "08003");
    }
  }

  // ---- the watchdog's side: called from its thread -----------------------------------------

  private void progress() {
    if (stage != null) {
      stage.progress();
    }
  }

  /** The stall that made the watchdog cancel this session's work, or null. */
  public String stalled() {
    return stalled;
  }

  /** Clears a stall once the task thread has reported it. */
  public void clearStall() {
    stalled = null;
  }

  /**
   * The watchdog found this session stalled: its statement is cancelled on the server (a cancel
   * request, which works while this connection's socket is blocked), so the task thread wakes with
   * an error and rolls back.
   */
  public void cancelStalled(String why) {
    stalled = why;
    try {
      connection.unwrap(PGConnection.class).cancelQuery();
    } catch (SQLException ignored) {
      // the server cannot be reached: abortStalled() closes the socket instead
    }
  }

  /** A cancel did not wake the task thread: the connection is closed under it. */
  public void abortStalled(Executor executor) {
    state = State.CLOSED;
    try {
      connection.abort(executor);
    } catch (SQLException ignored) {
      // closing a broken connection
    }
  }

  // ---- caches --------------------------------------------------------------------------------

  /** This session's cache of {@code type}, made by {@code create} on first use. */
  public <C extends SessionCache> C cache(Class<C> type, java.util.function.Supplier<C> create) {
    return type.cast(caches.computeIfAbsent(type, t -> create.get()));
  }

  /** After DDL: cached statements and table descriptions may no longer hold. */
  public void invalidate() {
    statements.values().forEach(TargetSession::closeQuietly);
    statements.clear();
    forgetTables();
  }

  /** After the sink altered {@code target}: describe it again, prepare its statements again. */
  public void forget(Object target) {
    statements.values().forEach(TargetSession::closeQuietly);
    statements.clear();
    caches.values().forEach(c -> c.forget(target));
  }

  /** After a rollback: a table created or altered by the rolled-back transaction is as it was. */
  public void forgetTables() {
    caches.values().forEach(SessionCache::forgetAll);
  }

  @Override
  public void close() {
    cancelCopyQuietly();
    invalidate();
    state = State.CLOSED;
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
