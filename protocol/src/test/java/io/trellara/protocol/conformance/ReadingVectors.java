package io.trellara.protocol.conformance;

import static io.trellara.protocol.conformance.ConformanceVectors.TX;
import static io.trellara.protocol.conformance.ConformanceVectors.decodedBarrier;
import static io.trellara.protocol.conformance.ConformanceVectors.editSchema;
import static io.trellara.protocol.conformance.ConformanceVectors.env;
import static io.trellara.protocol.conformance.ConformanceVectors.lastDigitChanged;
import static io.trellara.protocol.conformance.ConformanceVectors.part;
import static io.trellara.protocol.conformance.ConformanceVectors.rekey;
import static io.trellara.protocol.conformance.ConformanceVectors.retransaction;
import static io.trellara.protocol.conformance.ConformanceVectors.withColumn;
import static io.trellara.protocol.conformance.ConformanceVectors.withFingerprint;
import static io.trellara.protocol.conformance.ConformanceVectors.withTruncate;
import static io.trellara.protocol.validation.ProtocolRule.*;

import com.google.protobuf.ByteString;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.Checksums;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One vector (at least) for every reading docs/protocol.md states where a reader could have guessed
 * otherwise: each breaks, or keeps, exactly what the document says, and a validator reading the
 * point the other way reaches another verdict, another rule set or another first rule. The mutation
 * check ({@code MisreadingsTest}) proves it for every misreading the reference validator can be
 * switched to.
 */
final class ReadingVectors {
  private static final int ENVELOPE_CHECKSUM = MessageKind.ENVELOPE.checksumTag();
  private static final int OTHER_CHECKSUM = MessageKind.CHUNK.checksumTag();

  private ReadingVectors() {}

  static void all(List<Vector> v) {
    bytes(v);
    identity(v);
    schemaVersions(v);
    changes(v);
    totals(v);
    manifests(v);
    barriers(v);
  }

  // ---- bytes

