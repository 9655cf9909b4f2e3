package io.trellara.source.replication;

import io.trellara.connect.common.retry.FailureAction;
import io.trellara.connect.common.retry.SqlFailures;
import io.trellara.source.capture.CaptureException;
import io.trellara.source.pgoutput.PgOutputProtocolException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Which errors of the capture thread are a lost replication connection (the engine reconnects) and
 * which are fatal (the task fails at once): the source's own exception rules first, then the
 * SQLSTATE table shared with the sink ({@link SqlFailures}). The cause chain is read from the
 * outside in; the first decisive link wins:
 *
 * <ul>
 *   <li>fatal: a pgoutput protocol violation ({@link PgOutputProtocolException}), a capture error
 *       ({@link CaptureException}, e.g. an envelope too large), a local file error ({@link
 *       UncheckedIOException} or {@link FileSystemException}: spill files), and every SQLSTATE not
 *       listed below (e.g. 28P01 authentication failed, 42704 the slot does not exist, 42501 no
 *       permission);
 *   <li>connection loss: SQLSTATE class 08 (connection exception: reset, refused, closed
 *       connection), 57P01 admin_shutdown (also pg_terminate_backend), 57P02 crash_shutdown, 57P03
 *       cannot_connect_now (the server is starting or in recovery), 53300 too_many_connections,
 *       55006 object_in_use ("replication slot is active": the old walsender holds the slot until
 *       it notices the loss); any other {@link IOException} (socket reset, EOF, TLS, time-outs).
 * </ul>
 *
 * A SQLException without a SQLSTATE is not decisive: its cause decides. Nothing decisive at all:
 * fatal.
 */
public final class ReplicationErrors {
  private ReplicationErrors() {}

  public static boolean isConnectionLoss(Throwable error) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = error; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      if (t instanceof PgOutputProtocolException
          || t instanceof CaptureException
          || t instanceof UncheckedIOException
          || t instanceof FileSystemException) {
        return false;
      }
      if (t instanceof SQLException sql
          && sql.getSQLState() != null
          && !sql.getSQLState().isBlank()) {
        return isTransientState(sql.getSQLState());
      }
      if (t instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  /**
   * The SQLSTATE part, from the one table of connect-common ({@link SqlFailures}) and 55006 (a slot
   * still held): a state the table answers RECONNECT for is a connection loss here; RETRY
   * (serialization failure, deadlock) cannot happen on a replication stream and, like every other
   * state, is fatal.
   */
  static boolean isTransientState(String sqlState) {
    // 55006 is the replication connection's own rule: the shared table fails it (for the sink it is
    // an ALTER TABLE meeting pending trigger events), here it is a slot its old walsender still
    // holds
    return SLOT_IN_USE.equals(sqlState)
        || SqlFailures.actionOf(sqlState) == FailureAction.RECONNECT;
  }

  /** object_in_use: "replication slot is active for PID ...". */
  private static final String SLOT_IN_USE = "55006";
}
