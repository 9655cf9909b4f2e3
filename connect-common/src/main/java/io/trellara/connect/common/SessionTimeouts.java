package io.trellara.connect.common;

/**
 * Turns off, for one PostgreSQL session, the timeouts a role or database may set: {@code
 * statement_timeout}, {@code idle_in_transaction_session_timeout} and, where it exists (PostgreSQL
 * 17+; older servers do not know the name), {@code transaction_timeout}. A snapshot's {@code COPY}
 * lasts as long as the pipeline takes its rows and a sink's streamed or snapshot transaction as
 * long as its load; both bound their own waits instead.
 */
public final class SessionTimeouts {
  /**
   * One simple-query string of three statements, run with auto-commit on so it holds for the
   * session.
   */
  public static final String OFF =
      "SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0;"
          + " SELECT pg_catalog.set_config('transaction_timeout', '0', false)"
          + " WHERE pg_catalog.current_setting('server_version_num')::int >= 170000";

  private SessionTimeouts() {}
}
