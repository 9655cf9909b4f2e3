package io.trellara.source.capture;

import com.google.protobuf.ByteString;
import io.trellara.protocol.SchemaFingerprint;
import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.SchemaVersion;
import java.util.List;

/**
 * One relation as a Relation message described it, resolved once when the message arrived: names, replica
 * identity, columns with their type names, the protobuf pieces every row image reuses (names as cached
 * {@link ByteString}s, column values for the NULL and unchanged-TOAST states) and the {@link SchemaVersion}.
 * Immutable; a new Relation message that changes anything yields a new instance (a new schema version).
 *
 * <p><b>Key flags.</b> A column's key flag is pgoutput's "part of the replica identity" flag, except under
 * REPLICA IDENTITY FULL, where pgoutput flags every column: there the relation has no key columns and the
 * whole old row identifies a row (the protocol's rule for FULL), so nullable columns do not count as
 * missing keys.
 */
public final class RelationSchema {

  /** One column, with the protobuf pieces row images reuse. */
  public static final class Column {
    final String name;
    final ByteString nameBytes;
    final long typeOid;
    final int typeModifier;
    final String typeName;
    final ByteString typeNameBytes;
    final boolean key;
    final ColumnValue nullValue;
    final ColumnValue unchangedToast;

    Column(String name, long typeOid, int typeModifier, String typeName, boolean key) {
      this.name = name;
      this.nameBytes = ByteString.copyFromUtf8(name);
      this.typeOid = typeOid;
      this.typeModifier = typeModifier;
      this.typeName = typeName;
      this.typeNameBytes = ByteString.copyFromUtf8(typeName);
      this.key = key;
      this.nullValue = base(ColumnValue.newBuilder()).setState(ColumnState.COLUMN_STATE_NULL).build();
      this.unchangedToast = base(ColumnValue.newBuilder()).setState(ColumnState.COLUMN_STATE_UNCHANGED_TOAST).build();
    }

    /** Sets name, type and key on a (cleared) builder. */
    ColumnValue.Builder base(ColumnValue.Builder b) {
      return b.setNameBytes(nameBytes).setTypeOid((int) typeOid).setTypeNameBytes(typeNameBytes)
          .setTypeModifier(typeModifier).setKey(key);
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
  private final ReplicaIdentity replicaIdentity;
  private final Column[] columns;
  private final int keyColumnCount;
  private final SchemaVersion schemaVersion;
  private final String qualifiedName;
  private final RelationSchema[] single = {this};

  RelationSchema(int version, long oid, String schema, String table, ReplicaIdentity replicaIdentity,
      Column[] columns) {
    this.version = version;
    this.oid = oid;
    this.relationId = RelationId.newBuilder().setSchema(schema).setTable(table).setSourceOid((int) oid).build();
    this.replicaIdentity = replicaIdentity;
    this.columns = columns;
    int keys = 0;
    SchemaVersion.Builder sv = SchemaVersion.newBuilder().setRelation(relationId);
    for (Column c : columns) {
      if (c.key) {
        keys++;
      }
      sv.addColumns(ColumnDefinition.newBuilder().setNameBytes(c.nameBytes).setTypeOid((int) c.typeOid)
          .setTypeNameBytes(c.typeNameBytes).setTypeModifier(c.typeModifier).setKey(c.key));
    }
    this.keyColumnCount = keys;
    this.schemaVersion = sv.setFingerprint(SchemaFingerprint.of(sv)).build();
    this.qualifiedName = schema + '.' + table;
  }

  /** Index of this schema version in its {@link RelationCache} (stable for the cache's lifetime). */
  public int version() {
    return version;
  }

  public long oid() {
    return oid;
  }

  public RelationId relationId() {
    return relationId;
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
    return keyColumnCount;
  }

  public SchemaVersion schemaVersion() {
    return schemaVersion;
  }

  public String fingerprint() {
    return schemaVersion.getFingerprint();
  }

  /** Same shape: fingerprint (names, types, typmods, keys), replica identity and type names. */
  boolean sameAs(RelationSchema other) {
    if (other.oid != oid || other.replicaIdentity != replicaIdentity
        || !other.fingerprint().equals(fingerprint()) || other.columns.length != columns.length) {
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

  Column[] columnArray() {
    return columns;
  }

  @Override
  public String toString() {
    return "RelationSchema[" + qualifiedName + " oid=" + oid + " v" + version + " " + fingerprint() + "]";
  }
}
