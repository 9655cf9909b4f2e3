package io.trellara.protocol.conformance;

import static io.trellara.protocol.validation.ProtocolRule.*;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.SchemaFingerprint;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.boundary.BarrierPlanner;
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
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.v1.TruncateSpec;
import io.trellara.protocol.validation.ProtocolRule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The conformance kit's vectors, built from deterministic samples: valid messages of every kind,
 * and at least one crafted violation per {@link ProtocolRule}. Negative vectors carry correct
 * checksums (unless the checksum is the point) and keep every other field valid, so each breaks
 * exactly the rules it lists (ConformanceKitTest checks it with every rule judged).
 */
public final class ConformanceVectors {
  static final TransactionEnvelope TX = SampleTransactions.envelope(6, true);

  private ConformanceVectors() {}

  public static List<Vector> all() {
    List<Vector> v = new ArrayList<>();
    valid(v);
    envelopeRules(v);
    manifestRules(v);
    barrierRules(v);
    ReadingVectors.all(v);
    return v;
  }

  // ---- valid
  // ------------------------------------------------------------------------------------------

  private static void valid(List<Vector> v) {
    v.add(
        Vector.accept(
            "valid-envelope",
            "a strict transaction: 6 inserts, an ALTER TABLE between them,"
                + " an update with an unchanged-TOAST column, a delete",
            List.of(part(TrellaraCodec.encode(TX)))));
    v.add(
        Vector.accept(
            "valid-envelope-single-insert",
            "the smallest strict transaction",
            List.of(part(TrellaraCodec.encode(SampleTransactions.envelope(1, false))))));
    v.add(
        Vector.accept(
            "valid-envelope-schema-change",
            "an insert, ALTER TABLE ... ADD COLUMN, an insert of"
                + " the widened table: two schema versions of one relation, each change naming its own by"
                + " schema_fingerprint",
            List.of(part(TrellaraCodec.encode(SampleTransactions.envelopeWithSchemaChange())))));
    v.add(
        Vector.accept(
            "valid-envelope-truncate",
            "the delete replaced by TRUNCATE orders: a TruncateSpec naming"
                + " the relation, no row image",
            List.of(part(TrellaraCodec.encode(withTruncate(TX.toBuilder()).build())))));
    ChunkedBarrier.Barrier b = ChunkedBarrier.strictChunked(TX, 3);
    v.add(
        Vector.accept(
            "valid-strict-chunked",
            "the same transaction as 3 chunks of at most 3 events,"
                + " its manifest and commit marker",
            parts(b.inOrder())));
    List<Vector.Part> redelivered = parts(b.inOrder());
    redelivered.add(2, part(b.chunks().get(1)));
    v.add(
        Vector.accept(
            "valid-strict-chunked-chunk-redelivered",
            "chunk 1 delivered twice, byte for byte (the"
                + " stream is at-least-once): the copy is absorbed",
            redelivered));
    v.add(
        Vector.accept(
            "valid-partitioned",
            "the same transaction in partitioned scale mode over 2 lanes (by"
                + " key parity; the DDL event on lane 0), at most 2 events a chunk: chunk_sequence 0, 1, ... per lane",
            parts(partitioned(TX))));
    v.add(
        Vector.accept(
            "valid-snapshot",
            "a source's initial snapshot: transaction_id 'snapshot', inserts only,"
                + " strict chunked (commit_lsn is the replication slot's consistent point)",
            parts(
                ChunkedBarrier.strictChunked(
                        retransaction(
                                SampleTransactions.envelope(6, false).toBuilder(),
                                Snapshots.TRANSACTION_ID)
                            .build(),
                        3)
                    .inOrder())));
    NonCanonical.valid(TX, v);
  }

  /** The last change (a delete) replaced by a truncate of the same relation. */
  static TransactionEnvelope.Builder withTruncate(TransactionEnvelope.Builder b) {
    int last = b.getChangesCount() - 1;
    ChangeRecord delete = b.getChanges(last);
    return b.setChanges(
        last,
        delete.toBuilder()
            .setOperation(Operation.OPERATION_TRUNCATE)
            .clearBefore()
            .setTruncate(TruncateSpec.newBuilder().addRelations(delete.getRelation())));
  }

  /**
   * {@code tx} through the planner in partitioned scale mode, as the source routes it, with lane
   * orders.
   */
  private static List<EncodedMessage> partitioned(TransactionEnvelope tx) {
    List<EncodedMessage> out = new ArrayList<>();
    BarrierPlanner planner =
        BarrierPlanner.partitioned(
            new BarrierPlanner.TransactionHeader(
                tx.getProtocolVersion(),
                tx.getSourceId(),
                tx.getDatabaseId(),
                tx.getDatasetId(),
                tx.getTransactionId(),
                tx.getBeginLsn(),
                tx.getCommitLsn(),
                tx.getCommitTimestampMs()),
            2,
            2,
            Long.MAX_VALUE,
            c -> out.add(c.message()));
    long[] partitionOrder = new long[2];
    int d = 0;
    for (ChangeRecord c : tx.getChangesList()) {
      while (d < tx.getDdlEventsCount() && tx.getDdlEvents(d).getTotalOrder() < c.getTotalOrder()) {
        planner.addDdl(0, tx.getDdlEvents(d++));
      }
      RowImage identifying = c.hasBefore() ? c.getBefore() : c.getAfter();
      int lane = Integer.parseInt(identifying.getColumns(0).getText()) % 2;
      planner.addChange(
          lane,
          c.toBuilder().setPartitionOrder(++partitionOrder[lane]).build(),
          tx.getSchemaVersions(0));
    }
    while (d < tx.getDdlEventsCount()) {
      planner.addDdl(0, tx.getDdlEvents(d++));
    }
    BarrierPlanner.Closing closing = planner.finish();
    out.add(closing.manifest());
    out.add(closing.commitMarker());
    return out;
  }

