package io.trellara.source.pg;

import io.trellara.protocol.Lsn;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a non-transactional logical message ({@value #PREFIX}, empty content) on the source
 * database every interval, over an ordinary connection kept open between beats. The message is
 * decoded by the slot like any WAL of the database, so the stream carries a position past the busy,
 * uncaptured part of the WAL even when the captured tables are idle; the capture engine recognises
 * it ({@link #isHeartbeat}), never publishes it, and confirms the slot up to it when nothing it
 * handed over is still unacknowledged (see CaptureEngine#report).
 *
 * <p>The prefix differs from the DDL capture's ({@code trellara.ddl}), and DDL messages are
 * transactional while heartbeats are not, so neither can be taken for the other. A failed beat
 * (server away, a standby, no privilege) never affects capture: it is logged (WARN for the first of
 * a run of failures, INFO when beats succeed again) and the next beat opens a new connection.
 *
 * <p>With an action query ({@code heartbeat.action.query}, the operator's own statement from the
 * connector configuration) each beat runs it first, on the same connection in autocommit: a write
 * to a captured table gives the stream a captured change to advance on, for roles that may not
 * write logical messages. It fails and recovers like the message.
 */
public final class Heartbeat implements AutoCloseable {
  /** Where a heartbeat's outcome is reported (the engine's metrics). */
  public interface Listener {
    /** A heartbeat was written at {@code lsn}. */
    void heartbeatSent(long lsn);

    /** A heartbeat could not be written. */
    void heartbeatFailed(String cause);
  }

  static final String PREFIX = "trellara.heartbeat";
  static final String SQL = "SELECT pg_logical_emit_message(false, '" + PREFIX + "', '')::text";
  private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);

  private final PgEndpoint endpoint;
  private final String slotName;
  private final long intervalMs;
  private final String actionQuery;
  private final Listener metrics;
  private ScheduledExecutorService scheduler;
  private Connection connection; // scheduler thread only (and close, after the scheduler ended)
  private boolean failing;

  public Heartbeat(PgEndpoint endpoint, String slotName, long intervalMs, Listener metrics) {
    this(endpoint, slotName, intervalMs, "", metrics);
  }

  /** With {@code actionQuery} ("" for none) run before each heartbeat message. */
  public Heartbeat(
      PgEndpoint endpoint, String slotName, long intervalMs, String actionQuery, Listener metrics) {
    this.endpoint = endpoint;
    this.slotName = slotName;
    this.intervalMs = intervalMs;
    this.actionQuery = actionQuery == null ? "" : actionQuery;
    this.metrics = metrics;
  }

  /**
   * True for a heartbeat of any Trellara source on this database (another connector's are no data
   * either).
   */
  public static boolean isHeartbeat(boolean transactional, String prefix) {
    return !transactional && PREFIX.equals(prefix);
  }

  public void start() {
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "trellara-heartbeat-" + slotName);
              t.setDaemon(true);
              return t;
            });
    scheduler.scheduleWithFixedDelay(this::beat, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    LOG.info(
        "Heartbeat of slot {} every {} ms (logical message {}{})",
        slotName,
        intervalMs,
        PREFIX,
        actionQuery.isEmpty() ? "" : ", after heartbeat.action.query");
  }

  /** One heartbeat; never throws (a throwing task would end the schedule). */
  void beat() {
    try {
      if (connection == null || connection.isClosed()) {
        connection = endpoint.connect();
        connection.setAutoCommit(true);
      }
      String lsn;
      try (Statement st = connection.createStatement()) {
        st.setQueryTimeout(30);
        if (!actionQuery.isEmpty()) {
          st.execute(actionQuery);
        }
        try (ResultSet rs = st.executeQuery(SQL)) {
          rs.next();
          lsn = rs.getString(1);
        }
      }
      metrics.heartbeatSent(Lsn.parse(lsn).value());
      if (failing) {
        failing = false;
        LOG.info("Heartbeat of slot {} emitted again (at {})", slotName, lsn);
      } else {
        LOG.debug("Heartbeat of slot {} emitted at {}", slotName, lsn);
      }
    } catch (SQLException | RuntimeException e) {
      String cause =
          e.getMessage()
              + (e instanceof SQLException s ? " (SQLSTATE " + s.getSQLState() + ")" : "");
      metrics.heartbeatFailed(cause);
      if (!failing) {
        failing = true;
        LOG.warn(
            "Heartbeat of slot {} could not be emitted: {}; capture is unaffected, the next beat"
                + " retries (on a standby, or without EXECUTE on pg_logical_emit_message, set"
                + " heartbeat.interval.ms=0)",
            slotName,
            cause);
      } else {
        LOG.debug("Heartbeat of slot {} failed again: {}", slotName, cause);
      }
      closeConnection();
    }
  }

  private void closeConnection() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        LOG.debug("Closing the heartbeat connection of slot {}: {}", slotName, e.toString());
      }
    }
  }

  @Override
  public void close() {
    if (scheduler == null) {
      return;
    }
    scheduler.shutdownNow();
    try {
      if (!scheduler.awaitTermination(5, TimeUnit.SECONDS)) {
        LOG.warn("The heartbeat thread of slot {} did not end within 5 s", slotName);
        return; // still using the connection: it ends with the thread's query time-out
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    closeConnection();
  }
}