  private static void bytes(List<Vector> v) {
    v.add(
        new Vector(
            "protocol-version-above-32-bits",
            UNKNOWN_PROTOCOL_VERSION,
            "protocol_version 2^32+1, which a uint32 parser truncates to 1: field 1 is judged on"
                + " all 64 bits before parsing",
            envelope(
                withVersionBytes(RawFields.concat(tag(1, 0), RawFields.varint((1L << 32) + 1))))));
    v.add(
        new Vector(
            "protocol-version-twice",
            MALFORMED_BYTES,
            "field 1 written twice (1, then 1): it decides how the rest is read, so it has one"
                + " reading only",
            envelope(
                RawFields.checksummed(
                    RawFields.concat(new byte[] {0x08, 0x01}, RawFields.join(body(TX))),
                    ENVELOPE_CHECKSUM))));
    v.add(
        Vector.accept(
            "valid-envelope-known-field-wrong-wire-type",
            "begin_lsn (field 6) sent as a varint instead of a string: a field of a wire type the"
                + " IDL does not give it is an unknown field (ignored, covered by the checksum),"
                + " so begin_lsn is absent",
            envelope(
                RawFields.checksummed(
                    RawFields.join(
                        RawFields.replace(
                            body(TX), 6, RawFields.concat(tag(6, 0), RawFields.varint(5)))),
                    ENVELOPE_CHECKSUM))));
    v.add(
        Vector.accept(
            "valid-envelope-unknown-group",
            "an unknown start-group field 99 holding a varint, closed by its end group: an"
                + " unknown field like any other",
            envelope(
                RawFields.checksummed(
                    RawFields.concat(
                        RawFields.join(body(TX)), tag(99, 3), new byte[] {0x08, 0x07}, tag(99, 4)),
                    ENVELOPE_CHECKSUM))));
    v.add(
        new Vector(
            "malformed-end-group-alone",
            MALFORMED_BYTES,
            "an end-group tag (field 99) that no start group opened, before the checksum",
            envelope(
                RawFields.checksummed(
                    RawFields.concat(RawFields.join(body(TX)), tag(99, 4)), ENVELOPE_CHECKSUM))));
    long ts = TX.getCommitTimestampMs();
    byte[] tenBytes = new byte[11];
    tenBytes[0] = 0x40; // field 8, varint
    for (int i = 0; i < 9; i++) {
      tenBytes[1 + i] = (byte) (((ts >>> (7 * i)) & 0x7F) | 0x80);
    }
    tenBytes[10] = 0x02; // bit 64: beyond a uint64, dropped
    v.add(
        Vector.accept(
            "valid-envelope-varint-bits-beyond-64",
            "commit_timestamp_ms as a ten-byte varint whose last byte carries bit 64: outside the"
                + " checksum field a varint is its low 64 bits (the bytes are covered by the"
                + " checksum)",
            envelope(
                RawFields.checksummed(
                    RawFields.join(RawFields.replace(body(TX), 8, tenBytes)), ENVELOPE_CHECKSUM))));
    byte[] nested =
        RawFields.editNested(
            RawFields.join(body(TX)),
            new int[] {10, 0},
            fields -> RawFields.replace(fields, 2, new byte[] {0x10, (byte) 0x81, 0x00}));
    v.add(
        Vector.accept(
            "valid-envelope-non-minimal-varint-nested",
            "the first change's total_order written as the two-byte varint 81 00: non-minimal"
                + " varints are allowed everywhere but the checksum field",
            envelope(RawFields.checksummed(nested, ENVELOPE_CHECKSUM))));
    byte[] wide =
        RawFields.editNested(
            RawFields.join(body(TX)),
            new int[] {9, 0, 3, 0},
            fields ->
                RawFields.replace(
                    fields,
                    4,
                    new byte[] {0x20, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F}));
    wide =
        RawFields.editNested(
            wide,
            new int[] {10, 0},
            fields ->
                RawFields.replace(
                    fields, 6, RawFields.concat(tag(6, 0), RawFields.varint((1L << 32) + 1))));
    v.add(
        Vector.accept(
            "valid-envelope-32-bit-fields-truncated",
            "type_modifier -1 written as the five-byte varint ff ff ff ff 0f and the first"
                + " change's operation as 2^32+1: uint32, int32 and enum fields are their"
                + " varint's low 32 bits (operation 1, insert)",
            envelope(RawFields.checksummed(wide, ENVELOPE_CHECKSUM))));
    v.add(partitionIdAbove32Bits());
    v.add(
        env(
            "column-text-not-utf8-before-other-rules",
            MALFORMED_BYTES,
            "the first change has table_order 0 and the third a column text that is not UTF-8:"
                + " the text check ends step 1, so no rule of the message is judged",
            b -> {
              b.setChanges(0, b.getChanges(0).toBuilder().setTableOrder(0));
              b.setChanges(
                  2,
                  withColumn(
                      b.getChanges(2),
                      1,
                      c -> c.setTextBytes(ByteString.copyFrom(new byte[] {'a', (byte) 0xC3}))));
            }));
  }

  /** Chunk 1 of the strict chunked barrier with partition_id 2^32+1, which reads as 1. */
  private static Vector partitionIdAbove32Bits() {
    ConformanceVectors.Decoded d = decodedBarrier();
    List<RawFields.Field> fields =
        RawFields.without(
            RawFields.split(TrellaraCodec.encodeWithoutValidation(d.chunks.get(1)).bytes()),
            OTHER_CHECKSUM);
    byte[] body =
        RawFields.join(
            RawFields.replace(
                fields, 9, RawFields.concat(tag(9, 0), RawFields.varint((1L << 32) + 1))));
    long checksum = Checksums.xxh3(body);
    TransactionManifest.Builder m = d.manifest.toBuilder();
    m.setPartitions(1, m.getPartitions(1).toBuilder().setChecksum(checksum));
    TransactionManifest manifest = TrellaraCodec.withChecksum(m.build());
    List<Vector.Part> parts = new ArrayList<>();
    parts.add(part(TrellaraCodec.encodeWithoutValidation(d.chunks.get(0))));
    parts.add(new Vector.Part(MessageKind.CHUNK, RawFields.checksummed(body, OTHER_CHECKSUM)));
    parts.add(part(TrellaraCodec.encodeWithoutValidation(d.chunks.get(2))));
    parts.add(part(TrellaraCodec.encodeWithoutValidation(manifest)));
    parts.add(
        part(
            TrellaraCodec.encodeWithoutValidation(
                TrellaraCodec.withChecksum(
                    d.marker.toBuilder().setManifestChecksum(manifest.getChecksum()).build()))));
    return Vector.accept(
        "valid-strict-chunked-partition-id-above-32-bits",
        "chunk 1's partition_id written as 2^32+1: a uint32 is its varint's low 32 bits, so the"
            + " chunk is chunk 1 and the barrier holds",
        parts);
  }

