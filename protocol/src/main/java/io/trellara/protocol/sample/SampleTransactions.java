package io.trellara.protocol.sample;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.ProtocolVersion;
import io.trellara.protocol.SchemaFingerprint;
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

/**
 * Deterministic, valid sample transactions (an orders table with a TOASTable note column), for the
 * conformance kit, the CLI's examples, tests and benchmarks. Not used on any production path.
 */
public final class SampleTransactions {
  public static final RelationId ORDERS =
      RelationId.newBuilder().setSchema("public").setTable("orders").setSourceOid(16384).build();

  /**
   * How a change names the relation: schema and table (the OID hint travels in the schema version).
   */
  private static final RelationId ORDERS_OF_CHANGE = ORDERS.toBuilder().clearSourceOid().build();

  private static final ColumnDefinition[] COLUMNS = {
    column("id", 20, "bigint", -1, true),
    column("customer", 25, "text", -1, false),
    column("amount", 1700, "numeric(12,2)", (12 << 16 | 2) + 4, false),
    column("placed_at", 1184, "timestamp with time zone", -1, false),
    column("note", 25, "text", -1, false),
  };
  public static final SchemaVersion ORDERS_SCHEMA =
      withFingerprint(
          SchemaVersion.newBuilder().setRelation(ORDERS).addAllColumns(java.util.List.of(COLUMNS)));

  private SampleTransactions() {}

  private static SchemaVersion withFingerprint(SchemaVersion.Builder b) {
    return b.setFingerprint(SchemaFingerprint.of(b)).build();
  }

  private static ColumnDefinition column(
      String name, int oid, String type, int typmod, boolean key) {
    return ColumnDefinition.newBuilder()
        .setName(name)
        .setTypeOid(oid)
        .setTypeName(type)
        .setTypeModifier(typmod)
        .setKey(key)
        .build();
  }

  /**
   * {@code inserts} inserted orders, then (when {@code inserts >= 2}) an update leaving the note
   * unchanged-TOAST, a delete, and optionally one DDL event in the middle.
   */
  public static TransactionEnvelope envelope(int inserts, boolean withDdl) {
    String commitLsn = "0/16B3748";
    String txId = "771";
    TransactionEnvelope.Builder b =
        TransactionEnvelope.newBuilder()
            .setProtocolVersion(ProtocolVersion.CURRENT)
            .setSourceId("pg-orders")
            .setDatabaseId("orders-db")
            .setDatasetId("orders-flow")
            .setTransactionId(txId)
            .setBeginLsn("0/16B3700")
            .setCommitLsn(commitLsn)
            .setCommitTimestampMs(1_764_000_000_123L)
            .addSchemaVersions(ORDERS_SCHEMA);
    long order = 0;
    for (int i = 1; i <= inserts; i++) {
      if (withDdl && i == inserts / 2 + 1) {
        b.addDdlEvents(
            DdlEvent.newBuilder()
                .setTransactionId(txId)
                .setTotalOrder(++order)
                .setCommandTag("ALTER TABLE")
                .setObjectType("table")
                .setObjectIdentity("public.orders")
                .setSchemaName("public")
                .setStatement("ALTER TABLE orders ADD COLUMN channel text")
                .setSearchPath("\"$user\", public"));
      }
      RowImage after =
          RowImage.newBuilder()
              .addColumns(value(COLUMNS[0], Integer.toString(i)))
              .addColumns(value(COLUMNS[1], "customer-" + (i % 97)))
              .addColumns(
                  value(COLUMNS[2], (i * 7 % 10_000) + "." + (i % 100 < 10 ? "0" : "") + (i % 100)))
              .addColumns(value(COLUMNS[3], "2026-11-29 10:15:" + (10 + i % 50) + ".123456+00"))
              .addColumns(i % 5 == 0 ? nullValue(COLUMNS[4]) : value(COLUMNS[4], "note " + i))
              .build();
      b.addChanges(change(b, ++order, i, Operation.OPERATION_INSERT, null, after));
    }
    if (inserts >= 2) {
      RowImage updated =
          RowImage.newBuilder()
              .addColumns(value(COLUMNS[0], "1"))
              .addColumns(value(COLUMNS[1], "customer-renamed"))
              .addColumns(value(COLUMNS[2], "10.00"))
              .addColumns(value(COLUMNS[3], "2026-11-29 10:16:00+00"))
              .addColumns(state(COLUMNS[4], ColumnState.COLUMN_STATE_UNCHANGED_TOAST))
              .build();
      b.addChanges(change(b, ++order, inserts + 1, Operation.OPERATION_UPDATE, null, updated));
      RowImage key =
          RowImage.newBuilder()
              .addColumns(value(COLUMNS[0], "2"))
              .addColumns(NOT_SENT)
              .addColumns(NOT_SENT)
              .addColumns(NOT_SENT)
              .addColumns(NOT_SENT)
              .build();
      b.addChanges(change(b, ++order, inserts + 2, Operation.OPERATION_DELETE, key, null));
    }
    return b.build();
  }

