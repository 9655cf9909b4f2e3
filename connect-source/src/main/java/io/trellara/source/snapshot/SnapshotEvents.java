package io.trellara.source.snapshot;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.trellara.protocol.EventKey;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.RowImage;
import io.trellara.source.capture.CaptureEventSink;
import io.trellara.source.capture.RelationCache;
import io.trellara.source.capture.RelationSchema;
import io.trellara.source.pgoutput.PgOutputMessage.Relation;
import io.trellara.source.pgoutput.ReplicaIdentity;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns the snapshot's {@code COPY ... TO STDOUT} rows straight into the inserts of the snapshot
 * transaction, in total order, for the publishing pipeline. A snapshot is known to commit before it
 * is read (its identity is the consistent point and {@value Snapshots#TRANSACTION_ID}), so it needs
 * neither the assembler nor a spill: each row becomes its ChangeRecord as it is read, the same
 * record the stream's capture makes of an Insert (positional row image, a text value per column,
 * the types' text output as pgoutput sends it).
 *
 * <p>A COPY text field is {@code \N} for NULL, anything else the value with COPY's backslash
 * escapes; a field without a backslash (nearly all of them) is the value's bytes as they are, taken
 * without a copy when the row's array is the caller's to give away. One instance per snapshot, on
 * one thread; it reuses its builders.
 */
public final class SnapshotEvents {
  private static final ColumnValue NULL =
      ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_NULL).build();
  private static final ByteString TRANSACTION_ID =
      ByteString.copyFromUtf8(Snapshots.TRANSACTION_ID);

  private final CaptureEventSink sink;
  private final String keyPrefix;
  private final RelationCache relations = new RelationCache();
  private final ChangeRecord.Builder change = ChangeRecord.newBuilder();
  private final RowImage.Builder image = RowImage.newBuilder();
  private final ColumnValue.Builder value = ColumnValue.newBuilder();
  private RelationSchema table;
  private int columns;

  /**
   * This row's values; added to the image at once, so its list is allocated once at its size, not
   * grown.
   */
  private ColumnValue[] values;

  private List<ColumnValue> valueList;
  private long tableOrder;
  private long totalOrder;
  private byte[] unescaped = new byte[256];

  /**
   * @param consistentPoint the slot's consistent point: the snapshot transaction's commit LSN
   */
  public SnapshotEvents(String sourceId, long consistentPoint, CaptureEventSink sink) {
    this.sink = sink;
    this.keyPrefix =
        EventKey.prefix(sourceId, Lsn.format(consistentPoint), Snapshots.TRANSACTION_ID);
  }

  /** Events handed on so far: the snapshot's last total_order. */
  public long events() {
    return totalOrder;
  }

  /** The next table: its rows follow, contiguous (a snapshot reads each table once). */
  void table(SnapshotTable t) {
    List<Relation.Column> cols = new ArrayList<>(t.columns().size());
    for (SnapshotTable.Column c : t.columns()) {
      cols.add(new Relation.Column(c.key(), c.name(), c.typeOid(), c.typeModifier()));
    }
    ReplicaIdentity ri = ReplicaIdentity.fromCode((byte) t.replicaIdentity());
    if (ri == null) {
      throw new IllegalArgumentException(
          "table " + t.display() + " has replica identity '" + t.replicaIdentity() + "'");
    }
    table = relations.accept(new Relation(0, t.oid(), t.schema(), t.name(), ri, cols));
    columns = cols.size();
    values = new ColumnValue[columns];
    valueList = Arrays.asList(values);
    tableOrder = 0;
  }

  /**
   * One COPY text row of the current table ({@code row[0, length)}, its trailing newline included
   * or not).
   *
   * @param owned true when {@code row} is never written again, so values may refer to it instead of
   *     copying
   * @throws IllegalArgumentException when the row does not have one field per column
   */
  void row(byte[] row, int length, boolean owned) {
    if (table == null) {
      throw new IllegalStateException("a row before its table");
    }
    int end = length > 0 && row[length - 1] == '\n' ? length - 1 : length;
    int fields = 0;
    int p = 0;
    while (true) {
      int fieldEnd = p;
      boolean escaped = false;
      while (fieldEnd < end) {
        byte b = row[fieldEnd];
        if (b == '\t') {
          break;
        }
        escaped |= b == '\\';
        fieldEnd++;
      }
      if (++fields > columns) {
        throw new IllegalArgumentException(
            "a COPY row of " + table.qualifiedName() + " has more than " + columns + " fields");
      }
      values[fields - 1] = field(row, p, fieldEnd, escaped, owned);
      if (fieldEnd == end) {
        break;
      }
      p = fieldEnd + 1;
    }
    if (fields != columns) {
      throw new IllegalArgumentException(
          "a COPY row of "
              + table.qualifiedName()
              + " has "
              + fields
              + " fields, the table "
              + columns
              + " columns");
    }
    long order = ++totalOrder;
    change
        .clear()
        .setTransactionIdBytes(TRANSACTION_ID)
        .setTotalOrder(order)
        .setTableOrder(++tableOrder)
        .setRelation(table.changeRelation())
        .setOperation(Operation.OPERATION_INSERT)
        .setReplicaIdentity(table.replicaIdentity())
        .setIdempotencyKey(keyPrefix + order)
        .setAfter(image.clear().addAllColumns(valueList));
    sink.onChange(change.build(), table);
  }

  private ColumnValue field(byte[] row, int from, int to, boolean escaped, boolean owned) {
    ByteString text;
    if (!escaped) {
      text =
          owned
              ? UnsafeByteOperations.unsafeWrap(row, from, to - from)
              : ByteString.copyFrom(row, from, to - from);
    } else if (to - from == 2 && row[from + 1] == 'N') {
      return NULL;
    } else {
      int length = unescape(row, from, to); // first: it may grow the buffer
      text = ByteString.copyFrom(unescaped, 0, length);
    }
    return value.clear().setState(ColumnState.COLUMN_STATE_VALUE).setTextBytes(text).build();
  }

  /**
   * Undoes COPY's escapes of {@code row[from, to)} into {@link #unescaped}; returns the length
   * (never longer).
   */
  private int unescape(byte[] row, int from, int to) {
    if (unescaped.length < to - from) {
      unescaped = new byte[Math.max(to - from, unescaped.length * 2)];
    }
    return CopyText.unescape(row, from, to, unescaped);
  }
}
