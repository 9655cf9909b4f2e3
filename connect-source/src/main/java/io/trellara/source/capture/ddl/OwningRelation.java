package io.trellara.source.capture.ddl;

import io.trellara.protocol.v1.RelationId;
import java.util.Objects;

/**
 * A relation a DDL statement's objects belong to, as the event trigger names it: schema, table and
 * the pg_class OID (0 when the trigger no longer knew it, e.g. the table of a dropped constraint).
 */
public record OwningRelation(String schema, String table, long oid) {

  public OwningRelation {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(table, "table");
  }

  /** The same names and the same OID, when both know theirs. */
  boolean sameAs(OwningRelation other) {
    return schema.equals(other.schema)
        && table.equals(other.table)
        && (oid == 0 || other.oid == 0 || oid == other.oid);
  }

  RelationId toRelationId() {
    return RelationId.newBuilder()
        .setSchema(schema)
        .setTable(table)
        .setSourceOid((int) oid)
        .build();
  }

  @Override
  public String toString() {
    return schema + "." + table + (oid != 0 ? "(" + oid + ")" : "");
  }
}
