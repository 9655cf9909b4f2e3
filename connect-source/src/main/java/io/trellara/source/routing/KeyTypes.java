package io.trellara.source.routing;

import io.trellara.identity.ColumnType;

/**
 * What an ownership column's type is, for its row identity: a Relation message names a column's
 * type by OID only, and an enum or a domain is a user type whose OID says nothing about how to
 * encode it. Built-in types need no lookup; a user type is resolved from the source's catalog
 * ({@code io.trellara.source.pg.CatalogKeyTypes}): an enum is encoded by its label, a domain as its
 * fully resolved base type (row identity V2, table 2).
 */
public interface KeyTypes {

  /** The type as row identity sees it; a type with no encoder is returned as is, to be refused. */
  ColumnType resolve(long typeOid, int typmod);

  /** Built-in types only: any user type stays unresolved, so its encoder refuses it. */
  static KeyTypes builtIn() {
    return (oid, typmod) -> ColumnType.of((int) oid, typmod);
  }
}
