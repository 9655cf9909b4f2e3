package io.trellara.protocol.conformance;

import static io.trellara.protocol.validation.ProtocolRule.*;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.SchemaFingerprint;
import io.trellara.protocol.boundary.ChunkedBarrier;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.ProtocolRule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The conformance kit's vectors, built from deterministic samples: valid messages of every kind, and at
 * least one crafted violation per {@link ProtocolRule}. Negative vectors carry correct checksums (unless
 * the checksum is the point), so each trips exactly the rule it is labelled with.
 */
public final class ConformanceVectors {
    private static final TransactionEnvelope TX = SampleTransactions.envelope(6, true);

    private ConformanceVectors() {
    }

    public static List<Vector> all() {
        List<Vector> v = new ArrayList<>();
        valid(v);
        envelopeRules(v);
        manifestRules(v);
        barrierRules(v);
        return v;
    }

    // ---- valid ------------------------------------------------------------------------------------------

    private static void valid(List<Vector> v) {
        v.add(new Vector("valid-envelope", null, "a strict transaction: 6 inserts, an ALTER TABLE between them,"
                + " an update with an unchanged-TOAST column, a delete", List.of(part(TrellaraCodec.encode(TX)))));
        v.add(new Vector("valid-envelope-single-insert", null, "the smallest strict transaction",
                List.of(part(TrellaraCodec.encode(SampleTransactions.envelope(1, false))))));
        v.add(new Vector("valid-envelope-schema-change", null, "an insert, ALTER TABLE ... ADD COLUMN, an insert of"
                + " the widened table: two schema versions of one relation, each change naming its own by"
                + " schema_fingerprint", List.of(part(TrellaraCodec.encode(SampleTransactions.envelopeWithSchemaChange())))));
        ChunkedBarrier.Barrier b = ChunkedBarrier.strictChunked(TX, 3);
        v.add(new Vector("valid-strict-chunked", null, "the same transaction as 3 chunks of at most 3 events,"
                + " its manifest and commit marker", parts(b.inOrder())));
    }

    // ---- single-envelope rules --------------------------------------------------------------------------

