package io.trellara.source.pg;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Which WAL history a server writes: its system identifier (fixed by initdb, kept by a physical
 * backup and by every standby made from it) and its current timeline (raised by each promotion or
 * point-in-time recovery). An LSN only means something together with these.
 *
 * <p>Read with {@code IDENTIFY_SYSTEM} over a replication connection rather than {@code
 * pg_control_system()} / {@code pg_control_checkpoint()}: it needs only the REPLICATION attribute
 * the source already requires (the control functions may be revoked from PUBLIC), it answers the
 * walsender's current timeline (the checkpoint's timeline lags a promotion until the next
 * checkpoint), and it is one round trip; pgjdbc runs it as a simple query on a {@code
 * replication=database} connection.
 */
public record ServerIdentity(String systemId, long timeline) {

  /** Asks the server over a short-lived replication connection. */
  public static ServerIdentity of(PgEndpoint endpoint) throws SQLException {
    try (Connection c = endpoint.connectForReplication()) {
      return of(c);
    }
  }

  /** Asks the server on the replication connection {@code c} (before it starts streaming). */
  public static ServerIdentity of(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("IDENTIFY_SYSTEM")) {
      if (!rs.next()) {
        throw new SQLException("IDENTIFY_SYSTEM returned no row");
      }
      return new ServerIdentity(rs.getString("systemid"), rs.getLong("timeline"));
    }
  }

  /**
   * Whether a replication connection regained while the task runs may go on streaming: from {@code
   * previous} (the server of the last connection; null: the first) to {@code now}. Null when
   * nothing changed; a message to log (WARN) for a higher timeline of the same system (a promoted
   * standby, e.g. with slot.failover); throws {@link IllegalStateException} (fatal: the task fails
   * and its start decides again) for another system identifier or a lower timeline (an old primary
   * that came back as a primary beside the promoted one: its WAL after the switch point is another
   * history).
   */
  public static String continuation(ServerIdentity previous, ServerIdentity now, String slot) {
    if (previous == null || previous.equals(now)) {
      return null;
    }
    if (!previous.systemId().equals(now.systemId())) {
      throw new IllegalStateException(
          "The replication connection of slot "
              + slot
              + " was regained on another cluster ("
              + now
              + ") than it streamed from ("
              + previous
              + "): its LSNs belong to another WAL history. The task stops; check which servers "
              + "database.hostname lists.");
    }
    if (now.timeline() < previous.timeline()) {
      throw new IllegalStateException(
          "The replication connection of slot "
              + slot
              + " was regained on timeline "
              + now.timeline()
              + ", older than timeline "
              + previous.timeline()
              + " it streamed from (system identifier "
              + now.systemId()
              + "): an old primary running again beside the promoted one, whose WAL after the"
              + " switch is another history. The task stops; make the old primary a standby of"
              + " the new one, or remove it from database.hostname.");
    }
    return "Replication connection of slot "
        + slot
        + " regained on timeline "
        + now.timeline()
        + " (was "
        + previous.timeline()
        + ", system identifier "
        + now.systemId()
        + "): a promoted standby; streaming goes on from its slot";
  }

  @Override
  public String toString() {
    return "system identifier " + systemId + ", timeline " + timeline;
  }
}