  // ---- single-envelope rules
  // --------------------------------------------------------------------------

  private static void envelopeRules(List<Vector> v) {
    byte[] good = TrellaraCodec.encode(TX).bytes();
    v.add(
        raw(
            "malformed-truncated",
            MALFORMED_BYTES,
            "the envelope cut off in the middle of a field",
            MessageKind.ENVELOPE,
            Arrays.copyOf(good, good.length / 2)));
    v.add(
        env(
            "unknown-protocol-version",
            UNKNOWN_PROTOCOL_VERSION,
            "protocol_version 2, correctly checksummed",
            b -> b.setProtocolVersion(2)));
    v.add(
        raw(
            "checksum-envelope",
            CHECKSUM_MISMATCH,
            "one byte of a customer name flipped",
            MessageKind.ENVELOPE,
            flipInside(good, "customer-1")));
    v.add(
        env(
            "blank-source-id",
            REQUIRED_FIELD_BLANK,
            "source_id is blank (the idempotency keys repeat it)",
            b -> rekey(b.setSourceId(" "))));
    v.add(
        env(
            "transaction-id-not-decimal",
            TRANSACTION_ID_NOT_DECIMAL,
            "transaction_id 'tx-771', repeated by" + " every change, DDL event and idempotency key",
            b -> retransaction(b, "tx-771")));
    v.add(
        env(
            "transaction-id-leading-zero",
            TRANSACTION_ID_NOT_DECIMAL,
            "transaction_id '0771', repeated by" + " every change, DDL event and idempotency key",
            b -> retransaction(b, "0771")));
    v.add(
        env(
            "change-transaction-id-mismatch",
            TRANSACTION_ID_MISMATCH,
            "a change names another transaction",
            b -> b.setChanges(1, b.getChanges(1).toBuilder().setTransactionId("772"))));
    v.add(
        env(
            "begin-lsn-unparsable",
            BEGIN_LSN_INVALID,
            "begin_lsn is not an LSN",
            b -> b.setBeginLsn("zz")));
    v.add(
        env(
            "begin-after-commit",
            BEGIN_LSN_AFTER_COMMIT,
            "begin_lsn above commit_lsn",
            b -> b.setBeginLsn("1/0")));
    v.add(
        env(
            "commit-lsn-not-canonical",
            COMMIT_LSN_NOT_CANONICAL,
            "leading zero and lower case",
            b -> rekey(b.setCommitLsn("0/016b3748"))));
    v.add(
        env(
            "commit-lsn-zero",
            COMMIT_LSN_ZERO,
            "commit_lsn 0/0 (no begin_lsn, which would be above it)",
            b -> rekey(b.setCommitLsn("0/0").clearBeginLsn())));
    v.add(
        env(
            "commit-timestamp-zero",
            COMMIT_TIMESTAMP_NOT_POSITIVE,
            "commit_timestamp_ms 0",
            b -> b.setCommitTimestampMs(0)));
    v.add(
        env(
            "total-order-zero",
            TOTAL_ORDER_ZERO,
            "the first change has total_order 0 (and the idempotency key" + " of order 0)",
            b -> rekey(b.setChanges(0, b.getChanges(0).toBuilder().setTotalOrder(0)))));
    v.add(
        env(
            "table-order-zero",
            TABLE_ORDER_ZERO,
            "the first change has table_order 0",
            b -> b.setChanges(0, b.getChanges(0).toBuilder().setTableOrder(0))));
    v.add(
        env(
            "partition-order-in-strict-mode",
            PARTITION_ORDER_IN_STRICT_MODE,
            "a change of a strict envelope" + " has partition_order 1",
            b -> b.setChanges(0, b.getChanges(0).toBuilder().setPartitionOrder(1))));
    v.add(
        env(
            "total-order-descending",
            TOTAL_ORDER_NOT_ASCENDING,
            "two changes swapped",
            b -> {
              ChangeRecord first = b.getChanges(0);
              b.setChanges(0, b.getChanges(1)).setChanges(1, first);
            }));
    v.add(
        env(
            "duplicate-total-order-change-ddl",
            DUPLICATE_TOTAL_ORDER,
            "the DDL event reuses the total_order of a change",
            b ->
                b.setDdlEvents(
                    0,
                    b.getDdlEvents(0).toBuilder().setTotalOrder(b.getChanges(2).getTotalOrder()))));
    v.add(
        env(
            "total-order-gap",
            TOTAL_ORDER_GAP,
            "a change removed: orders skip one",
            b -> b.removeChanges(2)));
    v.add(
        env(
            "idempotency-key-blank",
            IDEMPOTENCY_KEY_BLANK,
            "a blank idempotency_key",
            b -> b.setChanges(0, b.getChanges(0).toBuilder().setIdempotencyKey(""))));
    v.add(
        env(
            "idempotency-key-mismatch",
            IDEMPOTENCY_KEY_MISMATCH,
            "idempotency_key names total_order 9",
            b ->
                b.setChanges(
                    0,
                    b.getChanges(0).toBuilder().setIdempotencyKey("pg-orders:0/16B3748:771:9"))));
    v.add(
        env(
            "relation-missing",
            RELATION_MISSING,
            "a change without a relation",
            b -> b.setChanges(0, b.getChanges(0).toBuilder().clearRelation())));
    v.add(
        env(
            "operation-unspecified",
            OPERATION_UNSPECIFIED,
            "operation 0",
            b ->
                b.setChanges(
                    0, b.getChanges(0).toBuilder().setOperation(Operation.OPERATION_UNSPECIFIED))));
    v.add(
        env(
            "operation-unknown-value",
            OPERATION_UNSPECIFIED,
            "operation 9, a number the IDL does not name",
            b -> b.setChanges(0, b.getChanges(0).toBuilder().setOperationValue(9))));
    v.add(
        env(
            "replica-identity-unspecified",
            REPLICA_IDENTITY_UNSPECIFIED,
            "replica_identity 0",
            b ->
                b.setChanges(
                    0,
                    b.getChanges(0).toBuilder()
                        .setReplicaIdentity(ReplicaIdentity.REPLICA_IDENTITY_UNSPECIFIED))));
    v.add(
        env(
            "replica-identity-unknown-value",
            REPLICA_IDENTITY_UNSPECIFIED,
            "replica_identity 9, a number the" + " IDL does not name",
            b -> b.setChanges(0, b.getChanges(0).toBuilder().setReplicaIdentityValue(9))));
    v.add(
        env(
            "truncate-without-spec",
            TRUNCATE_SPEC_INVALID,
            "a truncate that carries no TruncateSpec",
            b ->
                withTruncate(b)
                    .setChanges(
                        b.getChangesCount() - 1,
                        b.getChanges(b.getChangesCount() - 1).toBuilder().clearTruncate())));
    v.add(
        env(
            "truncate-first-relation-differs",
            TRUNCATE_SPEC_INVALID,
            "a truncate of public.orders whose" + " TruncateSpec names public.customers first",
            b -> {
              int last = withTruncate(b).getChangesCount() - 1;
              b.setChanges(
                  last,
                  b.getChanges(last).toBuilder()
                      .setTruncate(
                          TruncateSpec.newBuilder()
                              .addRelations(
                                  RelationId.newBuilder().setSchema("public").setTable("customers"))
                              .addRelations(b.getChanges(last).getRelation())));
            }));
    v.add(
        env(
            "insert-with-truncate-spec",
            TRUNCATE_SPEC_INVALID,
            "an insert that carries a TruncateSpec",
            b ->
                b.setChanges(
                    0,
                    b.getChanges(0).toBuilder()
                        .setTruncate(
                            TruncateSpec.newBuilder()
                                .addRelations(b.getChanges(0).getRelation())))));
    v.add(
        env(
            "insert-without-after",
            ROW_IMAGE_MISSING,
            "an insert with no after image",
            b -> b.setChanges(0, b.getChanges(0).toBuilder().clearAfter())));
    v.add(
        env(
            "column-state-unspecified",
            COLUMN_STATE_UNSPECIFIED,
            "a column without a state",
            b ->
                b.setChanges(
                    0,
                    withColumn(
                        b.getChanges(0),
                        1,
                        c -> c.setState(ColumnState.COLUMN_STATE_UNSPECIFIED)))));
    v.add(
        env(
            "column-state-unknown-value",
            COLUMN_STATE_UNSPECIFIED,
            "a column of state 9, a number the IDL" + " does not name",
            b -> b.setChanges(0, withColumn(b.getChanges(0), 1, c -> c.setStateValue(9)))));
    v.add(
        env(
            "column-text-not-utf8",
            MALFORMED_BYTES,
            "a column's text holds a byte sequence that is not UTF-8"
                + " (0xC3 0x28), correctly checksummed",
            b ->
                b.setChanges(
                    0,
                    withColumn(
                        b.getChanges(0),
                        1,
                        c ->
                            c.setTextBytes(
                                com.google.protobuf.ByteString.copyFrom(
                                    new byte[] {'a', (byte) 0xC3, 0x28}))))));
    v.add(
        env(
            "column-name-blank",
            COLUMN_NAME_BLANK,
            "a schema version's column without a name (fingerprinted)",
            b -> editSchema(b, s -> s.getColumnsBuilder(1).setName(""))));
    v.add(
        env(
            "column-name-duplicate",
            COLUMN_NAME_DUPLICATE,
            "a schema version naming its key column twice (fingerprinted)",
            b -> editSchema(b, s -> s.getColumnsBuilder(1).setName("id"))));
    v.add(
        env(
            "row-image-too-few-columns",
            ROW_IMAGE_COLUMN_COUNT_MISMATCH,
            "a delete whose before image carries only the key column (the schema version has 5)",
            b -> {
              int last = b.getChangesCount() - 1;
              b.setChanges(
                  last,
                  b.getChanges(last).toBuilder()
                      .setBefore(
                          RowImage.newBuilder()
                              .addColumns(b.getChanges(last).getBefore().getColumns(0))));
            }));
    v.add(
        env(
            "row-image-too-many-columns",
            ROW_IMAGE_COLUMN_COUNT_MISMATCH,
            "an insert whose after image carries a sixth column",
            b ->
                b.setChanges(
                    0,
                    b.getChanges(0).toBuilder()
                        .setAfter(
                            b.getChanges(0).getAfter().toBuilder()
                                .addColumns(b.getChanges(0).getAfter().getColumns(1)))
                        .build())));
    v.add(
        env(
            "schema-version-missing",
            SCHEMA_VERSION_MISSING,
            "no schema_versions entry",
            b -> b.clearSchemaVersions()));
    TransactionEnvelope schemaChange = SampleTransactions.envelopeWithSchemaChange();
    v.add(
        new Vector(
            "schema-version-ambiguous",
            SCHEMA_VERSION_MISSING,
            "two schema versions of the relation and the first change names none in schema_fingerprint",
            List.of(
                part(
                    TrellaraCodec.encodeWithoutValidation(
                        schemaChange.toBuilder()
                            .setChanges(
                                0, schemaChange.getChanges(0).toBuilder().clearSchemaFingerprint())
                            .build())))));
    v.add(
        env(
            "schema-version-unknown-fingerprint",
            SCHEMA_VERSION_MISSING,
            "a change names a schema_fingerprint no schema version of its relation has",
            b ->
                b.setChanges(
                    0, b.getChanges(0).toBuilder().setSchemaFingerprint("0123456789abcdef"))));
    v.add(
        env(
            "schema-fingerprint-mismatch",
            SCHEMA_FINGERPRINT_MISMATCH,
            "the fingerprint's last hex digit changed; the columns are as they were",
            b ->
                b.setSchemaVersions(
                    0,
                    b.getSchemaVersions(0).toBuilder()
                        .setFingerprint(
                            lastDigitChanged(b.getSchemaVersions(0).getFingerprint())))));
    v.add(
        env(
            "schema-fingerprint-stale",
            SCHEMA_FINGERPRINT_MISMATCH,
            "a column widened (typmod) but the fingerprint is the old shape's",
            b ->
                b.setSchemaVersions(
                    0,
                    b.getSchemaVersions(0).toBuilder()
                        .setColumns(
                            1,
                            b.getSchemaVersions(0).getColumns(1).toBuilder()
                                .setTypeModifier(104)))));
    v.add(
        env(
            "delete-missing-key",
            MISSING_KEY_COLUMN,
            "a delete whose before image has its key column NULL",
            b -> {
              int last = b.getChangesCount() - 1;
              b.setChanges(
                  last,
                  withColumn(
                      b.getChanges(last),
                      0,
                      c -> c.setState(ColumnState.COLUMN_STATE_NULL).clearText()));
            }));
    v.add(
        env(
            "delete-key-not-sent",
            MISSING_KEY_COLUMN,
            "a delete whose before image marks its key column unchanged-TOAST (not sent)",
            b -> {
              int last = b.getChangesCount() - 1;
              b.setChanges(
                  last,
                  withColumn(
                      b.getChanges(last),
                      0,
                      c -> c.setState(ColumnState.COLUMN_STATE_UNCHANGED_TOAST).clearText()));
            }));
    v.add(
        env(
            "delete-key-column-moved",
            MISSING_KEY_COLUMN,
            "a delete whose before image carries the key value at another position than the key column's",
            b -> {
              int last = b.getChangesCount() - 1;
              RowImage before = b.getChanges(last).getBefore();
              b.setChanges(
                  last,
                  b.getChanges(last).toBuilder()
                      .setBefore(
                          before.toBuilder()
                              .setColumns(1, before.getColumns(0))
                              .setColumns(0, before.getColumns(1))));
            }));
    v.add(
        env(
            "update-key-unchanged-toast",
            MISSING_KEY_COLUMN,
            "an update whose key column is marked unchanged-TOAST",
            b -> {
              int update = b.getChangesCount() - 2;
              b.setChanges(
                  update,
                  withColumn(
                      b.getChanges(update),
                      0,
                      c -> c.setState(ColumnState.COLUMN_STATE_UNCHANGED_TOAST).clearText()));
            }));
    v.add(
        env(
            "ddl-command-tag-blank",
            DDL_COMMAND_TAG_BLANK,
            "a DDL event without a command tag",
            b -> b.setDdlEvents(0, b.getDdlEvents(0).toBuilder().setCommandTag(""))));
    v.add(
        env(
            "manifest-on-plain-strict",
            MANIFEST_ON_PLAIN_STRICT,
            "an envelope carrying a manifest",
            b -> b.setManifest(decodedBarrier().manifest)));
    v.add(
        env(
            "empty-envelope",
            EMPTY_BARRIER,
            "no change and no DDL event",
            b -> b.clearChanges().clearDdlEvents()));
    NonCanonical.invalid(TX, v);
  }