    private static void envelopeRules(List<Vector> v) {
        byte[] good = TrellaraCodec.encode(TX).bytes();
        v.add(raw("malformed-truncated", MALFORMED_BYTES, "the envelope cut off in the middle of a field",
                MessageKind.ENVELOPE, Arrays.copyOf(good, good.length / 2)));
        v.add(env("unknown-protocol-version", UNKNOWN_PROTOCOL_VERSION, "protocol_version 2, correctly checksummed",
                b -> b.setProtocolVersion(2)));
        v.add(raw("checksum-envelope", CHECKSUM_MISMATCH, "one byte of a customer name flipped",
                MessageKind.ENVELOPE, flipInside(good, "customer-1")));
        v.add(env("blank-source-id", REQUIRED_FIELD_BLANK, "source_id is blank", b -> b.setSourceId(" ")));
        v.add(env("change-transaction-id-mismatch", TRANSACTION_ID_MISMATCH, "a change names another transaction",
                b -> b.setChanges(1, b.getChanges(1).toBuilder().setTransactionId("772"))));
        v.add(env("begin-lsn-unparsable", BEGIN_LSN_INVALID, "begin_lsn is not an LSN", b -> b.setBeginLsn("zz")));
        v.add(env("begin-after-commit", BEGIN_LSN_AFTER_COMMIT, "begin_lsn above commit_lsn",
                b -> b.setBeginLsn("1/0")));
        v.add(env("commit-lsn-not-canonical", COMMIT_LSN_NOT_CANONICAL, "leading zero and lower case",
                b -> rekey(b.setCommitLsn("0/016b3748"))));
        v.add(env("commit-lsn-zero", COMMIT_LSN_ZERO, "commit_lsn 0/0", b -> rekey(b.setCommitLsn("0/0"))));
        v.add(env("commit-timestamp-zero", COMMIT_TIMESTAMP_NOT_POSITIVE, "commit_timestamp_ms 0",
                b -> b.setCommitTimestampMs(0)));
        v.add(env("total-order-zero", TOTAL_ORDER_ZERO, "the first change has total_order 0",
                b -> b.setChanges(0, b.getChanges(0).toBuilder().setTotalOrder(0))));
        v.add(env("total-order-descending", TOTAL_ORDER_NOT_ASCENDING, "two changes swapped", b -> {
            ChangeRecord first = b.getChanges(0);
            b.setChanges(0, b.getChanges(1)).setChanges(1, first);
        }));
        v.add(env("duplicate-total-order-change-ddl", DUPLICATE_TOTAL_ORDER,
                "the DDL event reuses the total_order of a change",
                b -> b.setDdlEvents(0, b.getDdlEvents(0).toBuilder().setTotalOrder(b.getChanges(2).getTotalOrder()))));
        v.add(env("total-order-gap", TOTAL_ORDER_GAP, "a change removed: orders skip one",
                b -> b.removeChanges(2)));
        v.add(env("idempotency-key-blank", IDEMPOTENCY_KEY_BLANK, "a blank idempotency_key",
                b -> b.setChanges(0, b.getChanges(0).toBuilder().setIdempotencyKey(""))));
        v.add(env("idempotency-key-mismatch", IDEMPOTENCY_KEY_MISMATCH, "idempotency_key names total_order 9",
                b -> b.setChanges(0, b.getChanges(0).toBuilder().setIdempotencyKey("pg-orders:0/16B3748:771:9"))));
        v.add(env("relation-missing", RELATION_MISSING, "a change without a relation",
                b -> b.setChanges(0, b.getChanges(0).toBuilder().clearRelation())));
        v.add(env("operation-unspecified", OPERATION_UNSPECIFIED, "operation 0",
                b -> b.setChanges(0, b.getChanges(0).toBuilder().setOperation(Operation.OPERATION_UNSPECIFIED))));
        v.add(env("replica-identity-unspecified", REPLICA_IDENTITY_UNSPECIFIED, "replica_identity 0",
                b -> b.setChanges(0, b.getChanges(0).toBuilder()
                        .setReplicaIdentity(ReplicaIdentity.REPLICA_IDENTITY_UNSPECIFIED))));
        v.add(env("insert-without-after", ROW_IMAGE_MISSING, "an insert with no after image",
                b -> b.setChanges(0, b.getChanges(0).toBuilder().clearAfter())));
        v.add(env("column-state-unspecified", COLUMN_STATE_UNSPECIFIED, "a column without a state",
                b -> b.setChanges(0, withColumn(b.getChanges(0), 1,
                        c -> c.setState(ColumnState.COLUMN_STATE_UNSPECIFIED)))));
        v.add(env("column-name-blank", COLUMN_NAME_BLANK, "a schema version's column without a name (fingerprinted)",
                b -> editSchema(b, s -> s.getColumnsBuilder(1).setName(""))));
        v.add(env("column-name-duplicate", COLUMN_NAME_DUPLICATE,
                "a schema version naming its key column twice (fingerprinted)",
                b -> editSchema(b, s -> s.getColumnsBuilder(1).setName("id"))));
        v.add(env("row-image-too-few-columns", ROW_IMAGE_COLUMN_COUNT_MISMATCH,
                "a delete whose before image carries only the key column (the schema version has 5)", b -> {
                    int last = b.getChangesCount() - 1;
                    b.setChanges(last, b.getChanges(last).toBuilder().setBefore(RowImage.newBuilder()
                            .addColumns(b.getChanges(last).getBefore().getColumns(0))));
                }));
        v.add(env("row-image-too-many-columns", ROW_IMAGE_COLUMN_COUNT_MISMATCH,
                "an insert whose after image carries a sixth column", b -> b.setChanges(0, b.getChanges(0).toBuilder()
                        .setAfter(b.getChanges(0).getAfter().toBuilder().addColumns(b.getChanges(0).getAfter()
                                .getColumns(1))).build())));
        v.add(env("schema-version-missing", SCHEMA_VERSION_MISSING, "no schema_versions entry",
                b -> b.clearSchemaVersions()));
        TransactionEnvelope schemaChange = SampleTransactions.envelopeWithSchemaChange();
        v.add(new Vector("schema-version-ambiguous", SCHEMA_VERSION_MISSING,
                "two schema versions of the relation and the first change names none in schema_fingerprint",
                List.of(part(TrellaraCodec.encodeWithoutValidation(schemaChange.toBuilder().setChanges(0,
                        schemaChange.getChanges(0).toBuilder().clearSchemaFingerprint()).build())))));
        v.add(env("schema-version-unknown-fingerprint", SCHEMA_VERSION_MISSING,
                "a change names a schema_fingerprint no schema version of its relation has",
                b -> b.setChanges(0, b.getChanges(0).toBuilder().setSchemaFingerprint("0123456789abcdef"))));
        v.add(env("schema-fingerprint-mismatch", SCHEMA_FINGERPRINT_MISMATCH,
                "the fingerprint's last hex digit changed; the columns are as they were",
                b -> b.setSchemaVersions(0, b.getSchemaVersions(0).toBuilder()
                        .setFingerprint(lastDigitChanged(b.getSchemaVersions(0).getFingerprint())))));
        v.add(env("schema-fingerprint-stale", SCHEMA_FINGERPRINT_MISMATCH,
                "a column widened (typmod) but the fingerprint is the old shape's",
                b -> b.setSchemaVersions(0, b.getSchemaVersions(0).toBuilder()
                        .setColumns(1, b.getSchemaVersions(0).getColumns(1).toBuilder().setTypeModifier(104)))));
        v.add(env("delete-missing-key", MISSING_KEY_COLUMN, "a delete whose before image has its key column NULL",
                b -> {
                    int last = b.getChangesCount() - 1;
                    b.setChanges(last, withColumn(b.getChanges(last), 0,
                            c -> c.setState(ColumnState.COLUMN_STATE_NULL).clearText()));
                }));
        v.add(env("delete-key-not-sent", MISSING_KEY_COLUMN,
                "a delete whose before image marks its key column unchanged-TOAST (not sent)", b -> {
                    int last = b.getChangesCount() - 1;
                    b.setChanges(last, withColumn(b.getChanges(last), 0,
                            c -> c.setState(ColumnState.COLUMN_STATE_UNCHANGED_TOAST).clearText()));
                }));
        v.add(env("delete-key-column-moved", MISSING_KEY_COLUMN,
                "a delete whose before image carries the key value at another position than the key column's",
                b -> {
                    int last = b.getChangesCount() - 1;
                    RowImage before = b.getChanges(last).getBefore();
                    b.setChanges(last, b.getChanges(last).toBuilder().setBefore(before.toBuilder()
                            .setColumns(1, before.getColumns(0)).setColumns(0, before.getColumns(1))));
                }));
        v.add(env("update-key-unchanged-toast", MISSING_KEY_COLUMN,
                "an update whose key column is marked unchanged-TOAST", b -> {
                    int update = b.getChangesCount() - 2;
                    b.setChanges(update, withColumn(b.getChanges(update), 0,
                            c -> c.setState(ColumnState.COLUMN_STATE_UNCHANGED_TOAST).clearText()));
                }));
        v.add(env("ddl-command-tag-blank", DDL_COMMAND_TAG_BLANK, "a DDL event without a command tag",
                b -> b.setDdlEvents(0, b.getDdlEvents(0).toBuilder().setCommandTag(""))));
        v.add(env("manifest-on-plain-strict", MANIFEST_ON_PLAIN_STRICT, "an envelope carrying a manifest",
                b -> b.setManifest(decodedBarrier().manifest)));
        v.add(env("empty-envelope", EMPTY_BARRIER, "no change and no DDL event",
                b -> b.clearChanges().clearDdlEvents()));
    }

