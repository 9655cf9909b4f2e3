package io.trellara.sink.postgres.apply;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.schema.TargetTable;
import java.util.ArrayList;
import java.util.List;

/**
 * The statement shape of one row change: which columns it sets and which identify the target row.
 * Rows of one relation, schema version and operation with an equal shape share one prepared
 * statement and are batched. Built from the {@link RowLayout} (names and key positions of the
 * schema version on the target, computed once per version) for the first row of its kind and kept
 * there ({@link RowLayout#shapeOf}), with the statements' text ({@link ShapeSql}) and the columns
 * an update or delete finds its row by ({@link MatchKey}): {@link #matches} checks each further
 * row's operation, replica identity and column states without allocating, and a row it matches
 * passes every check {@link #of} made of the first.
 */
final class RowShape {
  final Operation operation;
  final ReplicaIdentity replicaIdentity;
  final QualifiedName target;

  /** {@code target} quoted, for statements and error context. */
  final String quotedTarget;

  /** {@link TargetTable#selfContained()} of the target as described when the shape was built. */
  final boolean selfContained;

  /**
   * Insert: every column; update: the columns set (VALUE or NULL). Names, and positions in {@code
   * after}.
   */
  final String[] columns;

  final int[] columnIndex;

  /**
   * Update/delete: the WHERE columns, positions in the key image; insert: the primary-key columns.
   */
  final String[] keyColumns;

  final int[] keyIndex;

  /** The WHERE image is {@code before} (old key or old row) rather than {@code after}. */
  final boolean keyFromBefore;

  /**
   * REPLICA IDENTITY FULL without a primary key: match one row by every old column ({@code IS NULL}
   * for nulls).
   */
  final boolean fullIdentity;

  final boolean[] keyIsNull;

  // what matches() compares: per position, unchanged-TOAST or not (after) and the state (key image)
  private final byte[] afterStates;
  private final byte[] keyImageStates;

  /** The statements' text, built once (they are also the statement cache's keys). */
  final ShapeSql sql;

  private RowShape(
      Operation operation,
      ReplicaIdentity replicaIdentity,
      RowLayout layout,
      List<Integer> cols,
      List<Integer> keys,
      RowImage after,
      RowImage keyImage,
      boolean keyFromBefore,
      boolean fullIdentity) {
    this.operation = operation;
    this.replicaIdentity = replicaIdentity;
    this.target = layout.table.name();
    this.quotedTarget = target.quoted();
    this.selfContained = layout.table.selfContained();
    this.keyFromBefore = keyFromBefore;
    this.fullIdentity = fullIdentity;
    this.columns = new String[cols.size()];
    this.columnIndex = new int[cols.size()];
    for (int i = 0; i < cols.size(); i++) {
      columnIndex[i] = cols.get(i);
      columns[i] = layout.names[columnIndex[i]];
    }
    RowImage keySource = operation == Operation.OPERATION_INSERT ? after : keyImage;
    this.keyColumns = new String[keys.size()];
    this.keyIndex = new int[keys.size()];
    this.keyIsNull = new boolean[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      keyIndex[i] = keys.get(i);
      keyColumns[i] = layout.names[keyIndex[i]];
      keyIsNull[i] = keySource.getColumns(keyIndex[i]).getState() == ColumnState.COLUMN_STATE_NULL;
    }
    this.afterStates = operation == Operation.OPERATION_DELETE ? null : states(after, false);
    this.keyImageStates = operation == Operation.OPERATION_INSERT ? null : states(keyImage, true);
    this.sql =
        new ShapeSql(
            quotedTarget,
            layout.table.rowScope(),
            layout.table.partitioned(),
            columns,
            columnIndex,
            keyColumns,
            keyIndex,
            keyIsNull,
            fullIdentity);
  }

