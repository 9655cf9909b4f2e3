package io.trellara.identity;

import java.util.List;

/**
 * What the encoder needs to know about one identity column, as resolved from the catalog or the
 * pgoutput Relation message: the type OID and typmod; for a domain its base type OID; whether the
 * type is an enum; the element type of an array of a user-defined type; the field types of a
 * composite; and whether its collation is non-deterministic (always rejected).
 *
 * @param name type name for messages when the OID is not a built-in one (may be null)
 */
public record ColumnType(
    int typeOid,
    int typmod,
    int baseTypeOid,
    boolean isEnum,
    ColumnType element,
    List<ColumnType> fields,
    boolean nondeterministicCollation,
    String name) {

  public ColumnType {
    fields = fields == null ? null : List.copyOf(fields);
  }

  /** A built-in type (or a built-in array, range or multirange type). */
  public static ColumnType of(int typeOid) {
    return new ColumnType(typeOid, -1, 0, false, null, null, false, null);
  }

  public static ColumnType of(int typeOid, int typmod) {
    return new ColumnType(typeOid, typmod, 0, false, null, null, false, null);
  }

  /** A domain: encoded exactly as its (fully resolved) base type. */
  public static ColumnType domain(int domainOid, int baseTypeOid, int typmod) {
    return new ColumnType(domainOid, typmod, baseTypeOid, false, null, null, false, null);
  }

  /** A user-defined enum: encoded by label. */
  public static ColumnType enumType(int enumOid, String name) {
    return new ColumnType(enumOid, -1, 0, true, null, null, false, name);
  }

  /**
   * An array whose element is a domain, enum or composite (built-in arrays need only {@link #of}).
   */
  public static ColumnType arrayOf(int arrayOid, ColumnType element) {
    return new ColumnType(arrayOid, -1, 0, false, element, null, false, null);
  }

  /** A composite (row) type with its attribute types in attribute order. */
  public static ColumnType composite(int typeOid, String name, List<ColumnType> fields) {
    return new ColumnType(typeOid, -1, 0, false, null, fields, false, name);
  }

  /**
   * A field holding a complete child identity (a join key's left and right sides). OID 0 is never a
   * PostgreSQL type, so it cannot collide with a catalog type.
   */
  public static ColumnType childIdentity() {
    return new ColumnType(0, -1, 0, false, null, null, false, "identity");
  }

  /**
   * The same type under a non-deterministic collation: such columns are rejected as identity
   * fields.
   */
  public ColumnType withNondeterministicCollation() {
    return new ColumnType(typeOid, typmod, baseTypeOid, isEnum, element, fields, true, name);
  }

  /** The OID whose encoder applies: the base type of a domain, else the type itself. */
  public int effectiveOid() {
    return baseTypeOid != 0 ? baseTypeOid : typeOid;
  }
}