    /** Edits the first schema version and fingerprints it again, so only the edit is wrong. */
    private static void editSchema(TransactionEnvelope.Builder b, Consumer<SchemaVersion.Builder> edit) {
        SchemaVersion.Builder s = b.getSchemaVersions(0).toBuilder();
        edit.accept(s);
        b.setSchemaVersions(0, withFingerprint(s));
    }

    private static SchemaVersion withFingerprint(SchemaVersion.Builder s) {
        return s.setFingerprint(SchemaFingerprint.of(s)).build();
    }

    private static String lastDigitChanged(String hex) {
        char last = hex.charAt(hex.length() - 1);
        return hex.substring(0, hex.length() - 1) + (last == '0' ? '1' : '0');
    }

    private static TransactionEnvelope.Builder rekey(TransactionEnvelope.Builder b) {
        for (int i = 0; i < b.getChangesCount(); i++) {
            ChangeRecord c = b.getChanges(i);
            b.setChanges(i, c.toBuilder().setIdempotencyKey(io.trellara.protocol.EventKey.of(b.getSourceId(),
                    b.getCommitLsn(), b.getTransactionId(), c.getTotalOrder())));
        }
        return b;
    }

    private static ChangeRecord withColumn(ChangeRecord c, int index,
                                           Consumer<io.trellara.protocol.v1.ColumnValue.Builder> edit) {
        ChangeRecord.Builder b = c.toBuilder();
        RowImage.Builder image = c.hasBefore() && c.getOperation() == Operation.OPERATION_DELETE
                ? b.getBeforeBuilder() : b.getAfterBuilder();
        edit.accept(image.getColumnsBuilder(index));
        return b.build();
    }

