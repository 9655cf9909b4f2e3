package io.trellara.sink.postgres.session;

import io.trellara.connect.common.liveness.Stage;
import io.trellara.connect.common.liveness.Stall;
import io.trellara.connect.common.liveness.StallHandler;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a task's watchdog does when a target session's work makes no progress past its bound: it
 * looks at the session's server process on a connection of its own ({@code pg_stat_activity},
 * {@code pg_blocking_pids}). A statement the server is still working on (not waiting on a lock) is
 * given more time; anything else (a lock wait, a COPY whose rows the server no longer takes, a
 * server that does not answer) is cancelled on the server, so the task thread wakes, rolls back and
 * fails as {@code STALLED} naming what it waited for. If the cancel does not wake it within {@value
 * #ABORT_AFTER_SECONDS} s, the server process is terminated and the connection closed under it.
 */
public final class SessionWatch implements StallHandler {
  private static final Logger LOG = LoggerFactory.getLogger(SessionWatch.class);

  /** The watchdog's own connection gives up after this long. */
  static final int LOOK_SECONDS = 10;

  /** A cancelled statement that has not returned after this long is killed with its connection. */
  static final int ABORT_AFTER_SECONDS = 5;

  private static final String LOOK =
      "SELECT state, wait_event_type, wait_event, pg_catalog.pg_blocking_pids(pid)::text,"
          + " pg_catalog.left(query, 200) FROM pg_catalog.pg_stat_activity WHERE pid = ?";

  private static final ScheduledExecutorService LATER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "trellara-sink-watchdog-abort");
            t.setDaemon(true);
            return t;
          });
  private static final Executor ABORTS = Runnable::run;

  private final ConnectionFactory connections;
  private volatile TargetSession session;
  private volatile Stage stage;

  public SessionWatch(ConnectionFactory connections) {
    this.connections = connections;
  }

  /** The stage whose stalls this handles (set once the watchdog made it). */
  public void stage(Stage s) {
    this.stage = s;
  }

  public Stage stage() {
    return stage;
  }

  /** The session whose work the stage watches now (null: none open). */
  public void watch(TargetSession s) {
    this.session = s;
  }

  /** What the server says about one backend. */
  record Look(boolean found, String state, String waitType, String waitEvent, String blockers) {
    /** The server is working on the statement (not waiting for a lock or for us). */
    boolean working() {
      return found
          && "active".equals(state)
          && !"Lock".equals(waitType)
          && !"Client".equals(waitType)
          && !"BufferPin".equals(waitType);
    }

    String describe() {
      if (!found) {
        return "the target has no such server process any more";
      }
      return "the target's server process is "
          + state
          + (waitType == null ? "" : ", waiting on " + waitType + "/" + waitEvent)
          + (blockers == null || "{}".equals(blockers)
              ? ""
              : ", blocked by the lock holder(s) with pid " + blockers);
    }
  }

  @Override
  public void stalled(Stall stall) {
    TargetSession s = session;
    if (s == null || s.isClosed()) {
      return;
    }
    Look look;
    try {
      look = look(s.backendPid());
    } catch (SQLException e) {
      look = null;
      LOG.warn(
          "Watchdog: cannot look at the target's server process {} ({}): the target does not"
              + " answer",
          s.backendPid(),
          e.getMessage());
    }
    boolean copying = s.state() == TargetSession.State.IN_COPY;
    if (look != null && look.working() && !copying) {
      LOG.info(
          "Watchdog: {} has run for {} ms; the target is still working on it ({}): it gets more"
              + " time",
          s.doing(),
          stall.waitedMillis(),
          look.describe());
      Stage st = stage;
      if (st != null) {
        st.progress();
      }
      return;
    }
    String why =
        stall.describe()
            + ": "
            + s.doing()
            + "; "
            + (look == null
                ? "the target did not answer the watchdog's own query"
                : look.describe());
    LOG.error("STALLED: {}. Cancelling it on the target and rolling back", why);
    s.cancelStalled(why);
    LATER.schedule(() -> abortIfStill(s, why), ABORT_AFTER_SECONDS, TimeUnit.SECONDS);
  }

  private void abortIfStill(TargetSession s, String why) {
    if (s.isClosed() || s.stalled() == null || session != s) {
      return; // the task thread woke, rolled back and reported it
    }
    LOG.error(
        "STALLED: the cancel did not end {} within {} s; terminating target backend {} and closing"
            + " the connection",
        s.doing(),
        ABORT_AFTER_SECONDS,
        s.backendPid());
    terminate(s.backendPid());
    s.abortStalled(ABORTS);
  }

  private Look look(int pid) throws SQLException {
    try (Connection c = connections.openBounded(LOOK_SECONDS);
        PreparedStatement ps = c.prepareStatement(LOOK)) {
      ps.setInt(1, pid);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new Look(false, null, null, null, null);
        }
        return new Look(true, rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4));
      }
    }
  }

  private void terminate(int pid) {
    try (Connection c = connections.openBounded(LOOK_SECONDS);
        PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.pg_terminate_backend(?)")) {
      ps.setInt(1, pid);
      ps.execute();
    } catch (SQLException e) {
      LOG.warn("Watchdog: cannot terminate target backend {}: {}", pid, e.getMessage());
    }
  }
}
