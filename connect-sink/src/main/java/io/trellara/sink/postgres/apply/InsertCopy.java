package io.trellara.sink.postgres.apply;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.RowImage;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.SQLException;
import java.util.List;

/**
 * Runs of inserts streamed into {@code COPY ... FROM STDIN} on the session. A COPY stays open
 * across runs (and chunks) of one shape, so PostgreSQL inserts rows while the next chunk is
 * decoded, instead of the two taking turns at every run's end; any other statement the session
 * prepares ends it ({@link TargetSession#prepare}), and so does {@link #end}.
 */
final class InsertCopy {
  private static final int FLUSH_BYTES = 1 << 20;

  private final TargetSession session;
  private final CopyTextEncoder copy = new CopyTextEncoder();

  /** The shape of the COPY open on the session, its first row's key and its rows so far. */
  private RowShape shape;

  private String firstKey;
  private long rows;

  InsertCopy(TargetSession session) {
    this.session = session;
  }

  /** Whether a COPY of {@code s} is open: a run of it continues there whatever its length. */
  boolean open(RowShape s) {
    return session.copyOpen() && shape == s;
  }

  /**
   * Streams {@code run} (inserts of shape {@code s}) into the COPY of {@code s}, opening one when
   * none is.
   */
  void write(RowShape s, List<ChangeRecord> run) throws SQLException {
    if (session.copyOpen() && shape != s) {
      end();
    }
    if (!session.copyOpen()) {
      session.beginCopy(s.sql.copy());
      shape = s;
      firstKey = run.get(0).getIdempotencyKey();
      rows = 0;
    }
    rows += run.size();
    session.atRun(s.quotedTarget, firstKey, run.get(run.size() - 1).getIdempotencyKey(), rows);
    try {
      copy.reset();
      int[] idx = s.columnIndex;
      for (ChangeRecord c : run) {
        RowImage after = c.getAfter();
        for (int i = 0; i < idx.length; i++) {
          if (i > 0) {
            copy.delimiter();
          }
          ColumnValue v = after.getColumns(idx[i]);
          if (v.getState() == ColumnState.COLUMN_STATE_NULL) {
            copy.nullValue();
          } else {
            copy.value(v.getTextBytes());
          }
        }
        copy.endRow();
        if (copy.length() >= FLUSH_BYTES) {
          session.copyRows(copy.buffer(), 0, copy.length());
          copy.reset();
        }
      }
      if (copy.length() > 0) {
        session.copyRows(copy.buffer(), 0, copy.length());
      }
    } catch (SQLException | RuntimeException e) {
      shape = null;
      session.cancelCopyQuietly();
      throw e;
    }
  }

  /** Ends the open COPY, if any: its rows are then in the transaction. */
  void end() throws SQLException {
    shape = null;
    session.endCopy();
  }
}