    // ---- manifest and marker on their own ---------------------------------------------------------------

    private static void manifestRules(List<Vector> v) {
        v.add(manifest("manifest-boundary-mode-unspecified", BOUNDARY_MODE_UNSPECIFIED, "boundary_mode 0",
                m -> m.setBoundaryMode(ManifestBoundaryMode.MANIFEST_BOUNDARY_MODE_UNSPECIFIED)));
        v.add(manifest("manifest-partitions-empty", MANIFEST_PARTITIONS_EMPTY, "no entries",
                m -> m.clearPartitions()));
        v.add(manifest("manifest-zero-first-total-order", MANIFEST_ZERO_TOTAL_ORDER, "first_total_order 0",
                m -> m.setPartitions(0, m.getPartitions(0).toBuilder().setFirstTotalOrder(0))));
        v.add(manifest("manifest-zero-last-total-order", MANIFEST_ZERO_TOTAL_ORDER, "last_total_order 0",
                m -> m.setPartitions(0, m.getPartitions(0).toBuilder().setLastTotalOrder(0))));
        v.add(manifest("manifest-reversed-range", MANIFEST_REVERSED_RANGE, "first 3, last 1",
                m -> m.setPartitions(0, m.getPartitions(0).toBuilder().setFirstTotalOrder(3).setLastTotalOrder(1))));
        v.add(manifest("manifest-zero-event-count", MANIFEST_ZERO_EVENT_COUNT, "event_count 0",
                m -> m.setPartitions(0, m.getPartitions(0).toBuilder().setEventCount(0))));
        v.add(manifest("manifest-event-count-exceeds-range", MANIFEST_EVENT_COUNT_EXCEEDS_RANGE,
                "4 events in a range of 3", m -> m.setPartitions(0, m.getPartitions(0).toBuilder().setEventCount(4))));
        v.add(manifest("manifest-range-above-global", MANIFEST_RANGE_ABOVE_GLOBAL_COUNT,
                "last_total_order beyond global_event_count",
                m -> m.setPartitions(2, m.getPartitions(2).toBuilder().setLastTotalOrder(m.getGlobalEventCount() + 1))));
        v.add(manifest("manifest-counts-do-not-add-up", MANIFEST_COUNTS_DO_NOT_ADD_UP,
                "global_event_count one above the entries' sum", m -> m.setGlobalEventCount(m.getGlobalEventCount() + 1)
                        .setPartitions(2, m.getPartitions(2).toBuilder()
                                .setLastTotalOrder(m.getPartitions(2).getLastTotalOrder()))));
        v.add(manifest("manifest-duplicate-chunk", MANIFEST_DUPLICATE_CHUNK, "chunk 0 listed twice",
                m -> m.setPartitions(1, m.getPartitions(1).toBuilder().setId(0))));
        v.add(marker("marker-empty-barrier", EMPTY_BARRIER, "a marker for zero events and zero partitions",
                k -> k.setGlobalEventCount(0).setParticipatingPartitionCount(0)));
    }

