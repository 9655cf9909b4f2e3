package io.trellara.sink.target;

import io.trellara.sink.engine.SourceTransaction;
import io.trellara.sink.engine.TopicPartitionKey;
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
import java.util.LinkedHashMap;
import java.util.Map;

/** Test builder of valid envelopes: schema versions are derived from the row images. */
public final class Tx {
    private final TransactionEnvelope.Builder b;
    private final Map<RelationId, Map<String, ColumnDefinition>> schemas = new LinkedHashMap<>();
    private long order;
    private ReplicaIdentity identity = ReplicaIdentity.REPLICA_IDENTITY_DEFAULT;

    private Tx(String source, long commitLsn, String txId) {
        b = TransactionEnvelope.newBuilder().setProtocolVersion(ProtocolVersion.CURRENT).setSourceId(source)
                .setDatabaseId("db").setDatasetId("flow").setTransactionId(txId)
                .setCommitLsn(io.trellara.protocol.Lsn.format(commitLsn)).setCommitTimestampMs(1_764_000_000_000L);
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

    public static ColumnValue key(String name, String type, String text) {
        return col(name, type, text, true);
    }

    public static ColumnValue val(String name, String type, String text) {
        return col(name, type, text, false);
    }

    public static ColumnValue nul(String name, String type) {
        return ColumnValue.newBuilder().setName(name).setTypeName(type).setTypeModifier(-1)
                .setState(ColumnState.COLUMN_STATE_NULL).build();
    }

    public static ColumnValue toast(String name, String type) {
        return ColumnValue.newBuilder().setName(name).setTypeName(type).setTypeModifier(-1)
                .setState(ColumnState.COLUMN_STATE_UNCHANGED_TOAST).build();
    }

    /** Built-in type OIDs of the types tests use (the fingerprint covers the OID, not the name). */
    private static final Map<String, Integer> OIDS = Map.of("integer", 23, "bigint", 20, "text", 25, "boolean", 16,
            "numeric", 1700, "text[]", 1009, "timestamp with time zone", 1184, "jsonb", 3802, "uuid", 2950,
            "bytea", 17);

    private static ColumnValue col(String name, String type, String text, boolean key) {
        return ColumnValue.newBuilder().setName(name).setTypeName(type).setTypeOid(OIDS.getOrDefault(type, 0))
                .setTypeModifier(-1).setKey(key)
                .setState(ColumnState.COLUMN_STATE_VALUE).setText(text).build();
    }

    public static RowImage row(ColumnValue... cols) {
        return RowImage.newBuilder().addAllColumns(java.util.List.of(cols)).build();
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

    public Tx insert(RelationId rel, ColumnValue... cols) {
        return change(rel, Operation.OPERATION_INSERT, null, row(cols));
    }

    public Tx update(RelationId rel, RowImage before, ColumnValue... after) {
        return change(rel, Operation.OPERATION_UPDATE, before, row(after));
    }

    public Tx delete(RelationId rel, ColumnValue... before) {
        return change(rel, Operation.OPERATION_DELETE, row(before), null);
    }

    public Tx truncate(boolean cascade, boolean restartIdentity, RelationId... rels) {
        for (RelationId r : rels) {
            schemas.computeIfAbsent(r, k -> new LinkedHashMap<>());
        }
        ChangeRecord.Builder c = base(rels[0], Operation.OPERATION_TRUNCATE)
                .setTruncate(TruncateSpec.newBuilder().addAllRelations(java.util.List.of(rels)).setCascade(cascade)
                        .setRestartIdentity(restartIdentity));
        b.addChanges(c);
        return this;
    }

    public Tx ddl(String statement, String objectIdentity) {
        b.addDdlEvents(DdlEvent.newBuilder().setTransactionId(b.getTransactionId()).setTotalOrder(++order)
                .setCommandTag("ALTER TABLE").setObjectType("table").setObjectIdentity(objectIdentity)
                .setSchemaName("public").setStatement(statement).setSearchPath("\"$user\", public"));
        return this;
    }

    private Tx change(RelationId rel, Operation op, RowImage before, RowImage after) {
        ChangeRecord.Builder c = base(rel, op);
        Map<String, ColumnDefinition> cols = schemas.computeIfAbsent(rel, k -> new LinkedHashMap<>());
        for (RowImage img : new RowImage[] {before, after}) {
            if (img == null) {
                continue;
            }
            for (ColumnValue v : img.getColumnsList()) {
                cols.putIfAbsent(v.getName(), ColumnDefinition.newBuilder().setName(v.getName())
                        .setTypeName(v.getTypeName()).setTypeOid(v.getTypeOid()).setTypeModifier(v.getTypeModifier()).setKey(v.getKey()).build());
            }
        }
        if (before != null) {
            c.setBefore(before);
        }
        if (after != null) {
            c.setAfter(after);
        }
        b.addChanges(c);
        return this;
    }

    private ChangeRecord.Builder base(RelationId rel, Operation op) {
        long o = ++order;
        return ChangeRecord.newBuilder().setTransactionId(b.getTransactionId()).setTotalOrder(o).setTableOrder(o)
                .setRelation(rel).setOperation(op).setReplicaIdentity(identity)
                .setIdempotencyKey(EventKey.of(b.getSourceId(), b.getCommitLsn(), b.getTransactionId(), o));
    }

    /** Validated and checksummed as a producer would; decoded as the sink would. */
    public TransactionEnvelope build() {
        return TrellaraCodec.decodeEnvelope(TrellaraCodec.encode(unvalidated()).bytes());
    }

    /** For fail-closed tests of the applier's own checks (the validator would refuse earlier). */
    public TransactionEnvelope unvalidated() {
        b.clearSchemaVersions();
        schemas.forEach((rel, cols) -> {
            SchemaVersion.Builder sv = SchemaVersion.newBuilder().setRelation(rel).addAllColumns(cols.values());
            b.addSchemaVersions(sv.setFingerprint(SchemaFingerprint.of(sv)));
        });
        return b.build();
    }

    public SourceTransaction at(String topic, int partition, long nextOffset) {
        return new SourceTransaction(build(), new TopicPartitionKey(topic, partition), nextOffset);
    }

    public SourceTransaction source() {
        return SourceTransaction.withoutPosition(build());
    }
}
