package io.trellara.source.capture.ddl;

import java.util.List;
import java.util.Set;

/**
 * The tables this connector's publication covers, as known when capture started: a FOR ALL TABLES
 * flag, the schemas of FOR TABLES IN SCHEMA, and the listed tables (with their OIDs, so a later
 * rename still matches). The capture core adds every relation a pgoutput Relation message describes
 * (see {@link DdlFilter}), so this only has to cover tables that have not sent a change yet.
 *
 * <p>{@code ddlRoles}: the roles whose DDL messages are published ({@code ddl.message.roles}, by
 * default the tables' owners, resolved at start); a message whose {@code role} is not one of them
 * is refused. Null only for the recorded pgoutput fixtures, whose DDL messages predate the role
 * field: nothing the connector's start builds leaves it null.
 */
public record CapturedTables(
    boolean allTables, Set<String> schemas, List<OwningRelation> tables, Set<String> ddlRoles) {

  /**
   * Nothing known up front: only relations described by Relation messages count as captured, and no
   * role may author DDL (the start resolves the roles).
   */
  public static final CapturedTables NONE =
      new CapturedTables(false, Set.of(), List.of(), Set.of());

  public CapturedTables {
    schemas = Set.copyOf(schemas);
    tables = List.copyOf(tables);
    ddlRoles = ddlRoles == null ? null : Set.copyOf(ddlRoles);
  }

  /** Tables of a recorded stream whose DDL messages carry no role: roles are not checked. */
  public CapturedTables(boolean allTables, Set<String> schemas, List<OwningRelation> tables) {
    this(allTables, schemas, tables, null);
  }

  public CapturedTables withDdlRoles(Set<String> roles) {
    return new CapturedTables(allTables, schemas, tables, roles);
  }

  /** Whether a DDL message naming {@code role} (null: it names none) is published. */
  boolean authorises(String role) {
    return ddlRoles == null || role != null && ddlRoles.contains(role);
  }

  boolean contains(OwningRelation r) {
    if (allTables || schemas.contains(r.schema())) {
      return true;
    }
    for (OwningRelation t : tables) {
      if (r.oid() != 0 && t.oid() == r.oid() || r.sameAs(t)) {
        return true;
      }
    }
    return false;
  }

  /** The OID of a listed table with these names, or 0. */
  long oidOf(String schema, String table) {
    for (OwningRelation t : tables) {
      if (t.schema().equals(schema) && t.table().equals(table)) {
        return t.oid();
      }
    }
    return 0;
  }

  @Override
  public String toString() {
    return (allTables
            ? "all tables"
            : "tables " + tables + (schemas.isEmpty() ? "" : " and schemas " + schemas))
        + (ddlRoles == null ? "" : ", DDL from roles " + ddlRoles);
  }
}