  /**
   * The shape of {@code c} on {@code layout}'s target: updates and deletes match ({@link MatchKey})
   * on the target's primary key, whose columns the key image must carry, each with a value; under
   * REPLICA IDENTITY DEFAULT or INDEX the columns the schema version flags as key must be exactly
   * those (a record that flags another column, or leaves one out, is refused rather than matched on
   * what it chose).
   */
  static RowShape of(ChangeRecord c, RowLayout layout) {
    String relation = layout.table.name().quoted();
    String eventKey = c.getIdempotencyKey();
    return switch (c.getOperation()) {
      case OPERATION_INSERT -> insert(c, layout, relation, eventKey);
      case OPERATION_UPDATE -> update(c, layout, relation, eventKey);
      case OPERATION_DELETE -> delete(c, layout, relation, eventKey);
      default ->
          throw new ApplyException(
              ApplyException.Reason.UNSUPPORTED_CHANGE,
              relation,
              eventKey,
              "operation " + c.getOperation() + " has no row shape");
    };
  }

  private static RowShape insert(
      ChangeRecord c, RowLayout layout, String relation, String eventKey) {
    RowImage after =
        requireImage(c.hasAfter() ? c.getAfter() : null, "after", layout, relation, eventKey);
    List<Integer> cols = new ArrayList<>();
    for (int i = 0; i < after.getColumnsCount(); i++) {
      ColumnValue v = after.getColumns(i);
      checkValue(v, i, layout, relation, eventKey);
      if (v.getState() == ColumnState.COLUMN_STATE_UNCHANGED_TOAST) {
        throw new ApplyException(
            ApplyException.Reason.UNSUPPORTED_CHANGE,
            relation,
            eventKey,
            "insert carries column \""
                + layout.names[i]
                + "\" as unchanged-TOAST; an inserted row must"
                + " carry every column");
      }
      cols.add(i);
    }
    List<Integer> keys = new ArrayList<>();
    for (int p : layout.primaryKeyPositions) {
      if (p >= 0) {
        keys.add(p); // the conflict target of an upsert
      }
    }
    return new RowShape(
        Operation.OPERATION_INSERT,
        c.getReplicaIdentity(),
        layout,
        cols,
        keys,
        after,
        null,
        false,
        false);
  }

  private static RowShape update(
      ChangeRecord c, RowLayout layout, String relation, String eventKey) {
    RowImage after =
        requireImage(c.hasAfter() ? c.getAfter() : null, "after", layout, relation, eventKey);
    boolean fromBefore = c.hasBefore() && c.getBefore().getColumnsCount() > 0;
    RowImage keyImage =
        fromBefore ? requireImage(c.getBefore(), "before", layout, relation, eventKey) : after;
    checkValues(keyImage, layout, relation, eventKey);
    MatchKey key = MatchKey.of(c, layout, keyImage, fromBefore, relation, eventKey);
    List<Integer> cols = new ArrayList<>();
    for (int i = 0; i < after.getColumnsCount(); i++) {
      ColumnValue v = after.getColumns(i);
      checkValue(v, i, layout, relation, eventKey);
      boolean unchangedKey = !fromBefore && layout.targetKey[i];
      if (v.getState() != ColumnState.COLUMN_STATE_UNCHANGED_TOAST && !unchangedKey) {
        cols.add(i);
      }
    }
    if (cols.isEmpty()) {
      for (int i = 0; i < after.getColumnsCount(); i++) {
        if (layout.targetKey[i]) {
          cols.add(i); // nothing else to set: set the (unchanged) key so the row is still matched
        }
      }
    }
    return new RowShape(
        Operation.OPERATION_UPDATE,
        c.getReplicaIdentity(),
        layout,
        cols,
        key.positions(),
        after,
        keyImage,
        fromBefore,
        key.fullIdentity());
  }

  private static RowShape delete(
      ChangeRecord c, RowLayout layout, String relation, String eventKey) {
    RowImage before =
        requireImage(c.hasBefore() ? c.getBefore() : null, "before", layout, relation, eventKey);
    checkValues(before, layout, relation, eventKey);
    MatchKey key = MatchKey.of(c, layout, before, true, relation, eventKey);
    return new RowShape(
        Operation.OPERATION_DELETE,
        c.getReplicaIdentity(),
        layout,
        List.of(),
        key.positions(),
        RowImage.getDefaultInstance(),
        before,
        true,
        key.fullIdentity());
  }

