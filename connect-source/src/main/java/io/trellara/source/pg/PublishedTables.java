package io.trellara.source.pg;

import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.capture.ddl.OwningRelation;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads what a publication covers (FOR ALL TABLES, FOR TABLES IN SCHEMA, listed tables with their
 * OIDs): the tables whose DDL the source publishes, before any of them has sent a change.
 */
public final class PublishedTables {

  private PublishedTables() {}

  /**
   * The publication's tables, and the roles whose DDL messages are published: {@code ddlRoles} when
   * the operator named some ({@code ddl.message.roles}), else the tables' owners ({@link
   * MessageAuthorship#ownerRoles}).
   */
  public static CapturedTables load(SourceDatabase s, Set<String> ddlRoles) throws SQLException {
    try (Connection c = s.endpoint().connect()) {
      CapturedTables tables = load(c, s.publicationName());
      return ddlRoles == null || ddlRoles.isEmpty() ? tables : tables.withDdlRoles(ddlRoles);
    }
  }

  /** The publication's tables; DDL messages are published from the roles that own them. */
  public static CapturedTables load(Connection c, String publication) throws SQLException {
    boolean all = false;
    try (PreparedStatement ps =
        c.prepareStatement("SELECT puballtables FROM pg_publication WHERE pubname = ?")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        all = rs.next() && rs.getBoolean(1);
      }
    }
    Set<String> schemas = new HashSet<>();
    if (c.getMetaData().getDatabaseMajorVersion() >= 15) { // FOR TABLES IN SCHEMA came with 15
      try (PreparedStatement ps =
          c.prepareStatement(
              """
                    SELECT n.nspname FROM pg_publication_namespace pn
                    JOIN pg_publication p ON p.oid = pn.pnpubid JOIN pg_namespace n ON n.oid = pn.pnnspid
                    WHERE p.pubname = ?""")) {
        ps.setString(1, publication);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            schemas.add(rs.getString(1));
          }
        }
      }
    }
    List<OwningRelation> tables = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
                SELECT c.oid, n.nspname, c.relname FROM pg_publication_tables t
                JOIN pg_namespace n ON n.nspname = t.schemaname
                JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename
                WHERE t.pubname = ?""")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          tables.add(new OwningRelation(rs.getString(2), rs.getString(3), rs.getLong(1)));
        }
      }
    }
    return new CapturedTables(all, schemas, tables, MessageAuthorship.ownerRoles(c, publication));
  }
}