  /** Every event, and the envelope, names {@code tx}; the idempotency keys follow. */
  static TransactionEnvelope.Builder retransaction(TransactionEnvelope.Builder b, String tx) {
    b.setTransactionId(tx);
    for (int i = 0; i < b.getChangesCount(); i++) {
      b.setChanges(i, b.getChanges(i).toBuilder().setTransactionId(tx));
    }
    for (int i = 0; i < b.getDdlEventsCount(); i++) {
      b.setDdlEvents(i, b.getDdlEvents(i).toBuilder().setTransactionId(tx));
    }
    return rekey(b);
  }

  /** Edits the first schema version and fingerprints it again, so only the edit is wrong. */
  static void editSchema(TransactionEnvelope.Builder b, Consumer<SchemaVersion.Builder> edit) {
    SchemaVersion.Builder s = b.getSchemaVersions(0).toBuilder();
    edit.accept(s);
    b.setSchemaVersions(0, withFingerprint(s));
  }

  static SchemaVersion withFingerprint(SchemaVersion.Builder s) {
    return s.setFingerprint(SchemaFingerprint.of(s)).build();
  }

  static String lastDigitChanged(String hex) {
    char last = hex.charAt(hex.length() - 1);
    return hex.substring(0, hex.length() - 1) + (last == '0' ? '1' : '0');
  }

