package io.trellara.sink.postgres.session;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Port through which the applier obtains target connections. Each call returns a new connection;
 * the applier owns it (session settings, auto-commit off, close).
 */
@FunctionalInterface
public interface ConnectionFactory {
  Connection open() throws SQLException;

  /**
   * A connection whose login and every read give up after {@code seconds}: the watchdog's own look
   * at a stalled session must not stall itself. By default the same as {@link #open()}.
   */
  default Connection openBounded(int seconds) throws SQLException {
    return open();
  }
}
