package io.trellara.source.pg;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.StringJoiner;

/**
 * Creates what capture needs when it is absent: the publication, the slot, the DDL event triggers
 * (installed again when an older version exists, which upgrades it, or when PUBLIC may still call
 * pg_logical_emit_message, which the script revokes: see {@link MessageAuthorship}); and, opted in,
 * drops the slot and the publication again ({@link #drop}).
 */
public final class SourceSetup {
  static final String DDL_SCRIPT = "/trellara-ddl-capture.sql";

  private SourceSetup() {}

  /** Returns true when it created the slot (the slot did not exist). */
  public static boolean ensure(SourceDatabase s) throws SQLException {
    return ensure(s, true);
  }

  /**
   * As {@link #ensure(SourceDatabase)}; without {@code createSlot} the slot is left to the
   * snapshot, which creates it together with its exported snapshot (the publication must exist
   * before that).
   */
  public static boolean ensure(SourceDatabase s, boolean createSlot) throws SQLException {
    boolean slotCreated = false;
    try (Connection c = s.endpoint().connect()) {
      c.setAutoCommit(true);
      if (s.autocreatePublication()
          && !exists(c, "SELECT 1 FROM pg_publication WHERE pubname = ?", s.publicationName())) {
        StringJoiner tables = new StringJoiner(", ");
        for (String t : s.tables()) {
          String[] parts = SourcePreflight.splitQualified(t);
          tables.add(PgNames.quoteIdentifier(parts[0]) + "." + PgNames.quoteIdentifier(parts[1]));
        }
        execute(
            c,
            "CREATE PUBLICATION "
                + PgNames.quoteIdentifier(s.publicationName())
                + " FOR TABLE "
                + tables);
      }
      boolean failover = s.endpoint().failover();
      if (createSlot
          && !exists(c, "SELECT 1 FROM pg_replication_slots WHERE slot_name = ?", s.slotName())) {
        // arguments: name, plugin, temporary, two_phase, failover (PostgreSQL 17+)
        try (PreparedStatement ps =
            c.prepareStatement(
                failover
                    ? "SELECT pg_create_logical_replication_slot(?, 'pgoutput', false, false, true)"
                    : "SELECT pg_create_logical_replication_slot(?, 'pgoutput')")) {
          ps.setString(1, s.slotName());
          ps.execute();
        }
        slotCreated = true;
      } else if (failover) {
        FailoverSlots.ensureFailover(c, s);
      }
      // installed again when absent, older than this connector (the sql_drop trigger came with
      // the relations field, the role fields with version 3, the schemas field with version 4), or
      // when PUBLIC may still write
      // logical
      // messages: the script is what revokes that
      if (s.ddlCapture() && s.ddlInstall() && !MessageAuthorship.installed(c)) {
        execute(c, ddlScript());
      }
    }
    return slotCreated;
  }

  /**
   * The slot's wal_status ({@code reserved}, {@code extended}, {@code unreserved}, {@code lost}; ""
   * before PostgreSQL 13), or null when the slot does not exist.
   */
  public static String slotStatus(SourceDatabase s) throws SQLException {
    try (Connection c = s.endpoint().connect()) {
      String walStatus =
          c.getMetaData().getDatabaseMajorVersion() >= 13 ? "coalesce(wal_status, '')" : "''";
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT " + walStatus + " FROM pg_replication_slots WHERE slot_name = ?")) {
        ps.setString(1, s.slotName());
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? rs.getString(1) : null;
        }
      }
    }
  }

  /**
   * Drops the slot only (a new snapshot needs a new one); waits for a walsender still holding it.
   */
  public static void dropSlot(SourceDatabase s) throws SQLException, InterruptedException {
    try (Connection c = s.endpoint().connect()) {
      c.setAutoCommit(true);
      dropSlot(c, s.slotName(), System.nanoTime() + DROP_WAIT_MS * 1_000_000L);
    }
  }

  private static boolean dropSlot(Connection c, String slot, long deadline)
      throws SQLException, InterruptedException {
    while (exists(c, "SELECT 1 FROM pg_replication_slots WHERE slot_name = ?", slot)) {
      try (PreparedStatement ps = c.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
        ps.setString(1, slot);
        ps.execute();
        return true;
      } catch (SQLException e) {
        if (!"55006".equals(e.getSQLState()) || System.nanoTime() > deadline) {
          throw e; // 55006: still active
        }
        Thread.sleep(100);
      }
    }
    return false;
  }

  /** How long {@link #drop} waits for a walsender that still holds the slot to let it go. */
  static final long DROP_WAIT_MS = 10_000;

  /**
   * Drops the slot and, when the connector manages the publication (auto-creation {@code
   * filtered}), the publication: for {@code slot.drop.on.stop}, after capture stopped. The DDL
   * event triggers stay (they are database-wide, shared by every connector on the database). A slot
   * still active (its walsender not yet gone) is retried for up to {@value #DROP_WAIT_MS} ms.
   * Returns what was dropped, for the log.
   */
  public static String drop(SourceDatabase s) throws SQLException, InterruptedException {
    StringJoiner dropped = new StringJoiner(" and ");
    try (Connection c = s.endpoint().connect()) {
      c.setAutoCommit(true);
      if (dropSlot(c, s.slotName(), System.nanoTime() + DROP_WAIT_MS * 1_000_000L)) {
        dropped.add("slot " + s.slotName());
      }
      if (s.autocreatePublication()
          && exists(c, "SELECT 1 FROM pg_publication WHERE pubname = ?", s.publicationName())) {
        execute(c, "DROP PUBLICATION " + PgNames.quoteIdentifier(s.publicationName()));
        dropped.add("publication " + s.publicationName());
      }
    }
    return dropped.length() == 0 ? "nothing (neither existed)" : dropped.toString();
  }

  static String ddlScript() {
    try (InputStream in = SourceSetup.class.getResourceAsStream(DDL_SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException(DDL_SCRIPT + " is missing from the plugin");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + DDL_SCRIPT, e);
    }
  }

  private static boolean exists(Connection c, String sql, String arg) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, arg);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