    // ---- barrier: manifest + marker + chunks ------------------------------------------------------------

    private static void barrierRules(List<Vector> v) {
        Decoded d = decodedBarrier();
        v.add(barrier("barrier-missing-chunk", MISSING_CHUNK, "chunk 1 never arrives", d.without(1)));
        v.add(barrier("barrier-chunk-transaction-mismatch", TRANSACTION_ID_MISMATCH,
                "chunk 1 names another transaction", d.editChunk(1, c -> {
                    List<ChangeRecord> changes = retx(c.getChangesList(), "772");
                    var ddl = c.getDdlEventsList().stream().map(e -> e.toBuilder().setTransactionId("772").build())
                            .toList();
                    c.setTransactionId("772").clearChanges().addAllChanges(changes).clearDdlEvents()
                            .addAllDdlEvents(ddl);
                })));
        v.add(barrier("barrier-chunk-fingerprint-mismatch", SCHEMA_FINGERPRINT_MISMATCH,
                "chunk 1's schema version lists a column key flag its fingerprint does not describe",
                d.editChunk(1, c -> c.setSchemaVersions(0, c.getSchemaVersions(0).toBuilder()
                        .setColumns(4, c.getSchemaVersions(0).getColumns(4).toBuilder().setKey(true))))));
        v.add(barrier("barrier-chunk-identity-mismatch", CHUNK_IDENTITY_MISMATCH, "chunk 1 names another dataset",
                d.editChunk(1, c -> c.setDatasetId("other-flow"))));
        v.add(barrier("barrier-unlisted-chunk", UNLISTED_CHUNK, "a fourth chunk the manifest does not list",
                d.plus(d.chunks.get(2).toBuilder().setPartitionId(9).build())));
        v.add(barrier("barrier-event-count-mismatch", EVENT_COUNT_MISMATCH,
                "chunk 2 lost its last event; the manifest still lists 3",
                d.editChunk(2, c -> c.removeChanges(c.getChangesCount() - 1))));
        v.add(barrier("barrier-range-mismatch", CHUNK_RANGE_MISMATCH, "chunk 0's entry is shifted by one",
                d.editManifest(m -> m.setPartitions(0, m.getPartitions(0).toBuilder()
                        .setFirstTotalOrder(2).setLastTotalOrder(4)))));
        v.add(barrier("barrier-duplicate-total-order-change-ddl", DUPLICATE_TOTAL_ORDER,
                "the DDL event in chunk 1 reuses the total_order of a change in chunk 0", d.duplicateDdlOrder()));
        v.add(barrier("barrier-marker-identity-mismatch", MARKER_IDENTITY_MISMATCH,
                "the marker declares one event more", d.editMarker(k -> k.setGlobalEventCount(k.getGlobalEventCount() + 1))));
        v.add(barrier("barrier-marker-manifest-checksum", MARKER_MANIFEST_CHECKSUM_MISMATCH,
                "the marker binds another manifest", d.editMarker(k -> k.setManifestChecksum(k.getManifestChecksum() ^ 1))));
        v.add(barrier("barrier-chunk-checksum-differs-from-manifest", CHUNK_CHECKSUM_MISMATCH,
                "chunk 1 re-encoded with other content after the manifest was sealed",
                d.editChunkKeepListing(1, c -> c.setChanges(0, withColumn(c.getChanges(0), 1,
                        col -> col.setText("customer-X"))))));
        ChunkedBarrier.Barrier good = ChunkedBarrier.strictChunked(TX, 3);
        List<Vector.Part> flippedChunk = parts(good.inOrder());
        flippedChunk.set(1, new Vector.Part(MessageKind.CHUNK, flipInside(good.chunks().get(1).bytes(), "customer-")));
        v.add(new Vector("checksum-chunk", CHECKSUM_MISMATCH, "one byte of chunk 1 flipped", flippedChunk));
        List<Vector.Part> flippedManifest = parts(good.inOrder());
        flippedManifest.set(3, new Vector.Part(MessageKind.MANIFEST, flipInside(good.manifest().bytes(), "orders-flow")));
        v.add(new Vector("checksum-manifest", CHECKSUM_MISMATCH, "one byte of the manifest flipped", flippedManifest));
        List<Vector.Part> flippedMarker = parts(good.inOrder());
        flippedMarker.set(4, new Vector.Part(MessageKind.COMMIT_MARKER,
                flipInside(good.commitMarker().bytes(), "orders-flow")));
        v.add(new Vector("checksum-commit-marker", CHECKSUM_MISMATCH, "one byte of the commit marker flipped",
                flippedMarker));
    }

