package io.trellara.source.capture;

import com.google.protobuf.ByteString;
import io.trellara.protocol.EventKey;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.TruncateSpec;
import io.trellara.source.capture.ddl.DdlFilter;
import io.trellara.source.capture.ddl.DdlMessageParser;
import io.trellara.source.capture.ddl.DdlTargets;
import io.trellara.source.capture.ddl.OwningRelation;
import io.trellara.source.pgoutput.OldTupleKind;
import io.trellara.source.pgoutput.PgOutputMessage.Delete;
import io.trellara.source.pgoutput.PgOutputMessage.Insert;
import io.trellara.source.pgoutput.PgOutputMessage.LogicalMessage;
import io.trellara.source.pgoutput.PgOutputMessage.Streamable;
import io.trellara.source.pgoutput.PgOutputMessage.Truncate;
import io.trellara.source.pgoutput.PgOutputMessage.Update;
import io.trellara.source.pgoutput.TupleData;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the buffered change messages of one committed transaction into ChangeRecord and DdlEvent
 * protobufs (a DdlEvent's relation is its first captured owning relation, see {@link DdlFilter}),
 * numbering total_order 1..N across both kinds and table_order per relation (partition_order stays
 * 0: strict mode). One instance per pass over a transaction; it reuses its protobuf builders.
 *
 * <p>Row images are positional against the relation's schema version (one column per column, names
 * and types only in the schema version): NULL for 'n', UNCHANGED_TOAST for 'u' (never null), VALUE
 * with {@code text} for 't' (the server's UTF-8 bytes are set as the field's bytes, no String is
 * made) or {@code binary} for 'b'. Insert: after. Update: after, plus before when an old tuple came
 * (K: the key columns' values, every other column UNCHANGED_TOAST as not sent; O: the whole old
 * row). Delete: before (K or O). A change names its schema version's fingerprint only when the
 * transaction references several versions of its relation. Update and delete fail closed ({@link
 * CaptureException}, rule {@code missing_key_column}) when their identifying image (before, else
 * after) lacks a value for a key column, or the relation has no key column and is not REPLICA
 * IDENTITY FULL with an old row.
 */
final class CapturedEventFactory {

  private final String transactionId;
  private final ByteString transactionIdBytes;
  private final String keyPrefix;
  private final String commitLsnText;