  // ---- identity

  private static void identity(List<Vector> v) {
    v.add(
        env(
            "commit-lsn-zero-not-canonical",
            COMMIT_LSN_NOT_CANONICAL,
            "commit_lsn 00/0: not canonical, and zero (COMMIT_LSN_ZERO is judged on any commit_lsn"
                + " that parses)",
            b -> rekey(b.setCommitLsn("00/0").clearBeginLsn()),
            COMMIT_LSN_ZERO));
    v.add(
        env(
            "blank-source-id-keys-unchanged",
            REQUIRED_FIELD_BLANK,
            "source_id blank, the idempotency keys still naming pg-orders: no event is compared"
                + " with a broken identity field",
            b -> b.setSourceId(" ")));
    v.add(
        env(
            "transaction-id-blank-events-unchanged",
            REQUIRED_FIELD_BLANK,
            "transaction_id empty, every event and idempotency key still naming 771: one fault,"
                + " one rule",
            b -> b.setTransactionId("")));
    v.add(
        env(
            "transaction-id-not-decimal-events-unchanged",
            TRANSACTION_ID_NOT_DECIMAL,
            "the envelope's transaction_id 'tx-771', every event still naming 771",
            b -> b.setTransactionId("tx-771")));
    v.add(
        env(
            "commit-lsn-not-canonical-keys-unchanged",
            COMMIT_LSN_NOT_CANONICAL,
            "commit_lsn 0/016b3748, the idempotency keys still naming 0/16B3748",
            b -> b.setCommitLsn("0/016b3748")));
    v.add(
        env(
            "identity-rules-rule-by-rule",
            REQUIRED_FIELD_BLANK,
            "transaction_id 'tx-771' (repeated by every event) and commit_lsn empty: the identity"
                + " rules are judged rule by rule, so the blank commit_lsn comes first",
            b -> retransaction(b, "tx-771").setCommitLsn(""),
            TRANSACTION_ID_NOT_DECIMAL));
    v.add(
        env(
            "blank-source-id-ideographic-space",
            REQUIRED_FIELD_BLANK,
            "source_id U+3000 (ideographic space), blank by the code-point list though"
                + " String.trim() keeps it",
            b -> rekey(b.setSourceId("\u3000"))));
    v.add(
        Vector.accept(
            "valid-envelope-source-id-no-break-space",
            "source_id U+00A0 (no-break space): not blank",
            List.of(
                part(TrellaraCodec.encode(rekey(TX.toBuilder().setSourceId("\u00A0")).build())))));
    v.add(
        Vector.accept(
            "valid-envelope-source-id-mongolian-vowel-separator",
            "source_id U+180E, white space before Unicode 6.3 and in no JDK's list since: not"
                + " blank by the code-point list",
            List.of(
                part(TrellaraCodec.encode(rekey(TX.toBuilder().setSourceId("\u180E")).build())))));
    ConformanceVectors.Decoded d = decodedBarrier();
    v.add(
        new Vector(
            "manifest-boundary-mode-unspecified-with-strict-fields",
            BOUNDARY_MODE_UNSPECIFIED,
            "boundary_mode 0, partition_count 3 and an entry of chunk_sequence 1: no rule of"
                + " either mode is judged without a mode",
            List.of(
                part(
                    TrellaraCodec.encodeWithoutValidation(
                        d.manifest.toBuilder()
                            .setBoundaryMode(
                                ManifestBoundaryMode.MANIFEST_BOUNDARY_MODE_UNSPECIFIED)
                            .setPartitionCount(3)
                            .setPartitions(
                                1, d.manifest.getPartitions(1).toBuilder().setChunkSequence(1))
                            .build())))));
    PartitionChunk chunk = d.chunks.get(0);
    v.add(
        new Vector(
            "chunk-boundary-mode-unspecified-with-partition-order",
            BOUNDARY_MODE_UNSPECIFIED,
            "a chunk of boundary_mode 0 whose first change has partition_order 1, on its own",
            List.of(
                part(
                    TrellaraCodec.encodeWithoutValidation(
                        chunk.toBuilder()
                            .setBoundaryMode(
                                ManifestBoundaryMode.MANIFEST_BOUNDARY_MODE_UNSPECIFIED)
                            .setChanges(0, chunk.getChanges(0).toBuilder().setPartitionOrder(1))
                            .build())))));
  }

