package io.trellara.sink.postgres.apply;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.RowImage;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.InsertConflictPolicy;
import io.trellara.sink.postgres.settings.MissingRowPolicy;
import io.trellara.sink.postgres.snapshot.SnapshotLoad;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

/**
 * Writes one run of rows (changes of one table, schema version, operation and shape, collected by
 * {@link PendingRuns}) set-based into the open target transaction: inserts through COPY when the
 * run is long enough or continues the COPY open for its shape ({@link InsertCopy}), else as
 * multi-row INSERT statements (upserting when the settings or a snapshot's load ask for it);
 * updates and deletes as one JDBC batch, where each change must match exactly one target row. The
 * counts are kept here and published only after the commit.
 */
final class RunWriter {
  /** Rows per multi-row INSERT statement (bounded by the 32767 bind parameters of a statement). */
  private static final int MAX_INSERT_ROWS = 256;

  private static final int MAX_PARAMETERS = 32_767;

  private final TargetSession session;
  private final ApplyOptions options;
  private final SnapshotLoad snapshot;
  private final InsertCopy insertCopy;

  long inserted;
  long updated;
  long deleted;
  long missingRowsIgnored;

  RunWriter(TargetSession session, ApplyOptions options, SnapshotLoad snapshot) {
    this.session = session;
    this.options = options;
    this.snapshot = snapshot;
    this.insertCopy = new InsertCopy(session);
  }

  /**
   * Writes {@code run} (not empty, every row of {@code shape}); a run of inserts written through
   * COPY leaves the COPY open for the next run.
   */
  void write(RowShape shape, List<ChangeRecord> run) throws SQLException {
    boolean intoCopy =
        shape.operation == Operation.OPERATION_INSERT
            && !upserts(shape)
            && (run.size() >= options.copyThreshold() || insertCopy.open(shape));
    if (intoCopy) {
      copyRun(shape, run); // InsertCopy names the COPY's whole range for errors
      return;
    }
    endCopy(); // any other statement needs the connection out of COPY
    switch (shape.operation) {
      case OPERATION_INSERT -> insertRun(shape, run);
      case OPERATION_UPDATE, OPERATION_DELETE -> keyedRun(shape, run);
      default -> throw new IllegalStateException(shape.operation.toString());
    }
  }

  /** Ends an open COPY: after this the session can run other statements. */
  void endCopy() throws SQLException {
    insertCopy.end();
  }

  // ---- inserts
  // --------------------------------------------------------------------------------------

  private boolean upserts(RowShape shape) {
    return options.insertConflict() == InsertConflictPolicy.UPSERT
        || snapshot.upserts(shape.target);
  }

  /** A run of inserts too short for COPY, or upserting: multi-row INSERT statements. */
  private void insertRun(RowShape shape, List<ChangeRecord> run) throws SQLException {
    atRun(shape, run);
    boolean upsert = upserts(shape);
    int perStatement =
        Math.max(1, Math.min(MAX_INSERT_ROWS, MAX_PARAMETERS / Math.max(1, shape.columns.length)));
    int done = 0;
    int full = run.size() / perStatement;
    if (full > 0) {
      PreparedStatement ps =
          session.prepare(
              shape.sql.insert(
                  perStatement, upsert, shape.quotedTarget, run.get(0).getIdempotencyKey()));
      for (int s = 0; s < full; s++) {
        bindInsertRows(ps, shape, run, done, perStatement);
        ps.addBatch();
        done += perStatement;
      }
      for (int n : ps.executeBatch()) {
        inserted += Math.max(n, 0);
      }
    }
    // the remainder in power-of-two statements, so a bounded set of statement shapes is prepared
    while (done < run.size()) {
      int rows = Integer.highestOneBit(run.size() - done);
      PreparedStatement ps =
          session.prepare(
              shape.sql.insert(
                  rows, upsert, shape.quotedTarget, run.get(done).getIdempotencyKey()));
      bindInsertRows(ps, shape, run, done, rows);
      inserted += Math.max(ps.executeUpdate(), 0);
      done += rows;
    }
  }

