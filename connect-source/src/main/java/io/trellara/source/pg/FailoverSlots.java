package io.trellara.source.pg;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.ReplicationSlotInfo;
import org.postgresql.replication.ReplicationType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failover slots ({@code slot.failover}, PostgreSQL 17+): a logical slot created with {@code
 * failover => true}, which every standby running with {@code sync_replication_slots=on} keeps
 * synchronised, so that the promoted standby holds the slot at a position the source never passed.
 *
 * <p>What the primary can tell is checked ({@link #check}): the server's version, and {@code
 * synchronized_standby_slots}, which makes the primary's logical walsenders wait until the listed
 * standbys have received the WAL they decode; without it the task could publish a transaction the
 * standby never received, which the promoted standby would then not have (the target would hold a
 * row its new source lacks). Each listed name must be a physical slot on the primary. What only the
 * standby knows ({@code sync_replication_slots}, {@code hot_standby_feedback}, {@code
 * primary_slot_name}, the dbname in {@code primary_conninfo}) is documented in docs/operations.md,
 * "Failover slots".
 */
public final class FailoverSlots {
  private static final Logger LOG = LoggerFactory.getLogger(FailoverSlots.class);

  /** The setting (named in every problem). */
  public static final String PROPERTY = "slot.failover";

  /** The first PostgreSQL major version with failover slots. */
  public static final int MIN_VERSION = 17;

  static final String STANDBY_SLOTS = "synchronized_standby_slots";

  private FailoverSlots() {}

  /** Adds the problems of {@code slot.failover=true} on the server {@code c} is connected to. */
  static void check(Connection c, List<SourceProblem> problems) throws SQLException {
    SourceProblem version =
        versionProblem(
            Integer.parseInt(single(c, "SHOW server_version_num")),
            single(c, "SHOW server_version"));
    if (version != null) {
      problems.add(version);
      return;
    }
    if ("true".equals(single(c, "SELECT pg_is_in_recovery()::text"))) {
      problems.add(
          new SourceProblem(
              PROPERTY,
              PROPERTY
                  + "=true, but the server is a standby (in recovery): a failover slot is created"
                  + " and used on the primary, and synchronised to the standbys. Point"
                  + " database.hostname at the primary."));
      return;
    }
    List<String> standbySlots = standbySlots(single(c, "SHOW " + STANDBY_SLOTS));
    if (standbySlots.isEmpty()) {
      problems.add(
          new SourceProblem(
              PROPERTY,
              PROPERTY
                  + "=true, but the primary's "
                  + STANDBY_SLOTS
                  + " is empty: without it the task can publish transactions the standby has not"
                  + " received yet, which are missing on it after a promotion. Set it to the"
                  + " physical slot of each standby that may be promoted (ALTER SYSTEM SET "
                  + STANDBY_SLOTS
                  + " = 'standby1'; SELECT pg_reload_conf()), the slot each standby names in"
                  + " primary_slot_name."));
      return;
    }
    for (String slot : standbySlots) {
      String type = slotType(c, slot);
      if (type == null) {
        problems.add(
            new SourceProblem(
                PROPERTY,
                "The primary's "
                    + STANDBY_SLOTS
                    + " names slot '"
                    + slot
                    + "', which does not exist: the primary's logical walsenders then wait for it"
                    + " forever. Create it (SELECT pg_create_physical_replication_slot('"
                    + slot
                    + "', true)) and set primary_slot_name = '"
                    + slot
                    + "' on the standby, or remove it from "
                    + STANDBY_SLOTS
                    + "."));
      } else if (!"physical".equals(type)) {
        problems.add(
            new SourceProblem(
                PROPERTY,
                "The primary's "
                    + STANDBY_SLOTS
                    + " names slot '"
                    + slot
                    + "', a "
                    + type
                    + " slot: it must list the physical slots of the standbys (their"
                    + " primary_slot_name)."));
      }
    }
  }

  /** The refusal of {@code slot.failover=true} below PostgreSQL 17, with the reason; else null. */
  static SourceProblem versionProblem(int versionNum, String version) {
    if (versionNum >= MIN_VERSION * 10_000) {
      return null;
    }
    return new SourceProblem(
        PROPERTY,
        PROPERTY
            + "=true needs PostgreSQL "
            + MIN_VERSION
            + " or later, but the server runs "
            + version
            + ": failover slots (the failover argument of pg_create_logical_replication_slot,"
            + " sync_replication_slots on the standby) came with PostgreSQL 17. Set "
            + PROPERTY
            + "=false (after a promotion the slot is then missing on the new primary) or upgrade"
            + " the server.");
  }

  /** The slot names of a {@code synchronized_standby_slots} value (comma-separated, quoted). */
  static List<String> standbySlots(String value) {
    List<String> slots = new ArrayList<>();
    if (value == null) {
      return slots;
    }
    for (String part : value.split(",")) {
      String name = part.trim();
      if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
        name = name.substring(1, name.length() - 1).replace("\"\"", "\"");
      }
      if (!name.isEmpty()) {
        slots.add(name);
      }
    }
    return slots;
  }

  /**
   * Makes the existing slot of {@code s} a failover slot when it is not one yet ({@code
   * ALTER_REPLICATION_SLOT ... (FAILOVER true)}, over a replication connection: the only way
   * PostgreSQL 17 offers). The slot must not be in use; a failure names the slot and the setting.
   */
  static void ensureFailover(Connection c, SourceDatabase s) throws SQLException {
    String failover;
    try (PreparedStatement ps =
        c.prepareStatement("SELECT failover::text FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, s.slotName());
      try (ResultSet rs = ps.executeQuery()) {
        failover = rs.next() ? rs.getString(1) : null;
      }
    }
    if (failover == null || "true".equals(failover)) {
      return; // absent (the snapshot creates it) or already a failover slot
    }
    try (Connection r = s.endpoint().connectForReplication();
        Statement st = r.createStatement()) {
      st.execute("ALTER_REPLICATION_SLOT " + PgNames.quoteIdentifier(s.slotName()) + " (FAILOVER)");
    } catch (SQLException e) {
      throw new SQLException(
          "Slot "
              + s.slotName()
              + " exists without failover and "
              + PROPERTY
              + "=true, but ALTER_REPLICATION_SLOT "
              + s.slotName()
              + " (FAILOVER) failed: "
              + e.getMessage()
              + ". Stop whatever uses the slot and retry, or run it yourself over a replication"
              + " connection (psql \"dbname=... replication=database\").",
          e.getSQLState(),
          e);
    }
    LOG.info("Slot {} existed without failover: altered to a failover slot", s.slotName());
  }

  /**
   * Creates a failover slot with an exported snapshot on the replication connection {@code r}
   * (PostgreSQL 17: {@code CREATE_REPLICATION_SLOT name LOGICAL pgoutput (SNAPSHOT 'export',
   * FAILOVER)}; pgjdbc's builder has no failover option). A temporary slot cannot fail over.
   */
  public static ReplicationSlotInfo createWithSnapshot(Connection r, String slotName)
      throws SQLException {
    try (Statement st = r.createStatement()) {
      st.execute(
          "CREATE_REPLICATION_SLOT "
              + PgNames.quoteIdentifier(slotName)
              + " LOGICAL pgoutput (SNAPSHOT 'export', FAILOVER)");
      try (ResultSet rs = st.getResultSet()) {
        if (rs == null || !rs.next()) {
          throw new SQLException("CREATE_REPLICATION_SLOT " + slotName + " returned no row");
        }
        return new ReplicationSlotInfo(
            rs.getString("slot_name"),
            ReplicationType.LOGICAL,
            LogSequenceNumber.valueOf(rs.getString("consistent_point")),
            rs.getString("snapshot_name"),
            rs.getString("output_plugin"));
      }
    }
  }

  private static String slotType(Connection c, String slot) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT slot_type FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private static String single(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