  // ---- schema versions

  private static void schemaVersions(List<Vector> v) {
    SchemaVersion orders = TX.getSchemaVersions(0);
    SchemaVersion customers =
        withFingerprint(
            SchemaVersion.newBuilder()
                .setRelation(RelationId.newBuilder().setSchema("public").setTable("customers"))
                .addColumns(column("id", 20, true))
                .addColumns(column("", 25, false)));
    v.add(
        env(
            "schema-versions-judged-version-by-version",
            COLUMN_NAME_BLANK,
            "schema version 0 (public.customers, no change follows it) has a column without a"
                + " name, version 1 (public.orders) a wrong fingerprint: each version's rules"
                + " before the next version's",
            b ->
                b.clearSchemaVersions()
                    .addSchemaVersions(customers)
                    .addSchemaVersions(
                        orders.toBuilder()
                            .setFingerprint(lastDigitChanged(orders.getFingerprint()))),
            SCHEMA_FINGERPRINT_MISMATCH));
    v.add(
        Vector.accept(
            "valid-envelope-schema-version-without-relation",
            "an extra schema version without a relation (fingerprinted): no change can name it,"
                + " and it is judged by the schema version rules alone",
            List.of(
                part(
                    TrellaraCodec.encode(
                        TX.toBuilder()
                            .addSchemaVersions(
                                withFingerprint(
                                    SchemaVersion.newBuilder().addColumns(column("x", 23, false))))
                            .build())))));
    v.add(
        env(
            "schema-version-twice-unnamed",
            SCHEMA_VERSION_MISSING,
            "the relation's schema version carried twice, byte for byte, and no change names it:"
                + " two entries are not the relation's only version",
            b -> b.addSchemaVersions(orders)));
    TransactionEnvelope.Builder named = TX.toBuilder().addSchemaVersions(orders);
    for (int i = 0; i < named.getChangesCount(); i++) {
      named.setChanges(
          i, named.getChanges(i).toBuilder().setSchemaFingerprint(orders.getFingerprint()));
    }
    v.add(
        Vector.accept(
            "valid-envelope-schema-version-twice-named",
            "the relation's schema version carried twice and every change naming its"
                + " fingerprint: both entries lay rows out the same way",
            List.of(part(TrellaraCodec.encode(named.build())))));
  }

  private static ColumnDefinition column(String name, int oid, boolean key) {
    return ColumnDefinition.newBuilder()
        .setName(name)
        .setTypeOid(oid)
        .setTypeName(oid == 20 ? "bigint" : oid == 23 ? "integer" : "text")
        .setTypeModifier(-1)
        .setKey(key)
        .build();
  }

  // ---- changes

