package io.trellara.sink.postgres;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.ProtocolVersion;
import io.trellara.protocol.SchemaFingerprint;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TruncateSpec;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test builder of valid envelopes, written by column name: each relation's schema version is the
 * union of the columns its changes name (in order of first mention, key flag and type from the
 * first mention), and every row image is laid out positionally against it, a column an image does
 * not name being not sent (unchanged-TOAST). After a DDL event, a change that names a new column
 * starts a new schema version of its relation (as a source does after ALTER TABLE ... ADD COLUMN);
 * the changes of a relation with several versions name theirs.
 */
public final class Tx {
  /** One named column of a row image, as a test writes it. */
  public record Col(String name, String type, int typeModifier, boolean key, ColumnValue value) {
    public Col typeModifier(int typmod) {
      return new Col(name, type, typmod, key, value);
    }
  }

  private record Pending(
      ChangeRecord.Builder change,
      Map<String, ColumnDefinition> version,
      Col[] before,
      Col[] after) {}

  private static final ColumnValue NOT_SENT =
      ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_UNCHANGED_TOAST).build();

  private final TransactionEnvelope.Builder b;

  /** Per relation, its schema versions in order, each as column name to definition. */
  private final Map<RelationId, List<Map<String, ColumnDefinition>>> schemas =
      new LinkedHashMap<>();

  /** Relations whose current version a DDL event closed. */
  private final java.util.Set<RelationId> closed = new java.util.HashSet<>();

  private final List<Pending> changes = new ArrayList<>();
  private long order;
  private ReplicaIdentity identity = ReplicaIdentity.REPLICA_IDENTITY_DEFAULT;

  private Tx(String source, long commitLsn, String txId) {
    b =
        TransactionEnvelope.newBuilder()
            .setProtocolVersion(ProtocolVersion.CURRENT)
            .setSourceId(source)
            .setDatabaseId("db")
            .setDatasetId("flow")
            .setTransactionId(txId)
            .setCommitLsn(io.trellara.protocol.Lsn.format(commitLsn))
            .setCommitTimestampMs(1_764_000_000_000L);
  }

  public static Tx tx(long commitLsn) {
    return new Tx("pg-test", commitLsn, Long.toString(commitLsn));
  }

  public static Tx tx(String source, long commitLsn, String txId) {
    return new Tx(source, commitLsn, txId);
  }

  public static RelationId rel(String schema, String table) {
    return RelationId.newBuilder().setSchema(schema).setTable(table).build();
  }

  public static Col key(String name, String type, String text) {
    return new Col(name, type, -1, true, value(text));
  }

  public static Col val(String name, String type, String text) {
    return new Col(name, type, -1, false, value(text));
  }

  public static Col nul(String name, String type) {
    return new Col(
        name,
        type,
        -1,
        false,
        ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_NULL).build());
  }

  public static Col toast(String name, String type) {
    return new Col(name, type, -1, false, NOT_SENT);
  }

  private static ColumnValue value(String text) {
    return ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_VALUE).setText(text).build();
  }

  /** Built-in type OIDs of the types tests use (the fingerprint covers the OID, not the name). */
  private static final Map<String, Integer> OIDS =
      Map.of(
          "integer",
          23,
          "bigint",
          20,
          "text",
          25,
          "boolean",
          16,
          "numeric",
          1700,
          "text[]",
          1009,
          "timestamp with time zone",
          1184,
          "jsonb",
          3802,
          "uuid",
          2950,
          "bytea",
          17);

  /** An old image (an update's before), by name. */
  public static Col[] row(Col... cols) {
    return cols;
  }

  /** Another flow (dataset) of the same source. */
  public Tx dataset(String datasetId) {
    b.setDatasetId(datasetId);
    return this;
  }

  public Tx identity(ReplicaIdentity ri) {
    identity = ri;
    return this;
  }

  public Tx insert(RelationId rel, Col... cols) {
    return change(rel, Operation.OPERATION_INSERT, null, cols);
  }

  public Tx update(RelationId rel, Col[] before, Col... after) {
    return change(rel, Operation.OPERATION_UPDATE, before, after);
  }

  public Tx delete(RelationId rel, Col... before) {
    return change(rel, Operation.OPERATION_DELETE, before, null);
  }

  /** The insert half of an ownership move: the old image of the row it moves, as its before. */
  public Tx movedInsert(RelationId rel, Col[] before, Col... after) {
    return change(rel, Operation.OPERATION_INSERT, before, after);
  }

  public Tx truncate(boolean cascade, boolean restartIdentity, RelationId... rels) {
    for (RelationId r : rels) {
      current(r);
    }
    ChangeRecord.Builder c =
        base(rels[0], Operation.OPERATION_TRUNCATE)
            .setTruncate(
                TruncateSpec.newBuilder()
                    .addAllRelations(java.util.List.of(rels))
                    .setCascade(cascade)
                    .setRestartIdentity(restartIdentity));
    changes.add(new Pending(c, current(rels[0]), null, null));
    return this;
  }

  public Tx ddl(String statement, String objectIdentity) {
    b.addDdlEvents(
        DdlEvent.newBuilder()
            .setTransactionId(b.getTransactionId())
            .setTotalOrder(++order)
            .setCommandTag("ALTER TABLE")
            .setObjectType("table")
            .setObjectIdentity(objectIdentity)
            .setSchemaName("public")
            .setStatement(statement)
            .setSearchPath("\"$user\", public"));
    closed.addAll(schemas.keySet());
    return this;
  }

  private Tx change(RelationId rel, Operation op, Col[] before, Col[] after) {
    Map<String, ColumnDefinition> cols = current(rel);
    boolean names = false;
    for (Col[] img : new Col[][] {before, after}) {
      for (Col v : img == null ? new Col[0] : img) {
        names |= !cols.containsKey(v.name());
      }
    }
    if (names
        && closed.remove(rel)) { // a new column after a DDL event: the relation's next version
      cols = new LinkedHashMap<>(cols);
      schemas.get(rel).add(cols);
    }
    for (Col[] img : new Col[][] {before, after}) {
      for (Col v : img == null ? new Col[0] : img) {
        cols.putIfAbsent(
            v.name(),
            ColumnDefinition.newBuilder()
                .setName(v.name())
                .setTypeName(v.type())
                .setTypeOid(OIDS.getOrDefault(v.type(), 0))
                .setTypeModifier(v.typeModifier())
                .setKey(v.key())
                .build());
      }
    }
    changes.add(new Pending(base(rel, op), cols, before, after));
    return this;
  }

  private Map<String, ColumnDefinition> current(RelationId rel) {
    List<Map<String, ColumnDefinition>> versions =
        schemas.computeIfAbsent(rel, k -> new ArrayList<>());
    if (versions.isEmpty()) {
      versions.add(new LinkedHashMap<>());
    }
    return versions.get(versions.size() - 1);
  }

  private ChangeRecord.Builder base(RelationId rel, Operation op) {
    long o = ++order;
    return ChangeRecord.newBuilder()
        .setTransactionId(b.getTransactionId())
        .setTotalOrder(o)
        .setTableOrder(o)
        .setRelation(rel)
        .setOperation(op)
        .setReplicaIdentity(identity)
        .setIdempotencyKey(EventKey.of(b.getSourceId(), b.getCommitLsn(), b.getTransactionId(), o));
  }

  /**
   * {@code named} laid out positionally against the relation's columns; unnamed columns are not
   * sent.
   */
  private static RowImage positional(Map<String, ColumnDefinition> columns, Col[] named) {
    RowImage.Builder image = RowImage.newBuilder();
    for (String name : columns.keySet()) {
      ColumnValue v = NOT_SENT;
      for (Col c : named) {
        if (c.name().equals(name)) {
          v = c.value();
          break;
        }
      }
      image.addColumns(v);
    }
    return image.build();
  }

  /** Validated and checksummed as a producer would; decoded as the sink would. */
  public TransactionEnvelope build() {
    return TrellaraCodec.decodeEnvelope(TrellaraCodec.encode(unvalidated()).bytes());
  }

  /** For fail-closed tests of the applier's own checks (the validator would refuse earlier). */
  public TransactionEnvelope unvalidated() {
    b.clearSchemaVersions().clearChanges();
    Map<Map<String, ColumnDefinition>, String> fingerprints = new java.util.IdentityHashMap<>();
    schemas.forEach(
        (rel, versions) ->
            versions.forEach(
                cols -> {
                  SchemaVersion.Builder sv =
                      SchemaVersion.newBuilder().setRelation(rel).addAllColumns(cols.values());
                  b.addSchemaVersions(sv.setFingerprint(SchemaFingerprint.of(sv)));
                  fingerprints.put(cols, sv.getFingerprint());
                }));
    for (Pending p : changes) {
      ChangeRecord.Builder c = p.change().clone();
      if (schemas.get(c.getRelation()).size() > 1) {
        c.setSchemaFingerprint(fingerprints.get(p.version()));
      }
      if (p.before() != null) {
        c.setBefore(positional(p.version(), p.before()));
      }
      if (p.after() != null) {
        c.setAfter(positional(p.version(), p.after()));
      }
      b.addChanges(c);
    }
    return b.build();
  }

  public SourceTransaction at(String topic, int partition, long nextOffset) {
    return new SourceTransaction(build(), new TopicPartitionKey(topic, partition), nextOffset);
  }

  public SourceTransaction source() {
    return SourceTransaction.withoutPosition(build());
  }
}
