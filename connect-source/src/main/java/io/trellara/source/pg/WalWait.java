package io.trellara.source.pg;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.PGStream;
import org.postgresql.core.QueryExecutorBase;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits on a replication connection's socket until the next message's first byte is there, or a
 * timeout. pgjdbc's {@code readPending()} only peeks for a millisecond: every look that finds
 * nothing costs a socket timeout and its exception, up to a thousand a second while a stream is
 * busy between transactions and (with the engine's IdleWait's pauses) about ninety a second idle.
 * This wait wakes the moment a byte arrives, like that peek, but times out once per {@code
 * timeoutMillis}, so the capture thread reads a transaction as soon as it comes and an idle stream
 * costs ten looks a second.
 *
 * <p>It peeks at the connection's {@code PGStream}, which pgjdbc keeps in a protected field of its
 * query executor (read once by reflection). The peek reads into pgjdbc's own buffer and consumes
 * nothing, exactly as {@code readPending()}'s does, on the capture thread that owns the connection.
 * A pgjdbc without that field gives a wait that never waits ({@link #waits()} false), and the
 * engine looks as before.
 *
 * <p>The peek asks pgjdbc for a read timeout ({@code PGStream.setNetworkTimeout}) and then puts the
 * socket back as the replication protocol set it: its timeout the status interval, which pgjdbc's
 * own reads retry through. A read left throwing on that timeout would let a stop over a connection
 * that lost every packet end its thread by itself, without the abort that also ends the walsender
 * ({@code SlotReleaseIT}).
 */
public final class WalWait {
  private static final Logger LOG = LoggerFactory.getLogger(WalWait.class);
  private static final Field PG_STREAM = pgStreamField();

  private final PGStream stream;

  private WalWait(PGStream stream) {
    this.stream = stream;
  }

  /**
   * The wait on {@code connection}'s socket, or one that never waits when this pgjdbc does not
   * allow it.
   */
  public static WalWait on(Connection connection) {
    if (PG_STREAM != null) {
      try {
        if (connection.unwrap(BaseConnection.class).getQueryExecutor()
            instanceof QueryExecutorBase q) {
          return new WalWait((PGStream) PG_STREAM.get(q));
        }
      } catch (SQLException | IllegalAccessException | ClassCastException e) {
        LOG.debug("No wait on the replication socket: {}", e.toString());
      }
    }
    return new WalWait(null);
  }

  /**
   * Whether {@link #await} waits on the socket; false: it returns at once and the caller paces its
   * looks.
   */
  public boolean waits() {
    return stream != null;
  }

  /**
   * True as soon as a message's first byte is buffered (at once if it is already), false after
   * {@code timeoutMillis} without one; true at once when it {@link #waits() does not wait}.
   */
  public boolean await(int timeoutMillis) throws SQLException {
    if (stream == null) {
      return true;
    }
    try {
      int previous = stream.getNetworkTimeout();
      stream.setNetworkTimeout(timeoutMillis);
      try {
        stream.peekChar();
        return true;
      } catch (SocketTimeoutException e) {
        return false;
      } finally {
        // as before: the socket's timeout, and reads inside a message that retry through it (pgjdbc
        // asks
        // for the timeout to be thrown only while one is set through setNetworkTimeout)
        stream.setNetworkTimeout(0);
        stream.getSocket().setSoTimeout(previous);
      }
    } catch (IOException e) { // a closed or broken connection: the stream's next read says so too
      throw new PSQLException(
          "the replication connection failed while waiting for WAL: " + e,
          PSQLState.CONNECTION_FAILURE,
          e);
    }
  }

  private static Field pgStreamField() {
    try {
      Field f = QueryExecutorBase.class.getDeclaredField("pgStream");
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      LOG.info(
          "pgjdbc {} keeps no PGStream to wait on; the capture thread looks for WAL every millisecond"
              + " while the stream is busy ({})",
          org.postgresql.util.DriverInfo.DRIVER_VERSION,
          e.toString());
      return null;
    }
  }
}