  private static void changes(List<Vector> v) {
    int delete = TX.getChangesCount() - 1;
    int update = delete - 1;
    v.add(
        env(
            "truncate-relation-missing",
            RELATION_MISSING,
            "a truncate without a relation whose TruncateSpec names public.orders: its first"
                + " relation is compared only with a relation the change names",
            b -> {
              withTruncate(b);
              b.setChanges(delete, b.getChanges(delete).toBuilder().clearRelation());
            }));
    v.add(
        Vector.accept(
            "valid-envelope-insert-with-before",
            "an insert carrying a before image (a copy of its after image) it does not use:"
                + " judged like any image, otherwise ignored",
            List.of(
                part(
                    TrellaraCodec.encode(
                        edit(
                            b ->
                                b.setChanges(
                                    0,
                                    b.getChanges(0).toBuilder()
                                        .setBefore(b.getChanges(0).getAfter()))))))));
    v.add(
        env(
            "insert-before-too-few-columns",
            ROW_IMAGE_COLUMN_COUNT_MISMATCH,
            "an insert whose unused before image carries one column of five",
            b ->
                b.setChanges(
                    0,
                    b.getChanges(0).toBuilder()
                        .setBefore(
                            RowImage.newBuilder()
                                .addColumns(b.getChanges(0).getAfter().getColumns(0))))));
    v.add(
        Vector.accept(
            "valid-envelope-truncate-with-image",
            "a truncate carrying a one-column before image: a truncate follows no schema"
                + " version, so only its columns' states are judged",
            List.of(
                part(
                    TrellaraCodec.encode(
                        edit(
                            b -> {
                              withTruncate(b);
                              b.setChanges(
                                  delete,
                                  b.getChanges(delete).toBuilder()
                                      .setBefore(
                                          RowImage.newBuilder()
                                              .addColumns(
                                                  b.getChanges(0).getAfter().getColumns(0))));
                            }))))));
    v.add(
        Vector.accept(
            "valid-envelope-delete-replica-identity-nothing-with-key",
            "a delete marked REPLICA IDENTITY NOTHING whose schema version flags a key column it"
                + " carries: the key flags decide, whatever replica_identity says",
            List.of(
                part(
                    TrellaraCodec.encode(
                        edit(
                            b ->
                                b.setChanges(
                                    delete,
                                    b.getChanges(delete).toBuilder()
                                        .setReplicaIdentity(
                                            ReplicaIdentity.REPLICA_IDENTITY_NOTHING))))))));
    v.add(
        env(
            "delete-replica-identity-full-key-null",
            MISSING_KEY_COLUMN,
            "a delete under REPLICA IDENTITY FULL whose schema version flags the key column"
                + " and whose old row has it NULL: FULL does not excuse a flagged key",
            b -> {
              b.setChanges(
                  delete,
                  withColumn(
                          b.getChanges(delete),
                          0,
                          c -> c.setState(ColumnState.COLUMN_STATE_NULL).clearText())
                      .toBuilder()
                      .setReplicaIdentity(ReplicaIdentity.REPLICA_IDENTITY_FULL));
            }));
    v.add(
        Vector.accept(
            "valid-envelope-replica-identity-full-without-key",
            "no key column in the schema version; the update and the delete under REPLICA"
                + " IDENTITY FULL with their old rows",
            List.of(
                part(
                    TrellaraCodec.encode(
                        edit(
                            b ->
                                keyless(
                                    b, update, delete, ReplicaIdentity.REPLICA_IDENTITY_FULL)))))));
    v.add(
        env(
            "delete-replica-identity-nothing-without-key",
            MISSING_KEY_COLUMN,
            "no key column in the schema version and a delete under REPLICA IDENTITY NOTHING"
                + " (the update is FULL): nothing identifies the deleted row",
            b -> keyless(b, update, delete, ReplicaIdentity.REPLICA_IDENTITY_NOTHING)));
  }

  /** The key flag cleared; the update FULL, the delete {@code deleteIdentity}. */
  private static void keyless(
      TransactionEnvelope.Builder b, int update, int delete, ReplicaIdentity deleteIdentity) {
    editSchema(b, s -> s.getColumnsBuilder(0).setKey(false));
    b.setChanges(
        update,
        b.getChanges(update).toBuilder().setReplicaIdentity(ReplicaIdentity.REPLICA_IDENTITY_FULL));
    b.setChanges(delete, b.getChanges(delete).toBuilder().setReplicaIdentity(deleteIdentity));
  }

  // ---- total orders

  private static void totals(List<Vector> v) {
    int delete = TX.getChangesCount() - 1;
    v.add(
        env(
            "duplicate-total-order-hides-gap",
            DUPLICATE_TOTAL_ORDER,
            "the delete reuses the update's total_order 8: 9 events, the highest order 8, but"
                + " TOTAL_ORDER_GAP is judged only on non-zero, ascending, unique orders",
            b ->
                rekey(
                    b.setChanges(
                        delete,
                        b.getChanges(delete).toBuilder()
                            .setTotalOrder(b.getChanges(delete - 1).getTotalOrder())))));
    v.add(
        env(
            "total-order-zero-hides-gap",
            TOTAL_ORDER_ZERO,
            "the first change has total_order 0 and the DDL event 10: the highest order is not"
                + " the count, but the zero is the message's one fault",
            b -> {
              rekey(b.setChanges(0, b.getChanges(0).toBuilder().setTotalOrder(0)));
              b.setDdlEvents(0, b.getDdlEvents(0).toBuilder().setTotalOrder(10));
            }));
  }

