package io.trellara.sink.postgres.session;

import java.sql.SQLException;

/**
 * Classification of database failures into transient (retry on a fresh connection) and permanent.
 */
public final class SqlStates {
  private SqlStates() {}

  /** The first SQLSTATE in the exception chain, or null. */
  public static String of(Throwable t) {
    for (Throwable c = t; c != null; c = next(c)) {
      if (c instanceof SQLException s && s.getSQLState() != null) {
        return s.getSQLState();
      }
    }
    return null;
  }

  /**
   * Connection exceptions (class 08), serialization failure (40001), deadlock (40P01), the server
   * shutting down or starting (57P01 admin shutdown, e.g. {@code pg_terminate_backend}, 57P02,
   * 57P03).
   */
  static boolean isTransient(Throwable t) {
    for (Throwable c = t; c != null; c = next(c)) {
      if (c instanceof SQLException s
          && s.getSQLState() != null
          && isTransientState(s.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  static boolean isTransientState(String state) {
    return state.startsWith("08")
        || state.equals("40001")
        || state.equals("40P01")
        || state.equals("57P01")
        || state.equals("57P02")
        || state.equals("57P03");
  }

  private static Throwable next(Throwable t) {
    if (t instanceof SQLException s && s.getNextException() != null && s.getNextException() != t) {
      return s.getNextException();
    }
    return t.getCause() == t ? null : t.getCause();
  }
}