  static TransactionEnvelope.Builder rekey(TransactionEnvelope.Builder b) {
    for (int i = 0; i < b.getChangesCount(); i++) {
      ChangeRecord c = b.getChanges(i);
      b.setChanges(
          i,
          c.toBuilder()
              .setIdempotencyKey(
                  io.trellara.protocol.EventKey.of(
                      b.getSourceId(), b.getCommitLsn(), b.getTransactionId(), c.getTotalOrder())));
    }
    return b;
  }

  static ChangeRecord withColumn(
      ChangeRecord c, int index, Consumer<io.trellara.protocol.v1.ColumnValue.Builder> edit) {
    ChangeRecord.Builder b = c.toBuilder();
    RowImage.Builder image =
        c.hasBefore() && c.getOperation() == Operation.OPERATION_DELETE
            ? b.getBeforeBuilder()
            : b.getAfterBuilder();
    edit.accept(image.getColumnsBuilder(index));
    return b.build();
  }

  // ---- manifest and marker on their own
  // ---------------------------------------------------------------

  private static void manifestRules(List<Vector> v) {
    v.add(
        manifest(
            "manifest-boundary-mode-unspecified",
            BOUNDARY_MODE_UNSPECIFIED,
            "boundary_mode 0",
            m -> m.setBoundaryMode(ManifestBoundaryMode.MANIFEST_BOUNDARY_MODE_UNSPECIFIED)));
    v.add(
        new Vector(
            "manifest-partitions-empty",
            MANIFEST_PARTITIONS_EMPTY,
            "no entries (so no sum to compare with global_event_count)",
            manifest(m -> m.clearPartitions())));
    v.add(
        manifest(
            "manifest-zero-first-total-order",
            MANIFEST_ZERO_TOTAL_ORDER,
            "first_total_order 0",
            m -> m.setPartitions(0, m.getPartitions(0).toBuilder().setFirstTotalOrder(0))));
    v.add(
        manifest(
            "manifest-zero-last-total-order",
            MANIFEST_ZERO_TOTAL_ORDER,
            "last_total_order 0",
            m -> m.setPartitions(0, m.getPartitions(0).toBuilder().setLastTotalOrder(0))));
    v.add(
        manifest(
            "manifest-reversed-range",
            MANIFEST_REVERSED_RANGE,
            "first 3, last 1",
            m ->
                m.setPartitions(
                    0, m.getPartitions(0).toBuilder().setFirstTotalOrder(3).setLastTotalOrder(1))));
    v.add(
        new Vector(
            "manifest-zero-event-count",
            MANIFEST_ZERO_EVENT_COUNT,
            "event_count 0, so the entries add up to 3 fewer than" + " global_event_count",
            manifest(m -> m.setPartitions(0, m.getPartitions(0).toBuilder().setEventCount(0))),
            MANIFEST_COUNTS_DO_NOT_ADD_UP));
    v.add(
        manifest(
            "manifest-event-count-exceeds-range",
            MANIFEST_EVENT_COUNT_EXCEEDS_RANGE,
            "4 events in a range of 3 (the next entry declares one fewer, so the counts still add up)",
            m ->
                m.setPartitions(0, m.getPartitions(0).toBuilder().setEventCount(4))
                    .setPartitions(1, m.getPartitions(1).toBuilder().setEventCount(2))));
    v.add(
        manifest(
            "manifest-range-above-global",
            MANIFEST_RANGE_ABOVE_GLOBAL_COUNT,
            "last_total_order beyond global_event_count",
            m ->
                m.setPartitions(
                    2,
                    m.getPartitions(2).toBuilder()
                        .setLastTotalOrder(m.getGlobalEventCount() + 1))));
    v.add(
        manifest(
            "manifest-counts-do-not-add-up",
            MANIFEST_COUNTS_DO_NOT_ADD_UP,
            "global_event_count one above the entries' sum",
            m ->
                m.setGlobalEventCount(m.getGlobalEventCount() + 1)
                    .setPartitions(
                        2,
                        m.getPartitions(2).toBuilder()
                            .setLastTotalOrder(m.getPartitions(2).getLastTotalOrder()))));
    v.add(
        manifest(
            "manifest-duplicate-chunk",
            MANIFEST_DUPLICATE_CHUNK,
            "chunk 0 listed twice",
            m -> m.setPartitions(1, m.getPartitions(1).toBuilder().setId(0))));
    v.add(
        manifest(
            "manifest-boundary-mode-unknown-value",
            BOUNDARY_MODE_UNSPECIFIED,
            "boundary_mode 7, a number" + " the IDL does not name",
            m -> m.setBoundaryModeValue(7)));
    v.add(
        manifest(
            "manifest-ddl-event-count-above-global",
            MANIFEST_COUNTS_DO_NOT_ADD_UP,
            "ddl_event_count one above global_event_count",
            m -> m.setDdlEventCount(m.getGlobalEventCount() + 1)));
    v.add(
        new Vector(
            "manifest-zero-global-event-count",
            EMPTY_BARRIER,
            "global_event_count 0: an empty barrier; nothing is compared with a count of"
                + " nothing (not the entries' ranges, their sum, nor ddl_event_count 1)",
            manifest(m -> m.setGlobalEventCount(0))));
    v.add(
        manifest(
            "manifest-chunk-sequence-in-strict-chunked",
            CHUNK_SEQUENCE_IN_STRICT_CHUNKED,
            "a strict chunked manifest entry with chunk_sequence 1",
            m -> m.setPartitions(1, m.getPartitions(1).toBuilder().setChunkSequence(1))));
    v.add(
        manifest(
            "manifest-partition-count-in-strict-chunked",
            PARTITION_COUNT_MISMATCH,
            "a strict chunked manifest with partition_count 3",
            m -> m.setPartitionCount(3)));
    v.add(
        manifest(
            "manifest-partitioned-without-partition-count",
            PARTITION_COUNT_MISMATCH,
            "a partitioned scale mode manifest with partition_count 0",
            m -> m.setBoundaryMode(ManifestBoundaryMode.PARTITIONED_SCALE_MODE)));
    v.add(
        manifest(
            "manifest-partitioned-lane-beyond-partition-count",
            PARTITION_COUNT_MISMATCH,
            "a partitioned scale mode manifest of 2 lanes listing a chunk of lane 2",
            m ->
                m.setBoundaryMode(ManifestBoundaryMode.PARTITIONED_SCALE_MODE)
                    .setPartitionCount(2)));
    Decoded d = decodedBarrier();
    v.add(
        new Vector(
            "chunk-sequence-in-strict-chunked",
            CHUNK_SEQUENCE_IN_STRICT_CHUNKED,
            "a strict chunked" + " chunk with chunk_sequence 1, on its own",
            List.of(
                part(
                    TrellaraCodec.encodeWithoutValidation(
                        d.chunks.get(1).toBuilder().setChunkSequence(1).build())))));
    v.add(
        new Vector(
            "chunk-boundary-mode-unknown-value",
            BOUNDARY_MODE_UNSPECIFIED,
            "a chunk of boundary_mode 7," + " on its own",
            List.of(
                part(
                    TrellaraCodec.encodeWithoutValidation(
                        d.chunks.get(1).toBuilder().setBoundaryModeValue(7).build())))));
    v.add(
        new Vector(
            "chunk-without-events",
            EMPTY_BARRIER,
            "a chunk that carries no change and no DDL event, on" + " its own",
            List.of(
                part(
                    TrellaraCodec.encodeWithoutValidation(
                        d.chunks.get(1).toBuilder().clearChanges().clearDdlEvents().build())))));
    v.add(
        marker(
            "marker-empty-barrier",
            EMPTY_BARRIER,
            "a marker for zero events and zero partitions",
            k -> k.setGlobalEventCount(0).setParticipatingPartitionCount(0)));
  }

