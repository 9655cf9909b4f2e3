package io.trellara.sink.postgres.session;

import io.trellara.protocol.LogText;
import io.trellara.sink.port.StagingSignal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The staging signal on PostgreSQL: every staging transaction that keeps partitioned chunks runs
 * {@code pg_notify('trellara_sink_staged', <sink name>)}, delivered when (and only if) it commits;
 * a task whose barriers wait listens on its own connection (one per task, opened the first time a
 * barrier waits) and is woken by it. A connection that fails is closed, and listening starts again
 * {@link #REOPEN_AFTER_NANOS} later; meanwhile the driver looks again at its recheck interval, so a
 * lost signal delays a barrier, never loses it.
 */
public final class StagingWakeups implements StagingSignal {
  /** The channel staging notifies on; the payload is the sink's name. */
  public static final String CHANNEL = "trellara_sink_staged";

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(StagingWakeups.class);
  private static final long REOPEN_AFTER_NANOS = 5_000_000_000L;

  private final ConnectionFactory connections;
  private final String sinkName;
  private final AtomicLong wakeups;
  private Connection connection;
  private long failedAt;
  private boolean warned;

  public StagingWakeups(ConnectionFactory connections, String sinkName, AtomicLong wakeups) {
    this.connections = connections;
    this.sinkName = sinkName;
    this.wakeups = wakeups;
  }

  /** Signals, with the staging transaction of {@code s}, that chunks of this sink were staged. */
  public static void notifyStaged(TargetSession s, String sinkName) throws SQLException {
    java.sql.PreparedStatement ps = s.prepare("SELECT pg_notify(?, ?)");
    ps.setString(1, CHANNEL);
    ps.setString(2, sinkName);
    ps.execute();
  }

  @Override
  public boolean listening() {
    if (connection != null) {
      return true;
    }
    if (failedAt != 0 && System.nanoTime() - failedAt < REOPEN_AFTER_NANOS) {
      return false;
    }
    try {
      Connection c = connections.open();
      c.setAutoCommit(true);
      try (Statement st = c.createStatement()) {
        st.execute("LISTEN " + CHANNEL);
      }
      c.unwrap(PGConnection.class); // a PostgreSQL connection, or it cannot listen
      connection = c;
      failedAt = 0;
      if (warned) {
        LOG.info("Sink {} listens for staged chunks again", LogText.escape(sinkName));
        warned = false;
      }
      return true;
    } catch (SQLException | RuntimeException e) {
      failed(e);
      return false;
    }
  }

  @Override
  public boolean await(long millis) {
    if (!listening()) {
      return false;
    }
    try {
      PGConnection pg = connection.unwrap(PGConnection.class);
      // getNotifications(0) would block without end: no wait reads what has come
      PGNotification[] got =
          millis <= 0 ? pg.getNotifications() : pg.getNotifications((int) Math.min(millis, 1_000));
      boolean woken = false;
      if (got != null) {
        for (PGNotification n : got) {
          woken |= sinkName.equals(n.getParameter());
        }
      }
      if (woken) {
        wakeups.incrementAndGet();
      }
      return woken;
    } catch (SQLException e) {
      failed(e);
      return false;
    }
  }

  private void failed(Exception e) {
    close();
    failedAt = System.nanoTime();
    if (!warned) {
      warned = true;
      LOG.warn(
          "Sink {} cannot listen for staged chunks ({}); waiting barriers are looked at on the"
              + " recheck interval until it can",
          LogText.escape(sinkName),
          LogText.escape(String.valueOf(e.getMessage())));
    }
  }

  @Override
  public void close() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        LOG.debug("closing the listening connection", e);
      }
    }
  }
}