  // ---- manifests

  private static void manifests(List<Vector> v) {
    TransactionManifest m = decodedBarrier().manifest;
    v.add(
        new Vector(
            "manifest-entries-judged-entry-by-entry",
            MANIFEST_RANGE_ABOVE_GLOBAL_COUNT,
            "entry 0's last_total_order 10 is above global_event_count 9, entry 1's range is"
                + " reversed (6..4): every rule of one entry before the next entry",
            List.of(
                part(
                    TrellaraCodec.encodeWithoutValidation(
                        m.toBuilder()
                            .setPartitions(0, m.getPartitions(0).toBuilder().setLastTotalOrder(10))
                            .setPartitions(
                                1,
                                m.getPartitions(1).toBuilder()
                                    .setFirstTotalOrder(6)
                                    .setLastTotalOrder(4))
                            .build()))),
            MANIFEST_REVERSED_RANGE));
  }

  // ---- barriers

  private static void barriers(List<Vector> v) {
    ConformanceVectors.Decoded d = decodedBarrier();
    List<Vector.Part> all = d.copy().parts();
    v.add(
        new Vector(
            "barrier-without-chunks",
            EMPTY_BARRIER,
            "a manifest and its marker, no chunk: the barrier is empty, its one fault (no chunk"
                + " is reported missing)",
            all.subList(3, 5)));
    v.add(
        Vector.accept(
            "valid-chunks-without-manifest",
            "three chunks and neither manifest nor marker: each passes on its own and no barrier"
                + " is judged (it is incomplete, not broken)",
            all.subList(0, 3)));
    v.add(
        Vector.accept(
            "valid-barrier-without-marker",
            "chunks 0 and 2 and the manifest, no marker yet: no barrier is judged, so chunk 1 is"
                + " not missing (a consumer still waits)",
            List.of(all.get(0), all.get(2), all.get(3))));
    v.add(
        new Vector(
            "barrier-marker-transaction-mismatch",
            TRANSACTION_ID_MISMATCH,
            "the marker names transaction 772 (valid on its own): a vector's manifest and marker"
                + " are paired by position, whatever identities they carry",
            d.editMarker(k -> k.setTransactionId("772"))));
    List<Vector.Part> again = new ArrayList<>(all);
    again.add(all.get(3));
    again.add(all.get(4));
    v.add(
        Vector.accept(
            "valid-strict-chunked-manifest-and-marker-redelivered",
            "the manifest and the marker delivered twice, byte for byte: the copies are absorbed",
            again));
    List<Vector.Part> second = new ArrayList<>(all);
    second.add(
        part(
            TrellaraCodec.encodeWithoutValidation(
                TrellaraCodec.withChecksum(d.manifest.toBuilder().clearAffectedTables().build()))));
    v.add(
        new Vector(
            "barrier-second-manifest-differs",
            MARKER_MANIFEST_CHECKSUM_MISMATCH,
            "after the barrier, a second manifest of the transaction (valid on its own, without"
                + " affected_tables): the marker binds the first, not it",
            second));
  }

  // ---- helpers

  private static TransactionEnvelope edit(Consumer<TransactionEnvelope.Builder> edit) {
    TransactionEnvelope.Builder b = TX.toBuilder();
    edit.accept(b);
    return b.build();
  }

  private static List<Vector.Part> envelope(byte[] bytes) {
    return List.of(new Vector.Part(MessageKind.ENVELOPE, bytes));
  }

  /** The writer's bytes of {@code tx} without the checksum field. */
  private static List<RawFields.Field> body(TransactionEnvelope tx) {
    return RawFields.without(RawFields.split(TrellaraCodec.encode(tx).bytes()), ENVELOPE_CHECKSUM);
  }

  /** TX with field 1 replaced by {@code version}, checksummed. */
  private static byte[] withVersionBytes(byte[] version) {
    return RawFields.checksummed(
        RawFields.join(RawFields.replace(body(TX), 1, version)), ENVELOPE_CHECKSUM);
  }

  private static byte[] tag(int field, int wireType) {
    return RawFields.varint(field << 3 | wireType);
  }
}
