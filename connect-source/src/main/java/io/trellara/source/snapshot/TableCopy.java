package io.trellara.source.snapshot;

import io.trellara.source.pg.PgNames;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.StringJoiner;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.postgresql.copy.CopyOut;

/**
 * Reads one table of the snapshot as {@code COPY ... TO STDOUT} text rows. A table with a usable
 * unique key ({@link SnapshotTable#orderKey()}) is read in key order, in ranges of at most {@code
 * rangeRows} rows: each range is a COPY of {@code SELECT ... WHERE (key) > (the last key read)
 * ORDER BY key LIMIT rangeRows}, an index scan that starts where the previous one ended, so no
 * statement runs longer than one range and the target receives rows in the order of its primary key
 * index. A table without one, or {@code rangeRows} 0, is one COPY in storage order (as PostgreSQL's
 * own table synchronisation reads it). Every range runs in the caller's transaction, so all of them
 * see the one exported snapshot. Memory holds one row at a time.
 */
final class TableCopy {
  /**
   * Receives each row: the array is the receiver's to keep (pgjdbc gives each row one of its own).
   */
  @FunctionalInterface
  interface Rows {
    void row(byte[] row) throws IOException;
  }

  private TableCopy() {}

  /** Reads every row of {@code t} into {@code rows}; returns how many. */
  static long read(Connection c, SnapshotTable t, long rangeRows, Rows rows)
      throws SQLException, IOException {
    CopyManager api = c.unwrap(PGConnection.class).getCopyAPI();
    if (rangeRows <= 0 || t.orderKey().isEmpty()) {
      return copy(api, copySql(t), rows, null);
    }
    long total = 0;
    byte[][] last = new byte[1][];
    String after = null;
    while (true) {
      long n = copy(api, rangeSql(t, after, rangeRows), rows, last);
      total += n;
      if (n < rangeRows) {
        return total;
      }
      after = keyLiteral(t, last[0]);
    }
  }

  private static long copy(CopyManager api, String sql, Rows rows, byte[][] last)
      throws SQLException, IOException {
    CopyOut copy = api.copyOut(sql);
    long n = 0;
    try {
      byte[] row;
      byte[] previous = null;
      while ((row = copy.readFromCopy()) != null) {
        rows.row(row);
        previous = row;
        n++;
      }
      if (last != null) {
        last[0] = previous;
      }
      return n;
    } finally {
      if (copy.isActive()) {
        copy.cancelCopy();
      }
    }
  }

  /**
   * COPY of the published columns; through a query when a row filter applies or the table is
   * partitioned.
   */
  static String copySql(SnapshotTable t) {
    String filter = t.rowFilter();
    if (filter == null && !t.partitioned()) {
      return "COPY " + table(t) + " (" + columns(t) + ") TO STDOUT";
    }
    return "COPY (SELECT "
        + columns(t)
        + " FROM "
        + table(t)
        + (filter == null ? "" : " WHERE " + filter)
        + ") TO STDOUT";
  }

  /**
   * COPY of the next key range: the rows after {@code after} (a row of key literals; null: from the
   * start).
   */
  static String rangeSql(SnapshotTable t, String after, long rangeRows) {
    StringJoiner key = new StringJoiner(", ", "(", ")");
    t.orderKey().forEach(k -> key.add(PgNames.quoteIdentifier(t.columns().get(k.column()).name())));
    StringJoiner where = new StringJoiner(" AND ", " WHERE ", "").setEmptyValue("");
    if (t.rowFilter() != null) {
      where.add("(" + t.rowFilter() + ")");
    }
    if (after != null) {
      where.add(key + " > " + after);
    }
    return "COPY (SELECT "
        + columns(t)
        + " FROM "
        + table(t)
        + where
        + " ORDER BY "
        + key.toString().substring(1, key.length() - 1)
        + " LIMIT "
        + rangeRows
        + ") TO STDOUT";
  }

  /**
   * The key of {@code row} as a row of typed literals, e.g. {@code (E'a''b'::text, E'7'::integer)}.
   * The values are the table's own data: quoted as escape-string literals, which mean the same
   * under every setting of standard_conforming_strings, never spliced in as they are.
   */
  static String keyLiteral(SnapshotTable t, byte[] row) {
    StringJoiner literal = new StringJoiner(", ", "(", ")");
    for (SnapshotTable.KeyColumn k : t.orderKey()) {
      String value = CopyText.field(row, k.column());
      if (value == null) {
        throw new IllegalStateException(
            "the key column "
                + t.columns().get(k.column()).name()
                + " of "
                + t.display()
                + " is NULL in a row read by key");
      }
      literal.add("E'" + value.replace("\\", "\\\\").replace("'", "''") + "'::" + k.type());
    }
    return literal.toString();
  }

  private static String table(SnapshotTable t) {
    return PgNames.quoteIdentifier(t.schema()) + "." + PgNames.quoteIdentifier(t.name());
  }

  private static String columns(SnapshotTable t) {
    StringJoiner cols = new StringJoiner(", ");
    t.columns().forEach(col -> cols.add(PgNames.quoteIdentifier(col.name())));
    return cols.toString();
  }
}