    private static List<ChangeRecord> retx(List<ChangeRecord> changes, String tx) {
        return changes.stream().map(c -> c.toBuilder().setTransactionId(tx).setIdempotencyKey(
                io.trellara.protocol.EventKey.of("pg-orders", "0/16B3748", tx, c.getTotalOrder())).build()).toList();
    }

    /** A decoded valid barrier whose parts can be edited and re-sealed with consistent checksums. */
    private static final class Decoded {
        final List<PartitionChunk> chunks = new ArrayList<>();
        TransactionManifest manifest;
        TransactionCommitMarker marker;

        Decoded copy() {
            Decoded d = new Decoded();
            d.chunks.addAll(chunks);
            d.manifest = manifest;
            d.marker = marker;
            return d;
        }

        /** Recomputes checksums: chunks, the manifest's listing of them, the manifest, the marker's binding. */
        Decoded seal(boolean relistChunks) {
            for (int i = 0; i < chunks.size(); i++) {
                chunks.set(i, TrellaraCodec.withChecksum(chunks.get(i)));
            }
            TransactionManifest.Builder m = manifest.toBuilder();
            if (relistChunks) {
                for (int i = 0; i < m.getPartitionsCount(); i++) {
                    ManifestPartition p = m.getPartitions(i);
                    for (PartitionChunk c : chunks) {
                        if (c.getPartitionId() == p.getId()) {
                            m.setPartitions(i, p.toBuilder().setChecksum(c.getChecksum()));
                        }
                    }
                }
            }
            manifest = TrellaraCodec.withChecksum(m.build());
            marker = TrellaraCodec.withChecksum(marker.toBuilder().setManifestChecksum(manifest.getChecksum()).build());
            return this;
        }

        List<Vector.Part> parts() {
            List<Vector.Part> out = new ArrayList<>();
            chunks.forEach(c -> out.add(part(TrellaraCodec.encodeWithoutValidation(c))));
            out.add(part(TrellaraCodec.encodeWithoutValidation(manifest)));
            out.add(part(TrellaraCodec.encodeWithoutValidation(marker)));
            return out;
        }

        List<Vector.Part> without(int chunk) {
            List<Vector.Part> p = copy().parts();
            p.remove(chunk);
            return p;
        }

        List<Vector.Part> plus(PartitionChunk extra) {
            Decoded d = copy();
            d.chunks.add(TrellaraCodec.withChecksum(extra));
            return d.parts();
        }

        List<Vector.Part> editChunk(int i, Consumer<PartitionChunk.Builder> edit) {
            Decoded d = copy();
            PartitionChunk.Builder b = d.chunks.get(i).toBuilder();
            edit.accept(b);
            d.chunks.set(i, b.build());
            return d.seal(true).parts();
        }

        /** The chunk changes after the manifest listed its checksum. */
        List<Vector.Part> editChunkKeepListing(int i, Consumer<PartitionChunk.Builder> edit) {
            Decoded d = copy();
            PartitionChunk.Builder b = d.chunks.get(i).toBuilder();
            edit.accept(b);
            d.chunks.set(i, b.build());
            return d.seal(false).parts();
        }

