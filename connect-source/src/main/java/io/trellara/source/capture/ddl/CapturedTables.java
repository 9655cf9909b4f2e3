package io.trellara.source.capture.ddl;

import java.util.List;
import java.util.Set;

/**
 * The tables this connector's publication covers, as known when capture started: a FOR ALL TABLES
 * flag, the schemas of FOR TABLES IN SCHEMA, and the listed tables (with their OIDs, so a later
 * rename still matches). The capture core adds every relation a pgoutput Relation message describes
 * (see {@link DdlFilter}), so this only has to cover tables that have not sent a change yet.
 */
public record CapturedTables(boolean allTables, Set<String> schemas, List<OwningRelation> tables) {

  /** Nothing known up front: only relations described by Relation messages count as captured. */
  public static final CapturedTables NONE = new CapturedTables(false, Set.of(), List.of());

  public CapturedTables {
    schemas = Set.copyOf(schemas);
    tables = List.copyOf(tables);
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
    return allTables
        ? "all tables"
        : "tables " + tables + (schemas.isEmpty() ? "" : " and schemas " + schemas);
  }
}