  // ---- barrier: manifest + marker + chunks
  // ------------------------------------------------------------

  private static void barrierRules(List<Vector> v) {
    Decoded d = decodedBarrier();
    v.add(barrier("barrier-missing-chunk", MISSING_CHUNK, "chunk 1 never arrives", d.without(1)));
    v.add(
        barrier(
            "barrier-chunk-transaction-mismatch",
            TRANSACTION_ID_MISMATCH,
            "chunk 1 names another transaction",
            d.editChunk(
                1,
                c -> {
                  List<ChangeRecord> changes = retx(c.getChangesList(), "772");
                  var ddl =
                      c.getDdlEventsList().stream()
                          .map(e -> e.toBuilder().setTransactionId("772").build())
                          .toList();
                  c.setTransactionId("772")
                      .clearChanges()
                      .addAllChanges(changes)
                      .clearDdlEvents()
                      .addAllDdlEvents(ddl);
                })));
    v.add(
        barrier(
            "barrier-chunk-fingerprint-mismatch",
            SCHEMA_FINGERPRINT_MISMATCH,
            "chunk 1's schema version lists a column key flag its fingerprint does not describe",
            d.editChunk(
                1,
                c ->
                    c.setSchemaVersions(
                        0,
                        c.getSchemaVersions(0).toBuilder()
                            .setColumns(
                                4,
                                c.getSchemaVersions(0).getColumns(4).toBuilder().setKey(true))))));
    v.add(
        barrier(
            "barrier-chunk-identity-mismatch",
            CHUNK_IDENTITY_MISMATCH,
            "chunk 1 names another dataset",
            d.editChunk(1, c -> c.setDatasetId("other-flow"))));
    v.add(
        barrier(
            "barrier-unlisted-chunk",
            UNLISTED_CHUNK,
            "a fourth chunk (id 9, total_order 10-12, valid on"
                + " its own) the manifest does not list",
            d.plus(shifted(d.chunks.get(2), 9, 3))));
    v.add(
        barrier(
            "barrier-event-count-mismatch",
            EVENT_COUNT_MISMATCH,
            "chunk 2 lost its last event; the manifest still lists 3",
            d.editChunk(2, c -> c.removeChanges(c.getChangesCount() - 1))));
    v.add(
        barrier(
            "barrier-ddl-event-count-mismatch",
            EVENT_COUNT_MISMATCH,
            "the manifest declares ddl_event_count 0; chunk 1 holds the DDL event",
            d.editManifest(m -> m.setDdlEventCount(0))));
    List<Vector.Part> altered = d.copy().parts();
    altered.add(
        2,
        part(
            TrellaraCodec.encodeWithoutValidation(
                d.chunks.get(1).toBuilder()
                    .setChanges(
                        0,
                        withColumn(
                            d.chunks.get(1).getChanges(0), 1, col -> col.setText("customer-X")))
                    .build())));
    v.add(
        barrier(
            "barrier-chunk-redelivered-altered",
            CHUNK_CHECKSUM_MISMATCH,
            "chunk 1 delivered again with"
                + " other content (valid on its own): its checksum is not the one the manifest lists",
            altered));
    v.add(
        barrier(
            "barrier-marker-source-mismatch",
            MARKER_IDENTITY_MISMATCH,
            "the marker names another source_id",
            d.editMarker(k -> k.setSourceId("pg-other"))));
    v.add(
        barrier(
            "barrier-marker-participating-count",
            MARKER_IDENTITY_MISMATCH,
            "the marker declares 2 participating partitions; the manifest lists 3",
            d.editMarker(k -> k.setParticipatingPartitionCount(2))));
    v.add(
        barrier(
            "barrier-range-mismatch",
            CHUNK_RANGE_MISMATCH,
            "chunk 0's entry is shifted by one",
            d.editManifest(
                m ->
                    m.setPartitions(
                        0,
                        m.getPartitions(0).toBuilder()
                            .setFirstTotalOrder(2)
                            .setLastTotalOrder(4)))));
    v.add(
        barrier(
            "barrier-duplicate-total-order-change-ddl",
            DUPLICATE_TOTAL_ORDER,
            "the DDL event in chunk 1 reuses the total_order of a change in chunk 0",
            d.duplicateDdlOrder()));
    v.add(
        barrier(
            "barrier-marker-identity-mismatch",
            MARKER_IDENTITY_MISMATCH,
            "the marker declares one event more",
            d.editMarker(k -> k.setGlobalEventCount(k.getGlobalEventCount() + 1))));
    v.add(
        barrier(
            "barrier-marker-manifest-checksum",
            MARKER_MANIFEST_CHECKSUM_MISMATCH,
            "the marker binds another manifest",
            d.editMarker(k -> k.setManifestChecksum(k.getManifestChecksum() ^ 1))));
    v.add(
        barrier(
            "barrier-chunk-checksum-differs-from-manifest",
            CHUNK_CHECKSUM_MISMATCH,
            "chunk 1 re-encoded with other content after the manifest was sealed",
            d.editChunkKeepListing(
                1,
                c ->
                    c.setChanges(
                        0, withColumn(c.getChanges(0), 1, col -> col.setText("customer-X"))))));
    ChunkedBarrier.Barrier good = ChunkedBarrier.strictChunked(TX, 3);
    List<Vector.Part> flippedChunk = parts(good.inOrder());
    flippedChunk.set(
        1,
        new Vector.Part(MessageKind.CHUNK, flipInside(good.chunks().get(1).bytes(), "customer-")));
    v.add(
        new Vector(
            "checksum-chunk", CHECKSUM_MISMATCH, "one byte of chunk 1 flipped", flippedChunk));
    List<Vector.Part> flippedManifest = parts(good.inOrder());
    flippedManifest.set(
        3,
        new Vector.Part(MessageKind.MANIFEST, flipInside(good.manifest().bytes(), "orders-flow")));
    v.add(
        new Vector(
            "checksum-manifest",
            CHECKSUM_MISMATCH,
            "one byte of the manifest flipped",
            flippedManifest));
    List<Vector.Part> flippedMarker = parts(good.inOrder());
    flippedMarker.set(
        4,
        new Vector.Part(
            MessageKind.COMMIT_MARKER, flipInside(good.commitMarker().bytes(), "orders-flow")));
    v.add(
        new Vector(
            "checksum-commit-marker",
            CHECKSUM_MISMATCH,
            "one byte of the commit marker flipped",
            flippedMarker));
  }