  /**
   * A column that is SQL NULL; and one whose value the source did not send (unchanged TOAST, or not
   * a key).
   */
  private static final ColumnValue NULL =
      ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_NULL).build();

  private static final ColumnValue NOT_SENT =
      ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_UNCHANGED_TOAST).build();

  private final Set<Long> severalVersions;
  private final ChangeRecord.Builder change = ChangeRecord.newBuilder();
  private final RowImage.Builder image = RowImage.newBuilder();
  private final ColumnValue.Builder value = ColumnValue.newBuilder();
  private ColumnValue[] values = new ColumnValue[16];
  private List<ColumnValue> valueList = Arrays.asList(values);
  private final DdlEvent.Builder ddl = DdlEvent.newBuilder();
  private final DdlTargets ddlTargets = new DdlTargets();
  private final DdlFilter ddlFilter;
  private final Map<Long, long[]> tableOrders = new HashMap<>();
  private long lastTableOid = -1;
  private long[] lastTableOrder;
  private long totalOrder;

  /**
   * @param severalVersions OIDs of the relations the transaction references more than one schema
   *     version of: their changes name theirs in schema_fingerprint (usually empty)
   */
  CapturedEventFactory(
      String sourceId,
      String transactionId,
      String commitLsnText,
      DdlFilter ddlFilter,
      Set<Long> severalVersions) {
    this.ddlFilter = ddlFilter;
    this.severalVersions = severalVersions;
    this.transactionId = transactionId;
    this.transactionIdBytes = ByteString.copyFromUtf8(transactionId);
    this.commitLsnText = commitLsnText;
    this.keyPrefix = EventKey.prefix(sourceId, commitLsnText, transactionId);
  }

  long eventsProduced() {
    return totalOrder;
  }

  void emit(Streamable message, long walStart, RelationSchema[] relations, CaptureEventSink sink) {
    if (message instanceof Insert m) {
      RelationSchema r = relations[0];
      begin(r, Operation.OPERATION_INSERT).setAfter(image(r, m.newTuple(), false, walStart));
      sink.onChange(change.build(), r);
    } else if (message instanceof Update m) {
      RelationSchema r = relations[0];
      TupleData identifying = m.oldTupleKind() == OldTupleKind.NONE ? m.newTuple() : m.oldTuple();
      requireKey(r, identifying, m.oldTupleKind(), "update", walStart);
      ChangeRecord.Builder c = begin(r, Operation.OPERATION_UPDATE);
      if (m.oldTupleKind() != OldTupleKind.NONE) {
        c.setBefore(image(r, m.oldTuple(), m.oldTupleKind() == OldTupleKind.KEY, walStart));
      }
      c.setAfter(image(r, m.newTuple(), false, walStart));
      sink.onChange(change.build(), r);
    } else if (message instanceof Delete m) {
      RelationSchema r = relations[0];
      if (m.oldTupleKind() == OldTupleKind.NONE || m.oldTuple() == null) {
        throw missingKey(r, null, "the delete carries no old key or row", walStart);
      }
      requireKey(r, m.oldTuple(), m.oldTupleKind(), "delete", walStart);
      begin(r, Operation.OPERATION_DELETE)
          .setBefore(image(r, m.oldTuple(), m.oldTupleKind() == OldTupleKind.KEY, walStart));
      sink.onChange(change.build(), r);
    } else if (message instanceof Truncate m) {
      TruncateSpec.Builder spec =
          TruncateSpec.newBuilder().setCascade(m.cascade()).setRestartIdentity(m.restartIdentity());
      for (RelationSchema r : relations) {
        spec.addRelations(r.changeRelation());
      }
      begin(relations[0], Operation.OPERATION_TRUNCATE).setTruncate(spec);
      sink.onTruncate(change.build(), relations);
    } else if (message instanceof LogicalMessage m) {
      ddl.clear();
      DdlMessageParser.parseInto(m.content(), m.lsn() != 0 ? m.lsn() : walStart, ddl, ddlTargets);
      OwningRelation owner = ddlFilter.capturedOwner(ddlTargets);
      if (owner
          == null) { // the assembler buffered it because it had a captured owner, and captured only
        // grows
        throw new IllegalStateException(
            "a buffered DDL message at LSN "
                + Lsn.format(walStart)
                + " no longer names a captured relation");
      }
      sink.onDdl(
          ddl.setTransactionIdBytes(transactionIdBytes)
              .setTotalOrder(++totalOrder)
              .setRelation(ddlFilter.relationId(owner))
              .build(),
          relations);
    } else {
      throw new IllegalStateException("not a change message: " + message);
    }
  }

  private ChangeRecord.Builder begin(RelationSchema r, Operation op) {
    long order = ++totalOrder;
    change.clear();
    if (!severalVersions.isEmpty() && severalVersions.contains(r.oid())) {
      change.setSchemaFingerprint(r.fingerprint());
    }
    return change
        .setTransactionIdBytes(transactionIdBytes)
        .setTotalOrder(order)
        .setTableOrder(nextTableOrder(r))
        .setPartitionOrder(0)
        .setRelation(r.changeRelation())
        .setOperation(op)
        .setReplicaIdentity(r.replicaIdentity())
        .setIdempotencyKey(keyPrefix + order);
  }

  private long nextTableOrder(RelationSchema r) {
    if (r.oid() != lastTableOid) {
      lastTableOid = r.oid();
      lastTableOrder = tableOrders.computeIfAbsent(r.oid(), k -> new long[1]);
    }
    return ++lastTableOrder[0];
  }

  /**
   * A positional row image: one column per column of the relation, each only its state and value
   * (names and types travel once per message, in the schema version). A key-only old tuple ('K')
   * marks its non-key columns NOT_SENT: pgoutput sends them as 'n', but they are absent, not NULL.
   */
  private RowImage image(RelationSchema r, TupleData t, boolean keysOnly, long walStart) {
    requireShape(r, t, walStart);
    int n = t.columnCount();
    if (values.length < n) {
      values = new ColumnValue[n];
      valueList = Arrays.asList(values);
    }
    int[] keys = r.keyPositions();
    int nextKey = 0;
    for (int i = 0; i < n; i++) {
      boolean key = nextKey < keys.length && keys[nextKey] == i;
      if (key) {
        nextKey++;
      } else if (keysOnly) {
        values[i] = NOT_SENT;
        continue;
      }
      values[i] =
          switch (t.kindCode(i)) {
            case 'n' -> NULL;
            case 'u' -> NOT_SENT;
            case 't' ->
                value
                    .clear()
                    .setState(ColumnState.COLUMN_STATE_VALUE)
                    .setTextBytes(ByteString.copyFrom(t.value(i)))
                    .build();
            case 'b' ->
                value
                    .clear()
                    .setState(ColumnState.COLUMN_STATE_VALUE)
                    .setBinary(ByteString.copyFrom(t.value(i)))
                    .build();
            default -> throw new IllegalStateException("tuple column kind " + t.kindCode(i));
          };
    }
    // added at once, so the image's list is allocated once at its size instead of grown column by
    // column
    return image
        .clear()
        .addAllColumns(n == values.length ? valueList : valueList.subList(0, n))
        .build();
  }

  private void requireShape(RelationSchema r, TupleData t, long walStart) {
    if (t.columnCount() != r.columnCount()) {
      throw new CaptureException(
          "tuple_shape_mismatch",
          "a change of "
              + r.qualifiedName()
              + " at LSN "
              + Lsn.format(walStart)
              + " in transaction "
              + transactionId
              + " carries "
              + t.columnCount()
              + " columns but its Relation message described "
              + r.columnCount());
    }
  }

  private void requireKey(
      RelationSchema r, TupleData identifying, OldTupleKind kind, String op, long walStart) {
    requireShape(r, identifying, walStart);
    if (r.keyColumnCount() == 0) {
      if (r.replicaIdentity() == ReplicaIdentity.REPLICA_IDENTITY_FULL
          && kind == OldTupleKind.OLD) {
        return;
      }
      throw missingKey(
          r,
          null,
          "the relation has no key column and is not REPLICA IDENTITY FULL ("
              + op
              + " cannot identify its row)",
          walStart);
    }
    for (int i : r.keyPositions()) {
      if (!identifying.hasValue(i)) {
        String name = r.column(i).name;
        throw missingKey(
            r,
            name,
            "key column '"
                + name
                + "' is "
                + (identifying.isNull(i) ? "NULL" : "unchanged-TOAST (no value sent)")
                + " in the "
                + op
                + "'s identifying image",
            walStart);
      }
    }
  }

  private CaptureException missingKey(
      RelationSchema r, String column, String detail, long walStart) {
    return new CaptureException(
        "missing_key_column",
        "relation "
            + r.qualifiedName()
            + (column != null ? ", column " + column : "")
            + ", LSN "
            + Lsn.format(walStart)
            + ", transaction "
            + transactionId
            + " (commit LSN "
            + commitLsnText
            + "): "
            + detail
            + ". Give the table a primary key"
            + " and REPLICA IDENTITY DEFAULT; protocol 1 captures ordinary primary-key tables only.");
  }
}
