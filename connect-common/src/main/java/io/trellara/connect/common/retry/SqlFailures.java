package io.trellara.connect.common.retry;

import java.io.IOException;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The table from a PostgreSQL failure to its {@link FailureAction}, shared by the source's
 * replication connection and the sink's target sessions. The cause chain is read from the outside
 * in and the first decisive link wins: a SQLSTATE listed here, any other SQLSTATE (fail), or an
 * {@link IOException} (the socket: reconnect).
 *
 * <table>
 *   <caption>SQLSTATE to action</caption>
 *   <tr><th>SQLSTATE</th><th>what</th><th>action</th></tr>
 *   <tr><td>class 08</td><td>connection exception (reset, refused, closed)</td><td>RECONNECT</td></tr>
 *   <tr><td>57P01, 57P02, 57P03</td><td>admin or crash shutdown, the server starting</td><td>RECONNECT</td></tr>
 *   <tr><td>53300</td><td>too many connections</td><td>RECONNECT</td></tr>
 *   <tr><td>40001, 40P01</td><td>serialization failure, deadlock</td><td>RETRY</td></tr>
 *   <tr><td>anything else</td><td>the server refused the work</td><td>FAIL</td></tr>
 * </table>
 *
 * A query cancelled by a task's own watchdog (57014) is not retried either: the caller knows it
 * stalled and fails with {@code STALLED}. 55006 (object in use) means different things to different
 * callers (a replication slot still held by its old walsender: reconnect; an ALTER TABLE meeting
 * pending trigger events: fail, so that the sink applies the group one transaction at a time), so
 * it is FAIL here and the replication connection's own rules treat it as a lost connection.
 */
public final class SqlFailures {
  private SqlFailures() {}

  /**
   * The action for one SQLSTATE (null or blank: not decisive, the cause decides; see {@link
   * #classify}).
   */
  public static FailureAction actionOf(String sqlState) {
    if (sqlState.startsWith("08")) {
      return FailureAction.RECONNECT;
    }
    return switch (sqlState) {
      case "57P01", "57P02", "57P03", "53300" -> FailureAction.RECONNECT;
      case "40001", "40P01" -> FailureAction.RETRY;
      default -> FailureAction.FAIL;
    };
  }

  /**
   * The action for a failure: its first decisive link (see the table above); nothing decisive:
   * FAIL.
   */
  public static FailureAction classify(Throwable error) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = error; t != null && seen.put(t, Boolean.TRUE) == null; t = next(t)) {
      if (t instanceof SQLException sql
          && sql.getSQLState() != null
          && !sql.getSQLState().isBlank()) {
        return actionOf(sql.getSQLState());
      }
      if (t instanceof IOException) {
        return FailureAction.RECONNECT;
      }
    }
    return FailureAction.FAIL;
  }

  /** The first SQLSTATE in the chain, or null. */
  public static String sqlState(Throwable error) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = error; t != null && seen.put(t, Boolean.TRUE) == null; t = next(t)) {
      if (t instanceof SQLException s && s.getSQLState() != null) {
        return s.getSQLState();
      }
    }
    return null;
  }

  private static Throwable next(Throwable t) {
    if (t instanceof SQLException s && s.getNextException() != null && s.getNextException() != t) {
      return s.getNextException();
    }
    return t.getCause();
  }
}
