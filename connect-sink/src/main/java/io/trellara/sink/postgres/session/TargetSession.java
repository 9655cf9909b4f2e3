package io.trellara.sink.postgres.session;

import io.trellara.connect.common.liveness.Stage;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
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
 * the hang a re-snapshot once ran into). The session also keeps its prepared statements ({@link
 * StatementCache}) and what it remembers of the target ({@link SessionCache}), knows what the
 * statement in flight is about ({@link StatementContext}) and tells its watchdog {@link Stage} what
 * it waits for. Its settings are applied once, at {@link #open} ({@link SessionSettings}).
 */
public final class TargetSession implements AutoCloseable {
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

  /** The search_path of every sink session ({@link SessionSettings#SEARCH_PATH}). */
  public static final String SEARCH_PATH = SessionSettings.SEARCH_PATH;

  private final Connection connection;
  private final int backendPid;
  private final Stage stage;
  private volatile State state = State.IDLE;

  /** What this session remembers of the target, by kind (see {@link SessionCache}). */
  private final Map<Class<?>, SessionCache> caches = new HashMap<>();

  private final StatementCache statements = new StatementCache();
  private CopyManager copyManager;
  private CopyIn copy;
  private String copyTarget;

  /** What the statement in flight is about, for error messages. */
  private final StatementContext context = new StatementContext();

  private volatile String stalled;

  private TargetSession(Connection connection, int backendPid, Stage stage) {
    this.connection = connection;
    this.backendPid = backendPid;
    this.stage = stage;
  }

  /**
   * Opens a connection with the session settings the wire's text values assume (UTC, ISO dates,
   * postgres intervals) and the pinned search_path, auto-commit off ({@link SessionSettings}).
   * {@code stage} (nullable) is told what each statement waits for.
   */
  public static TargetSession open(ConnectionFactory factory, Stage stage) throws SQLException {
    Connection c = factory.open();
    try {
      SessionSettings.apply(c);
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
    context.at(relation, eventKey);
    progress();
  }

  /**
   * At a run of rows: its first and last event keys and its size, put into words only if an error
   * names them.
   */
  public void atRun(String relation, String firstKey, String lastKey, long rows) {
    context.atRun(relation, firstKey, lastKey, rows);
    progress();
  }

  /** The table the statement in flight is about, for error context; null when none. */
  public String relation() {
    return context.relation();
  }

  /** The event key (or range of them) the session is at, for error context; null when none. */
  public String eventKey() {
    return context.eventKey();
  }

  /** What the session is doing now, in words: the statement kind, the table and the event key. */
  public String doing() {
    return context.doing(backendPid, state);
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

  /** Runs one statement outside a transaction (as VACUUM must); returns the server's warnings. */
  public List<String> executeOutsideTransaction(String sql) throws SQLException {
    requireOpen();
    if (state != State.IDLE) {
      throw new IllegalStateException("a statement outside a transaction needs an idle session");
    }
    context.kind(sql.substring(0, Math.min(sql.length(), 16)));
    List<String> warnings = new java.util.ArrayList<>();
    connection.setAutoCommit(true);
    try (Statement s = connection.createStatement()) {
      s.execute(sql);
      for (var w = s.getWarnings(); w != null; w = w.getNextWarning()) {
        warnings.add(w.getMessage());
      }
    } finally {
      connection.setAutoCommit(false);
    }
    return warnings;
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
    context.statement(sql);
    state = State.IN_TRANSACTION;
    progress();
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
    context.kind("COPY");
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
    context.kind("COMMIT");
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
    statements.closeAll();
    forgetTables();
  }

  /** After the sink altered {@code target}: describe it again, prepare its statements again. */
  public void forget(Object target) {
    statements.closeAll();
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
}
