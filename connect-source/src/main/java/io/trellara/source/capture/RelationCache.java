package io.trellara.source.capture;

import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.source.capture.ddl.RelationShape;
import io.trellara.source.pgoutput.PgOutputMessage.Relation;
import io.trellara.source.pgoutput.PgOutputMessage.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Relation and Type messages by OID, resolved into {@link RelationSchema}s once per Relation
 * message (never per row).
 *
 * <p>Every distinct shape a relation takes gets a version number ({@link
 * RelationSchema#version()}); a Relation message that repeats the current shape (pgoutput resends
 * Relation messages, e.g. once per streamed transaction) returns the existing instance, so versions
 * only grow with real schema changes. Buffered and spilled changes refer to the version in force
 * when they arrived, so a later Relation message (another transaction's ALTER TABLE) never
 * reinterprets an earlier change.
 *
 * <p><b>Fingerprint.</b> {@link io.trellara.protocol.SchemaFingerprint} of the schema version, with
 * the key flag {@link RelationSchema} reports (all 0 under REPLICA IDENTITY FULL).
 *
 * <p><b>Schema versions from DDL.</b> A DDL message describes each table's columns as the statement
 * left them ({@link RelationShape}); {@link #accept(RelationShape)} builds the schema version the
 * next Relation message will give, numbered like any other, but does not make it current: rows are
 * decoded only against what a Relation message said. When that Relation message comes and describes
 * the same shape ({@link RelationSchema#sameAs}), it gets the DDL's version (the same instance, so
 * one transaction never carries one shape twice); when it differs, it wins.
 */
public final class RelationCache {

  private final Map<Long, RelationSchema> current = new HashMap<>();
  private final List<RelationSchema> versions = new ArrayList<>();
  private final Map<Long, String> userTypes = new HashMap<>();
  private final Map<Long, RelationSchema> fromDdl = new HashMap<>();
  private RelationSchema lastLookup;

  /** Records a Type message (used for the type names of later Relation messages). */
  public void accept(Type type) {
    userTypes.put(type.typeOid(), PgTypeNames.userTypeName(type.namespace(), type.name()));
  }

  /** Resolves a Relation message; returns the relation's current schema version afterwards. */
  public RelationSchema accept(Relation relation) {
    ReplicaIdentity ri =
        switch (relation.replicaIdentity()) {
          case DEFAULT -> ReplicaIdentity.REPLICA_IDENTITY_DEFAULT;
          case INDEX -> ReplicaIdentity.REPLICA_IDENTITY_INDEX;
          case FULL -> ReplicaIdentity.REPLICA_IDENTITY_FULL;
          case NOTHING -> ReplicaIdentity.REPLICA_IDENTITY_NOTHING;
        };
    boolean full = ri == ReplicaIdentity.REPLICA_IDENTITY_FULL;
    List<Relation.Column> cols = relation.columns();
    RelationSchema.Column[] columns = new RelationSchema.Column[cols.size()];
    for (int i = 0; i < columns.length; i++) {
      Relation.Column c = cols.get(i);
      columns[i] =
          new RelationSchema.Column(
              c.name(),
              c.typeOid(),
              c.typeModifier(),
              PgTypeNames.name(c.typeOid(), c.typeModifier(), userTypes),
              c.key() && !full);
    }
    RelationSchema candidate =
        new RelationSchema(
            versions.size(),
            relation.relationOid(),
            relation.namespace(),
            relation.name(),
            ri,
            columns);
    RelationSchema existing = current.get(relation.relationOid());
    if (existing != null && existing.sameAs(candidate)) {
      return existing;
    }
    RelationSchema announced = fromDdl.remove(relation.relationOid());
    if (announced != null && announced.sameAs(candidate)) {
      current.put(relation.relationOid(), announced);
      lastLookup = null;
      return announced;
    }
    versions.add(candidate);
    current.put(relation.relationOid(), candidate);
    lastLookup = null;
    return candidate;
  }

  /**
   * The schema version a DDL message's description of a table stands for: the current one when it
   * describes the same shape, the last one a DDL message announced when that is the same, else a
   * new version (announced, not current; see the class comment).
   */
  public RelationSchema accept(RelationShape shape) {
    ReplicaIdentity ri =
        switch (shape.replicaIdentity()) {
          case 'd' -> ReplicaIdentity.REPLICA_IDENTITY_DEFAULT;
          case 'i' -> ReplicaIdentity.REPLICA_IDENTITY_INDEX;
          case 'f' -> ReplicaIdentity.REPLICA_IDENTITY_FULL;
          default -> ReplicaIdentity.REPLICA_IDENTITY_NOTHING;
        };
    boolean full = ri == ReplicaIdentity.REPLICA_IDENTITY_FULL;
    List<RelationShape.Column> cols = shape.columns();
    RelationSchema.Column[] columns = new RelationSchema.Column[cols.size()];
    for (int i = 0; i < columns.length; i++) {
      RelationShape.Column c = cols.get(i);
      columns[i] =
          new RelationSchema.Column(
              c.name(), c.typeOid(), c.typeModifier(), typeName(c), c.key() && !full);
    }
    RelationSchema candidate =
        new RelationSchema(
            versions.size(), shape.oid(), shape.schema(), shape.table(), ri, columns);
    RelationSchema existing = current.get(shape.oid());
    if (existing != null && existing.sameAs(candidate)) {
      return existing;
    }
    RelationSchema announced = fromDdl.get(shape.oid());
    if (announced != null && announced.sameAs(candidate)) {
      return announced;
    }
    versions.add(candidate);
    fromDdl.put(shape.oid(), candidate);
    return candidate;
  }

  /** {@link #accept(RelationShape)} of each shape, in order. */
  public RelationSchema[] accept(List<RelationShape> shapes) {
    RelationSchema[] versions = new RelationSchema[shapes.size()];
    for (int i = 0; i < versions.length; i++) {
      versions[i] = accept(shapes.get(i));
    }
    return versions;
  }

  /**
   * The type name a Relation message's column of this type gets: pgoutput sends a Type message
   * (naming the base type of a domain) only for OIDs from FirstGenbkiObjectId (10000) on.
   */
  private String typeName(RelationShape.Column c) {
    String builtIn = PgTypeNames.builtInName(c.typeOid(), c.typeModifier());
    if (builtIn != null) {
      return builtIn;
    }
    if (c.typeOid() >= FIRST_GENBKI_OBJECT_ID) {
      return PgTypeNames.userTypeName(c.typeSchema(), c.type());
    }
    String known = userTypes.get(c.typeOid());
    return known != null ? known : "oid:" + c.typeOid();
  }

  private static final long FIRST_GENBKI_OBJECT_ID = 10_000;

  /**
   * The current schema of a relation.
   *
   * @throws CaptureException when no Relation message described the OID (the stream is
   *     inconsistent)
   */
  public RelationSchema get(long relationOid, long lsn) {
    RelationSchema last = lastLookup;
    if (last != null && last.oid() == relationOid) {
      return last; // changes cluster by relation: skip the boxed map lookup
    }
    RelationSchema r = current.get(relationOid);
    if (r == null) {
      throw new CaptureException(
          "unknown_relation",
          "a change at LSN "
              + io.trellara.protocol.Lsn.format(lsn)
              + " refers to relation OID "
              + relationOid
              + " but no Relation message described it; the replication"
              + " stream is inconsistent (restart capture from the slot)");
    }
    lastLookup = r;
    return r;
  }

  /** True when a Relation message described the OID (the publication covers that relation). */
  public boolean known(long relationOid) {
    return current.containsKey(relationOid);
  }

  /**
   * The current schema of the relation with these names, or null (a scan: for rare DDL lookups
   * only).
   */
  public RelationSchema named(String schema, String table) {
    for (RelationSchema r : current.values()) {
      if (r.schema().equals(schema) && r.table().equals(table)) {
        return r;
      }
    }
    return null;
  }

  /** A schema version by its number. */
  public RelationSchema version(int version) {
    return versions.get(version);
  }

  public int versionCount() {
    return versions.size();
  }
}
