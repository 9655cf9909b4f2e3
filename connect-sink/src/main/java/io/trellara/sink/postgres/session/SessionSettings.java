package io.trellara.sink.postgres.session;

import io.trellara.connect.common.SessionTimeouts;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The settings every sink session runs under, applied once when {@link TargetSession#open} opens
 * its connection, before the session owns it: the settings the wire's text values assume (UTC, ISO
 * dates, postgres intervals, every float digit, hex bytea), the pinned search_path, no server-side
 * timeouts, and auto-commit off.
 */
final class SessionSettings {
  /**
   * The search_path of every sink session: names the sink resolves (types by {@code to_regtype})
   * never depend on the role's or the database's setting, and nothing a user can create shadows the
   * catalog. Every function the sink calls is schema-qualified as well.
   */
  static final String SEARCH_PATH = "pg_catalog, public";

  private SessionSettings() {}

  /** Applies the settings to {@code c} (auto-commit on for the SETs, then off for good). */
  static void apply(Connection c) throws SQLException {
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
  }
}