  private static void bindInsertRows(
      PreparedStatement ps, RowShape shape, List<ChangeRecord> run, int from, int rows)
      throws SQLException {
    int p = 1;
    for (int r = from; r < from + rows; r++) {
      RowImage after = run.get(r).getAfter();
      for (int idx : shape.columnIndex) {
        bind(ps, p++, after.getColumns(idx));
      }
    }
  }

  /**
   * A run of inserts long enough for COPY, or continuing the COPY open for its shape ({@link
   * InsertCopy}).
   */
  private void copyRun(RowShape shape, List<ChangeRecord> run) throws SQLException {
    insertCopy.write(shape, run);
    inserted +=
        run.size(); // counted once committed; a failure later in the COPY fails the transaction
  }

  // ---- updates and deletes
  // --------------------------------------------------------------------------

  private void keyedRun(RowShape shape, List<ChangeRecord> run) throws SQLException {
    boolean update = shape.operation == Operation.OPERATION_UPDATE;
    atRun(shape, run);
    PreparedStatement ps = session.prepare(update ? shape.sql.update() : shape.sql.delete());
    for (ChangeRecord c : run) {
      int p = 1;
      if (update) {
        RowImage after = c.getAfter();
        for (int idx : shape.columnIndex) {
          bind(ps, p++, after.getColumns(idx));
        }
      }
      RowImage keyImage = shape.keyFromBefore ? c.getBefore() : c.getAfter();
      for (int k = 0; k < shape.keyIndex.length; k++) {
        if (!shape.keyIsNull[k]) {
          bind(ps, p++, keyImage.getColumns(shape.keyIndex[k]));
        }
      }
      if (run.size() == 1) {
        checkMatched(ps.executeUpdate(), shape, c, update);
        return;
      }
      ps.addBatch();
    }
    int[] counts = ps.executeBatch();
    for (int i = 0; i < counts.length; i++) {
      checkMatched(counts[i], shape, run.get(i), update);
    }
  }

  private void checkMatched(int count, RowShape shape, ChangeRecord c, boolean update) {
    if (count == 0) {
      if (options.missingRow() == MissingRowPolicy.IGNORE) {
        missingRowsIgnored++;
        return;
      }
      throw new ApplyException(
          ApplyException.Reason.ROW_NOT_FOUND,
          shape.quotedTarget,
          c.getIdempotencyKey(),
          (update ? "update" : "delete")
              + " matched no row on the target: the"
              + " target diverged from the source ("
              + describeKey(shape, c)
              + ")");
    }
    if (count > 1) { // the transaction rolls back: nothing of it is visible
      throw new ApplyException(
          ApplyException.Reason.MULTIPLE_ROWS_MATCHED,
          shape.quotedTarget,
          c.getIdempotencyKey(),
          (update ? "update" : "delete")
              + " matched "
              + count
              + " rows on the"
              + " target instead of one ("
              + describeKey(shape, c)
              + ")");
    }
    if (update) {
      updated += count;
    } else {
      deleted += count;
    }
  }

  private static String describeKey(RowShape shape, ChangeRecord c) {
    RowImage keyImage = shape.keyFromBefore ? c.getBefore() : c.getAfter();
    StringBuilder b = new StringBuilder(shape.fullIdentity ? "old row " : "key ");
    for (int k = 0; k < shape.keyIndex.length; k++) {
      ColumnValue v = keyImage.getColumns(shape.keyIndex[k]);
      b.append(k == 0 ? "" : ", ")
          .append(shape.keyColumns[k])
          .append('=')
          .append(v.getState() == ColumnState.COLUMN_STATE_NULL ? "NULL" : v.getText());
    }
    return b.toString();
  }

  static void bind(PreparedStatement ps, int p, ColumnValue v) throws SQLException {
    if (v.getState() == ColumnState.COLUMN_STATE_NULL) {
      ps.setNull(p, Types.OTHER);
    } else {
      ps.setObject(p, v.getText(), Types.OTHER);
    }
  }

  /** Error context: the run being written. */
  private void atRun(RowShape shape, List<ChangeRecord> run) {
    session.atRun(
        shape.quotedTarget,
        run.get(0).getIdempotencyKey(),
        run.get(run.size() - 1).getIdempotencyKey(),
        run.size());
  }
}
