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
    try (Connection c = endpoint.connectForReplication();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("IDENTIFY_SYSTEM")) {
      if (!rs.next()) {
        throw new SQLException("IDENTIFY_SYSTEM returned no row");
      }
      return new ServerIdentity(rs.getString("systemid"), rs.getLong("timeline"));
    }
  }

  @Override
  public String toString() {
    return "system identifier " + systemId + ", timeline " + timeline;
  }
}