        List<Vector.Part> editManifest(Consumer<TransactionManifest.Builder> edit) {
            Decoded d = copy();
            TransactionManifest.Builder m = d.manifest.toBuilder();
            edit.accept(m);
            d.manifest = m.build();
            return d.seal(false).parts();
        }

        List<Vector.Part> editMarker(Consumer<TransactionCommitMarker.Builder> edit) {
            Decoded d = copy().seal(false);
            TransactionCommitMarker.Builder k = d.marker.toBuilder();
            edit.accept(k);
            d.marker = TrellaraCodec.withChecksum(k.build());
            return d.parts();
        }

        /** Chunk 1 holds the DDL event (sample order 4); give it order 1, which chunk 0's first change holds. */
        List<Vector.Part> duplicateDdlOrder() {
            Decoded d = copy();
            PartitionChunk.Builder c = d.chunks.get(1).toBuilder();
            c.setDdlEvents(0, c.getDdlEvents(0).toBuilder().setTotalOrder(1));
            d.chunks.set(1, c.build());
            TransactionManifest.Builder m = d.manifest.toBuilder();
            m.setPartitions(1, m.getPartitions(1).toBuilder().setFirstTotalOrder(1));
            d.manifest = m.build();
            return d.seal(true).parts();
        }
    }

    private static Decoded decodedBarrier() {
        ChunkedBarrier.Barrier b = ChunkedBarrier.strictChunked(TX, 3);
        Decoded d = new Decoded();
        b.chunks().forEach(c -> d.chunks.add(TrellaraCodec.decodeChunk(c.bytes())));
        d.manifest = TrellaraCodec.decodeManifest(b.manifest().bytes());
        d.marker = TrellaraCodec.decodeCommitMarker(b.commitMarker().bytes());
        return d;
    }

    // ---- helpers ----------------------------------------------------------------------------------------

    private static Vector env(String name, ProtocolRule rule, String description,
                              Consumer<TransactionEnvelope.Builder> edit) {
        TransactionEnvelope.Builder b = TX.toBuilder();
        edit.accept(b);
        return new Vector(name, rule, description, List.of(part(TrellaraCodec.encodeWithoutValidation(b.build()))));
    }

    private static Vector manifest(String name, ProtocolRule rule, String description,
                                   UnaryOperator<TransactionManifest.Builder> edit) {
        TransactionManifest m = edit.apply(decodedBarrier().manifest.toBuilder()).build();
        return new Vector(name, rule, description, List.of(part(TrellaraCodec.encodeWithoutValidation(m))));
    }

    private static Vector marker(String name, ProtocolRule rule, String description,
                                 UnaryOperator<TransactionCommitMarker.Builder> edit) {
        TransactionCommitMarker k = edit.apply(decodedBarrier().marker.toBuilder()).build();
        return new Vector(name, rule, description, List.of(part(TrellaraCodec.encodeWithoutValidation(k))));
    }

    private static Vector barrier(String name, ProtocolRule rule, String description, List<Vector.Part> parts) {
        return new Vector(name, rule, description, parts);
    }

    private static Vector raw(String name, ProtocolRule rule, String description, MessageKind kind, byte[] bytes) {
        return new Vector(name, rule, description, List.of(new Vector.Part(kind, bytes)));
    }

    private static Vector.Part part(EncodedMessage m) {
        return new Vector.Part(m.kind(), m.bytes());
    }

    private static List<Vector.Part> parts(List<EncodedMessage> messages) {
        List<Vector.Part> out = new ArrayList<>();
        messages.forEach(m -> out.add(part(m)));
        return out;
    }

    /** Flips the low bit of the last byte of the first occurrence of {@code marker}: same length, still UTF-8. */
    static byte[] flipInside(byte[] bytes, String marker) {
        byte[] needle = marker.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        outer:
        for (int i = 0; i + needle.length <= bytes.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (bytes[i + j] != needle[j]) {
                    continue outer;
                }
            }
            byte[] copy = bytes.clone();
            copy[i + needle.length - 1] ^= 0x01;
            return copy;
        }
        throw new IllegalArgumentException("marker not found: " + marker);
    }
}