  /**
   * {@code c} as chunk {@code id}, its events' total_order (and idempotency keys) moved up by
   * {@code by}.
   */
  private static PartitionChunk shifted(PartitionChunk c, int id, long by) {
    PartitionChunk.Builder b = c.toBuilder().setPartitionId(id);
    for (int i = 0; i < b.getChangesCount(); i++) {
      ChangeRecord r = b.getChanges(i);
      b.setChanges(
          i,
          r.toBuilder()
              .setTotalOrder(r.getTotalOrder() + by)
              .setIdempotencyKey(
                  io.trellara.protocol.EventKey.of(
                      c.getSourceId(),
                      c.getCommitLsn(),
                      c.getTransactionId(),
                      r.getTotalOrder() + by)));
    }
    for (int i = 0; i < b.getDdlEventsCount(); i++) {
      b.setDdlEvents(
          i, b.getDdlEvents(i).toBuilder().setTotalOrder(b.getDdlEvents(i).getTotalOrder() + by));
    }
    return b.build();
  }

  private static List<ChangeRecord> retx(List<ChangeRecord> changes, String tx) {
    return changes.stream()
        .map(
            c ->
                c.toBuilder()
                    .setTransactionId(tx)
                    .setIdempotencyKey(
                        io.trellara.protocol.EventKey.of(
                            "pg-orders", "0/16B3748", tx, c.getTotalOrder()))
                    .build())
        .toList();
  }