  /** The image must be there and positional: one column per column of the schema version. */
  private static RowImage requireImage(
      RowImage image, String which, RowLayout layout, String relation, String eventKey) {
    if (image == null || image.getColumnsCount() == 0) {
      throw new ApplyException(
          ApplyException.Reason.MISSING_KEY_COLUMN,
          relation,
          eventKey,
          "the change has no " + which + " row image");
    }
    if (image.getColumnsCount() != layout.columnCount()) {
      throw new ApplyException(
          ApplyException.Reason.UNSUPPORTED_CHANGE,
          relation,
          eventKey,
          "the "
              + which
              + " image carries "
              + image.getColumnsCount()
              + " columns, its schema version "
              + layout.columnCount());
    }
    return image;
  }

  /** Every value of a key image, checked before its key is ({@link #checkValue}). */
  private static void checkValues(
      RowImage image, RowLayout layout, String relation, String eventKey) {
    for (int i = 0; i < image.getColumnsCount(); i++) {
      checkValue(image.getColumns(i), i, layout, relation, eventKey);
    }
  }

  private static void checkValue(
      ColumnValue v, int position, RowLayout layout, String relation, String eventKey) {
    // the bytes, not getText(): that would decode every value into a String the COPY path never
    // needs
    if (binaryOnly(v)) {
      throw new ApplyException(
          ApplyException.Reason.UNSUPPORTED_CHANGE,
          relation,
          eventKey,
          "column \""
              + layout.names[position]
              + "\" carries only a binary value; the sink applies the"
              + " text form");
    }
  }

  /**
   * A value carried only in the type's binary form: the sink applies the text form, so it is
   * refused.
   */
  private static boolean binaryOnly(ColumnValue v) {
    return v.getState() == ColumnState.COLUMN_STATE_VALUE
        && v.getTextBytes().isEmpty()
        && !v.getBinary().isEmpty();
  }

  /**
   * True when {@code c} (of the same relation and schema version: the caller's check) has exactly
   * this shape: the same operation and replica identity (the key checks depend on it), the same
   * column states, and no value carried only in binary form (such a row goes to {@link #of}, which
   * refuses it).
   */
  boolean matches(ChangeRecord c) {
    if (c.getOperation() != operation || c.getReplicaIdentity() != replicaIdentity) {
      return false;
    }
    if (operation != Operation.OPERATION_DELETE && !sameStates(c.getAfter(), afterStates, false)) {
      return false;
    }
    if (operation == Operation.OPERATION_INSERT) {
      return true;
    }
    boolean fromBefore = c.hasBefore() && c.getBefore().getColumnsCount() > 0;
    if (fromBefore != keyFromBefore) {
      return false;
    }
    return sameStates(fromBefore ? c.getBefore() : c.getAfter(), keyImageStates, true);
  }

  private static boolean sameStates(RowImage image, byte[] states, boolean keyImage) {
    int n = image.getColumnsCount();
    if (n != states.length) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      ColumnValue v = image.getColumns(i);
      if (state(v, keyImage) != states[i] || binaryOnly(v)) {
        return false;
      }
    }
    return true;
  }

  private static byte[] states(RowImage image, boolean keyImage) {
    byte[] out = new byte[image.getColumnsCount()];
    for (int i = 0; i < out.length; i++) {
      out[i] = state(image.getColumns(i), keyImage);
    }
    return out;
  }

  /**
   * Set or not (unchanged-TOAST) decides the SET list; in a key image the null pattern matters too
   * (IS NULL).
   */
  private static byte state(ColumnValue v, boolean keyImage) {
    return keyImage
        ? (byte) v.getState().getNumber()
        : (byte) (v.getState() == ColumnState.COLUMN_STATE_UNCHANGED_TOAST ? 1 : 0);
  }
}
