package io.trellara.sink.postgres.apply;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.RowImage;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.names.Identifiers;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The sink's half of an ownership move whose row has unchanged-TOAST columns (docs/protocol.md,
 * "Ownership moves"): partitioned scale mode publishes the move as a delete (old key) and, at the
 * next total_order, an insert whose unsent columns are UNCHANGED_TOAST and whose {@code before} is
 * the delete's image. Both are in one source transaction, so in one target transaction: the delete
 * half is written as {@code DELETE ... RETURNING} the columns the insert lacks, and the insert is
 * completed with them (each value in its text form, {@code ::text}, bound back as the other values
 * are). Without the row (or without its delete half right before it) nothing is inserted: {@link
 * ApplyException.Reason#MOVED_ROW_NOT_FOUND}.
 */
final class MoveCarryOver {
  private final TargetSession session;
  private final RunWriter counts;

  MoveCarryOver(TargetSession session, RunWriter counts) {
    this.session = session;
    this.counts = counts;
  }

  /**
   * An insert that lacks values (UNCHANGED_TOAST) and names, by its {@code before}, the row they
   * are carried over from: the insert half of a move.
   */
  static boolean isMovedInsert(ChangeRecord c) {
    if (c.getOperation() != Operation.OPERATION_INSERT
        || !c.hasBefore()
        || c.getBefore().getColumnsCount() == 0) {
      return false;
    }
    for (ColumnValue v : c.getAfter().getColumnsList()) {
      if (v.getState() == ColumnState.COLUMN_STATE_UNCHANGED_TOAST) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code delete} is the delete half of {@code insert}: it immediately precedes it (the same
   * relation, the previous total_order) and removes the row the insert names (the same old image).
   */
  static boolean paired(ChangeRecord delete, ChangeRecord insert) {
    return delete != null
        && delete.getOperation() == Operation.OPERATION_DELETE
        && delete.getRelation().equals(insert.getRelation())
        && delete.getTotalOrder() + 1 == insert.getTotalOrder()
        && delete.getBefore().equals(insert.getBefore());
  }

  /** The refusal of a moved insert whose delete half is not right before it, still unwritten. */
  static ApplyException unpaired(ChangeRecord insert, String relation) {
    return new ApplyException(
        ApplyException.Reason.MOVED_ROW_NOT_FOUND,
        relation,
        insert.getIdempotencyKey(),
        "the insert half of an ownership move lacks values (unchanged-TOAST) and its delete half,"
            + " the row it carries them over from, does not immediately precede it (total_order "
            + Long.toUnsignedString(insert.getTotalOrder() - 1)
            + ", the same old image); no row with missing values is inserted");
  }

  /**
   * Deletes the moved row ({@code delete}, not written yet, of {@code shape}) and returns {@code
   * insert} completed with the values the row had in the columns {@code insert} lacks, without its
   * {@code before}: an ordinary insert.
   */
  ChangeRecord carryOver(RowShape shape, RowLayout layout, ChangeRecord delete, ChangeRecord insert)
      throws SQLException {
    RowImage after = insert.getAfter();
    StringBuilder sql = new StringBuilder(shape.sql.delete()).append(" RETURNING ");
    int lacking = 0;
    for (int i = 0; i < after.getColumnsCount(); i++) {
      if (after.getColumns(i).getState() == ColumnState.COLUMN_STATE_UNCHANGED_TOAST) {
        // ::text: the column's text form, whatever the driver would receive in binary (a bytea
        // read as binary would come back as an object, not as text the insert can bind)
        sql.append(lacking++ == 0 ? "" : ", ")
            .append(Identifiers.quote(layout.names[i]))
            .append("::text");
      }
    }
    session.at(shape.quotedTarget, delete.getIdempotencyKey());
    PreparedStatement ps = session.prepare(sql.toString());
    int p = 1;
    RowImage keyImage = delete.getBefore();
    for (int k = 0; k < shape.keyIndex.length; k++) {
      if (!shape.keyIsNull[k]) {
        RunWriter.bind(ps, p++, keyImage.getColumns(shape.keyIndex[k]));
      }
    }
    RowImage.Builder filled = after.toBuilder();
    int rows = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (++rows > 1) {
          break;
        }
        int col = 1;
        for (int i = 0; i < after.getColumnsCount(); i++) {
          if (after.getColumns(i).getState() == ColumnState.COLUMN_STATE_UNCHANGED_TOAST) {
            String text = rs.getString(col++);
            filled.setColumns(
                i,
                text == null
                    ? ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_NULL).build()
                    : ColumnValue.newBuilder()
                        .setState(ColumnState.COLUMN_STATE_VALUE)
                        .setText(text)
                        .build());
          }
        }
      }
    }
    if (rows == 0) {
      throw new ApplyException(
          ApplyException.Reason.MOVED_ROW_NOT_FOUND,
          shape.quotedTarget,
          insert.getIdempotencyKey(),
          "the row this ownership move carries its unchanged-TOAST values over from is not on the"
              + " target ("
              + describeKey(shape, keyImage)
              + ", deleted by "
              + delete.getIdempotencyKey()
              + "): the target diverged from the source; no row with missing values is inserted");
    }
    if (rows > 1) { // the transaction rolls back: nothing of it is visible
      throw new ApplyException(
          ApplyException.Reason.MULTIPLE_ROWS_MATCHED,
          shape.quotedTarget,
          delete.getIdempotencyKey(),
          "the delete half of an ownership move matched more than one row on the target ("
              + describeKey(shape, keyImage)
              + ")");
    }
    counts.deleted++;
    return insert.toBuilder().clearBefore().setAfter(filled).build();
  }

  private static String describeKey(RowShape shape, RowImage keyImage) {
    StringBuilder b = new StringBuilder("key ");
    for (int k = 0; k < shape.keyIndex.length; k++) {
      ColumnValue v = keyImage.getColumns(shape.keyIndex[k]);
      b.append(k == 0 ? "" : ", ")
          .append(shape.keyColumns[k])
          .append('=')
          .append(v.getState() == ColumnState.COLUMN_STATE_NULL ? "NULL" : v.getText());
    }
    return b.toString();
  }
}
