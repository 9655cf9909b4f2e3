package io.trellara.source.capture;

import io.trellara.protocol.SchemaFingerprint;
import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.SchemaVersion;
import java.util.List;

/**
 * One relation as a Relation message described it, resolved once when the message arrived: names,
 * replica identity, columns with their type names, the {@link SchemaVersion} (the only place the
 * columns' names and types go on the wire: row images are positional against it), the relation as
 * changes name it, and the key columns' positions. Immutable; a new Relation message that changes
 * anything yields a new instance (a new schema version).
 *
 * <p><b>Key flags.</b> A column's key flag is pgoutput's "part of the replica identity" flag,
 * except under REPLICA IDENTITY FULL, where pgoutput flags every column: there the relation has no
 * key columns and the whole old row identifies a row (the protocol's rule for FULL), so nullable
 * columns do not count as missing keys.
 */
public final class RelationSchema {

  /**
   * One column, as the Relation message described it (row images carry only its state and value).
   */
  public static final class Column {
    final String name;
    final long typeOid;
    final int typeModifier;
    final String typeName;
    final boolean key;

    Column(String name, long typeOid, int typeModifier, String typeName, boolean key) {
      this.name = name;
      this.typeOid = typeOid;
      this.typeModifier = typeModifier;
      this.typeName = typeName;
      this.key = key;
    }

    public String name() {
      return name;
    }

    public long typeOid() {
      return typeOid;
    }

    public int typeModifier() {
      return typeModifier;
    }

    public String typeName() {
      return typeName;
    }

    public boolean key() {
      return key;
    }
  }

  private final int version;
  private final long oid;
  private final RelationId relationId;
  private final RelationId changeRelation;
  private final ReplicaIdentity replicaIdentity;
  private final Column[] columns;
  private final int[] keyPositions;
  private final SchemaVersion schemaVersion;
  private final String qualifiedName;
  private final RelationSchema[] single = {this};

  RelationSchema(
      int version,
      long oid,
      String schema,
      String table,
      ReplicaIdentity replicaIdentity,
      Column[] columns) {
    this.version = version;
    this.oid = oid;
    this.relationId =
        RelationId.newBuilder().setSchema(schema).setTable(table).setSourceOid((int) oid).build();
    this.changeRelation = RelationId.newBuilder().setSchema(schema).setTable(table).build();
    this.replicaIdentity = replicaIdentity;
    this.columns = columns;
    SchemaVersion.Builder sv = SchemaVersion.newBuilder().setRelation(relationId);
    for (Column c : columns) {
      sv.addColumns(
          ColumnDefinition.newBuilder()
              .setName(c.name)
              .setTypeOid((int) c.typeOid)
              .setTypeName(c.typeName)
              .setTypeModifier(c.typeModifier)
              .setKey(c.key));
    }
    this.schemaVersion = sv.setFingerprint(SchemaFingerprint.of(sv)).build();
    this.keyPositions = SchemaVersions.keyPositions(schemaVersion);
    this.qualifiedName = schema + '.' + table;
  }

  /**
   * Index of this schema version in its {@link RelationCache} (stable for the cache's lifetime).
   */
  public int version() {
    return version;
  }

  public long oid() {
    return oid;
  }

  /** The relation with its OID hint, as schema versions and DDL events carry it. */
  public RelationId relationId() {
    return relationId;
  }

  /**
   * The relation as a change names it: schema and table (the OID hint travels once, in the schema
   * version).
   */
  public RelationId changeRelation() {
    return changeRelation;
  }

  public String schema() {
    return relationId.getSchema();
  }

  public String table() {
    return relationId.getTable();
  }

  /** {@code schema.table}, for messages. */
  public String qualifiedName() {
    return qualifiedName;
  }

  public ReplicaIdentity replicaIdentity() {
    return replicaIdentity;
  }

  public int columnCount() {
    return columns.length;
  }

  public Column column(int i) {
    return columns[i];
  }

  public List<Column> columns() {
    return List.of(columns);
  }

  public int keyColumnCount() {
    return keyPositions.length;
  }

  /**
   * Positions of the key columns in column order (none under REPLICA IDENTITY FULL); do not modify.
   */
  int[] keyPositions() {
    return keyPositions;
  }

  public SchemaVersion schemaVersion() {
    return schemaVersion;
  }

  public String fingerprint() {
    return schemaVersion.getFingerprint();
  }

  /** Same shape: fingerprint (names, types, typmods, keys), replica identity and type names. */
  boolean sameAs(RelationSchema other) {
    if (other.oid != oid
        || other.replicaIdentity != replicaIdentity
        || !other.fingerprint().equals(fingerprint())
        || other.columns.length != columns.length) {
      return false;
    }
    for (int i = 0; i < columns.length; i++) {
      if (!columns[i].typeName.equals(other.columns[i].typeName)) {
        return false;
      }
    }
    return true;
  }

  /** A shared one-element array holding this schema (never modified), for per-change references. */
  RelationSchema[] asSingletonArray() {
    return single;
  }

  @Override
  public String toString() {
    return "RelationSchema["
        + qualifiedName
        + " oid="
        + oid
        + " v"
        + version
        + " "
        + fingerprint()
        + "]";
  }
}