  /** A decoded valid barrier whose parts can be edited and re-sealed with consistent checksums. */
  static final class Decoded {
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

    /**
     * Recomputes checksums: chunks, the manifest's listing of them, the manifest, the marker's
     * binding.
     */
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
      marker =
          TrellaraCodec.withChecksum(
              marker.toBuilder().setManifestChecksum(manifest.getChecksum()).build());
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

    /**
     * Chunk 1 holds the DDL event (sample order 4); give it order 1, which chunk 0's first change
     * holds.
     */
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

  static Decoded decodedBarrier() {
    ChunkedBarrier.Barrier b = ChunkedBarrier.strictChunked(TX, 3);
    Decoded d = new Decoded();
    b.chunks().forEach(c -> d.chunks.add(TrellaraCodec.decodeChunk(c.bytes())));
    d.manifest = TrellaraCodec.decodeManifest(b.manifest().bytes());
    d.marker = TrellaraCodec.decodeCommitMarker(b.commitMarker().bytes());
    return d;
  }

  // ---- helpers
  // ----------------------------------------------------------------------------------------

  static Vector env(
      String name,
      ProtocolRule rule,
      String description,
      Consumer<TransactionEnvelope.Builder> edit,
      ProtocolRule... more) {
    TransactionEnvelope.Builder b = TX.toBuilder();
    edit.accept(b);
    return new Vector(
        name,
        rule,
        description,
        List.of(part(TrellaraCodec.encodeWithoutValidation(b.build()))),
        more);
  }

