package io.trellara.source.pg;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Who can write a {@code trellara.ddl} message, and so who a DDL message's {@code role} field can
 * be trusted from. The event trigger (trellara-ddl-capture.sql, version 3) records the role of the
 * DDL inside its SECURITY DEFINER function, where the DDL's author cannot choose it; but a direct
 * call of {@code pg_logical_emit_message} can write any content under the same prefix, so the field
 * is only worth something once no untrusted role can make that call. The script revokes EXECUTE
 * from PUBLIC; this class says whether that (and the current trigger) is in place, for the setup
 * and for {@code validate()}.
 */
public final class MessageAuthorship {
  static final String DDL_CAPTURE_PROPERTY = "ddl.capture.enabled";
  static final String ROLES_PROPERTY = "ddl.message.roles";

  /**
   * The installed script's version: 4 adds each table's post-statement columns ({@code schemas}).
   */
  static final String VERSION_MARK = "trellara-ddl-capture version 4";

  /** The oldest version that records the role: an older trigger's messages are all refused. */
  static final String ROLE_VERSION_MARK = "trellara-ddl-capture version 3";

  private MessageAuthorship() {}

  /**
   * True when both event triggers exist, emit_ddl is of the current version (it records the role),
   * and PUBLIC cannot call pg_logical_emit_message: nothing for the setup script to do.
   */
  static boolean installed(Connection c) throws SQLException {
    return triggersCurrent(c) && publicEmitters(c).isEmpty();
  }

  private static boolean triggersCurrent(Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            """
                SELECT (SELECT count(*) FROM pg_event_trigger
                         WHERE evtname IN ('trellara_ddl_capture', 'trellara_ddl_capture_drop')) = 2
                   AND EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                                WHERE n.nspname = 'trellara' AND p.proname = 'emit_ddl'
                                  AND strpos(p.prosrc, ?) > 0)""")) {
      ps.setString(1, VERSION_MARK);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  /**
   * The signatures of pg_logical_emit_message PUBLIC may still execute (3 arguments before
   * PostgreSQL 17, 4 from 17 on); empty once the script revoked them.
   */
  static List<String> publicEmitters(Connection c) throws SQLException {
    List<String> signatures = new ArrayList<>();
    try (PreparedStatement ps =
            c.prepareStatement(
                """
                SELECT p.oid::regprocedure::text FROM pg_proc p
                 WHERE p.proname = 'pg_logical_emit_message'
                   AND p.pronamespace = 'pg_catalog'::regnamespace
                   AND has_function_privilege('public', p.oid, 'EXECUTE')
                 ORDER BY 1""");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        signatures.add(rs.getString(1));
      }
    }
    return signatures;
  }

  /**
   * The roles whose DDL messages are published when {@code ddl.message.roles} is empty: every role
   * with the privileges of an owner of a table of the publication (the owners and their members
   * that inherit) and every superuser (who can write any message anyway, and may own no table yet:
   * a FOR ALL TABLES publication of an empty database).
   */
  static Set<String> ownerRoles(Connection c, String publication) throws SQLException {
    Set<String> roles = new LinkedHashSet<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
                SELECT r.rolname FROM pg_roles r
                 WHERE r.rolsuper OR EXISTS (SELECT 1 FROM pg_publication_tables t
                                 JOIN pg_namespace n ON n.nspname = t.schemaname
                                 JOIN pg_class k ON k.relnamespace = n.oid AND k.relname = t.tablename
                                WHERE t.pubname = ? AND pg_has_role(r.oid, k.relowner, 'USAGE'))
                 ORDER BY 1""")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          roles.add(rs.getString(1));
        }
      }
    }
    return roles;
  }

  /**
   * The preflight's part: with DDL capture on, an installed trigger older than version 3 (its
   * messages carry no role and would all be refused) or PUBLIC still able to write logical messages
   * (any role that can log in could forge a DDL message) is a problem, unless the task's start will
   * fix both (installation on, connected as a superuser).
   */
  static void check(Connection c, SourceDatabase s, List<SourceProblem> problems)
      throws SQLException {
    if (!s.ddlCapture()) {
      return;
    }
    unknownRoles(c, s, problems);
    if (s.ddlInstall() && superuser(c)) {
      return;
    }
    List<String> open = publicEmitters(c);
    if (!open.isEmpty()) {
      StringBuilder revoke = new StringBuilder();
      for (String signature : open) {
        revoke
            .append("REVOKE EXECUTE ON FUNCTION pg_catalog.")
            .append(signature)
            .append(" FROM PUBLIC; ");
      }
      problems.add(
          new SourceProblem(
              DDL_CAPTURE_PROPERTY,
              "PUBLIC can execute "
                  + String.join(" and ", open)
                  + ": any role that can log in can write a trellara.ddl message with a forged"
                  + " role, and the source would publish it. Run as a superuser on the source"
                  + " database: "
                  + revoke
                  + "(trellara-ddl-capture.sql does it), grant EXECUTE only to roles as trusted as"
                  + " the tables' owners (the connector's role, for heartbeats), or set "
                  + DDL_CAPTURE_PROPERTY
                  + "=false."));
    }
    if (olderTrigger(c)) {
      problems.add(
          new SourceProblem(
              DDL_CAPTURE_PROPERTY,
              "The DDL event trigger of trellara-ddl-capture.sql is older than"
                  + " version 3, which records the role of each DDL: without it every DDL message"
                  + " is refused. Run trellara-ddl-capture.sql as a superuser on the source"
                  + " database, or set "
                  + DDL_CAPTURE_PROPERTY
                  + "=false."));
    }
  }

  /** A role of ddl.message.roles that does not exist would refuse every DDL of the role meant. */
  private static void unknownRoles(Connection c, SourceDatabase s, List<SourceProblem> problems)
      throws SQLException {
    if (s.ddlMessageRoles() == null) {
      return;
    }
    for (String role : s.ddlMessageRoles()) {
      try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_roles WHERE rolname = ?")) {
        ps.setString(1, role);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            problems.add(
                new SourceProblem(
                    ROLES_PROPERTY,
                    "Role \""
                        + role
                        + "\" of "
                        + ROLES_PROPERTY
                        + " does not exist on the source server (role names are case-sensitive):"
                        + " the DDL of the role meant would be refused. Fix the name."));
          }
        }
      }
    }
  }

  private static boolean olderTrigger(Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            """
                SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                 WHERE n.nspname = 'trellara' AND p.proname = 'emit_ddl' AND strpos(p.prosrc, ?) = 0
                   AND strpos(p.prosrc, ?) = 0""")) {
      ps.setString(1, ROLE_VERSION_MARK);
      ps.setString(2, VERSION_MARK);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static boolean superuser(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement("SELECT rolsuper FROM pg_roles WHERE rolname = current_user");
        ResultSet rs = ps.executeQuery()) {
      return rs.next() && rs.getBoolean(1);
    }
  }
}