  /**
   * A transaction whose DDL changes the relation between its changes: an insert of the 5-column
   * orders, ALTER TABLE ... ADD COLUMN channel, an insert of the 6-column orders. The envelope
   * carries both schema versions, and each change names the one its row image follows.
   */
  public static TransactionEnvelope envelopeWithSchemaChange() {
    SchemaVersion widened =
        withFingerprint(
            ORDERS_SCHEMA.toBuilder().addColumns(column("channel", 25, "text", -1, false)));
    TransactionEnvelope.Builder b = envelope(1, false).toBuilder().addSchemaVersions(widened);
    b.setChanges(
        0, b.getChanges(0).toBuilder().setSchemaFingerprint(ORDERS_SCHEMA.getFingerprint()));
    b.addDdlEvents(
        DdlEvent.newBuilder()
            .setTransactionId(b.getTransactionId())
            .setTotalOrder(2)
            .setCommandTag("ALTER TABLE")
            .setObjectType("table")
            .setObjectIdentity("public.orders")
            .setSchemaName("public")
            .setStatement("ALTER TABLE orders ADD COLUMN channel text")
            .setSearchPath("\"$user\", public"));
    RowImage after =
        RowImage.newBuilder()
            .addColumns(value(COLUMNS[0], "2"))
            .addColumns(value(COLUMNS[1], "customer-2"))
            .addColumns(value(COLUMNS[2], "14.02"))
            .addColumns(value(COLUMNS[3], "2026-11-29 10:15:12.123456+00"))
            .addColumns(nullValue(COLUMNS[4]))
            .addColumns(
                ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_VALUE).setText("web"))
            .build();
    b.addChanges(
        change(b, 3, 2, Operation.OPERATION_INSERT, null, after).toBuilder()
            .setSchemaFingerprint(widened.getFingerprint()));
    return b.build();
  }

  private static ChangeRecord change(
      TransactionEnvelope.Builder tx,
      long totalOrder,
      long tableOrder,
      Operation op,
      RowImage before,
      RowImage after) {
    ChangeRecord.Builder c =
        ChangeRecord.newBuilder()
            .setTransactionId(tx.getTransactionId())
            .setTotalOrder(totalOrder)
            .setTableOrder(tableOrder)
            .setRelation(ORDERS_OF_CHANGE)
            .setOperation(op)
            .setReplicaIdentity(ReplicaIdentity.REPLICA_IDENTITY_DEFAULT)
            .setIdempotencyKey(
                EventKey.of(
                    tx.getSourceId(), tx.getCommitLsn(), tx.getTransactionId(), totalOrder));
    if (before != null) {
      c.setBefore(before);
    }
    if (after != null) {
      c.setAfter(after);
    }
    return c.build();
  }

  /** A non-key column of a key-only old image: not sent by the source. */
  private static final ColumnValue NOT_SENT =
      ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_UNCHANGED_TOAST).build();

  /**
   * Row images are positional: {@code d} only says which column of the schema version the value is
   * for.
   */
  private static ColumnValue value(ColumnDefinition d, String text) {
    return ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_VALUE).setText(text).build();
  }

  private static ColumnValue nullValue(ColumnDefinition d) {
    return state(d, ColumnState.COLUMN_STATE_NULL);
  }

  private static ColumnValue state(ColumnDefinition d, ColumnState s) {
    return ColumnValue.newBuilder().setState(s).build();
  }
}