  private static Vector manifest(
      String name,
      ProtocolRule rule,
      String description,
      UnaryOperator<TransactionManifest.Builder> edit) {
    TransactionManifest m = edit.apply(decodedBarrier().manifest.toBuilder()).build();
    return new Vector(
        name, rule, description, List.of(part(TrellaraCodec.encodeWithoutValidation(m))));
  }

  private static List<Vector.Part> manifest(UnaryOperator<TransactionManifest.Builder> edit) {
    return List.of(
        part(
            TrellaraCodec.encodeWithoutValidation(
                edit.apply(decodedBarrier().manifest.toBuilder()).build())));
  }

  private static Vector marker(
      String name,
      ProtocolRule rule,
      String description,
      UnaryOperator<TransactionCommitMarker.Builder> edit) {
    TransactionCommitMarker k = edit.apply(decodedBarrier().marker.toBuilder()).build();
    return new Vector(
        name, rule, description, List.of(part(TrellaraCodec.encodeWithoutValidation(k))));
  }

  private static Vector barrier(
      String name, ProtocolRule rule, String description, List<Vector.Part> parts) {
    return new Vector(name, rule, description, parts);
  }

  private static Vector raw(
      String name, ProtocolRule rule, String description, MessageKind kind, byte[] bytes) {
    return new Vector(name, rule, description, List.of(new Vector.Part(kind, bytes)));
  }

  static Vector.Part part(EncodedMessage m) {
    return new Vector.Part(m.kind(), m.bytes());
  }

  static List<Vector.Part> parts(List<EncodedMessage> messages) {
    List<Vector.Part> out = new ArrayList<>();
    messages.forEach(m -> out.add(part(m)));
    return out;
  }

  /**
   * Flips the low bit of the last byte of the first occurrence of {@code marker}: same length,
   * still UTF-8.
   */
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
