package io.trellara.sink.postgres.apply;

import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.names.Identifiers;
import java.util.HashMap;
import java.util.Map;

/**
 * The statements of one {@link RowShape}, as SQL text: multi-row INSERT (or upsert: ON CONFLICT on
 * the primary key), UPDATE and DELETE of one row by its key (or, under REPLICA IDENTITY FULL
 * without a primary key, of one row with every old column's value) and {@code COPY ... FROM STDIN}.
 * Each text is built once per shape: it is also the key of the session's prepared-statement cache.
 */
final class ShapeSql {
  private final String quotedTarget;
  // UPDATE and DELETE name the table this way: ONLY it, unless partitioned (TargetTable#rowScope)
  private final String rowScope;
  private final boolean partitioned;
  private final String[] columns;
  private final int[] columnIndex;
  private final String[] keyColumns;
  private final int[] keyIndex;
  private final boolean[] keyIsNull;
  private final boolean fullIdentity;

  private String updateSql;
  private String deleteSql;
  private String copySql;
  private final Map<Integer, String> insertSql = new HashMap<>(4);

  /** The statements of a shape: its fields of the same names (see {@link RowShape}). */
  ShapeSql(
      String quotedTarget,
      String rowScope,
      boolean partitioned,
      String[] columns,
      int[] columnIndex,
      String[] keyColumns,
      int[] keyIndex,
      boolean[] keyIsNull,
      boolean fullIdentity) {
    this.quotedTarget = quotedTarget;
    this.rowScope = rowScope;
    this.partitioned = partitioned;
    this.columns = columns;
    this.columnIndex = columnIndex;
    this.keyColumns = keyColumns;
    this.keyIndex = keyIndex;
    this.keyIsNull = keyIsNull;
    this.fullIdentity = fullIdentity;
  }

  /**
   * INSERT of {@code rows} rows; {@code upsert}: ON CONFLICT on the key columns, updating every
   * other column ({@code relation} and {@code eventKey} name the run when there is no key).
   */
  String insert(int rows, boolean upsert, String relation, String eventKey) {
    Integer key = upsert ? -rows : rows;
    String sql = insertSql.get(key);
    if (sql == null) {
      sql = buildInsert(rows, upsert, relation, eventKey);
      insertSql.put(key, sql);
    }
    return sql;
  }

  private String buildInsert(int rows, boolean upsert, String relation, String eventKey) {
    StringBuilder b =
        new StringBuilder(64 + rows * columns.length * 3)
            .append("INSERT INTO ")
            .append(quotedTarget)
            .append(" (");
    appendColumns(b, columns);
    b.append(") VALUES ");
    for (int r = 0; r < rows; r++) {
      b.append(r == 0 ? "(" : ",(");
      for (int i = 0; i < columns.length; i++) {
        b.append(i == 0 ? "?" : ",?");
      }
      b.append(')');
    }
    if (upsert) {
      if (keyColumns.length == 0) {
        throw new ApplyException(
            ApplyException.Reason.MISSING_KEY_COLUMN,
            relation,
            eventKey,
            "upsert needs the key columns of the inserted row, and none is flagged as key");
      }
      b.append(" ON CONFLICT (");
      appendColumns(b, keyColumns);
      b.append(')');
      boolean any = false;
      for (int i = 0; i < columns.length; i++) {
        if (!isKey(columnIndex[i])) {
          b.append(any ? ", " : " DO UPDATE SET ");
          String q = Identifiers.quote(columns[i]);
          b.append(q).append(" = EXCLUDED.").append(q);
          any = true;
        }
      }
      if (!any) {
        b.append(" DO NOTHING");
      }
    }
    return b.toString();
  }

  private boolean isKey(int afterIndex) {
    for (int k : keyIndex) {
      if (k == afterIndex) {
        return true;
      }
    }
    return false;
  }

  String copy() {
    if (copySql == null) {
      StringBuilder b = new StringBuilder(64).append("COPY ").append(quotedTarget).append(" (");
      appendColumns(b, columns);
      copySql = b.append(") FROM STDIN").toString();
    }
    return copySql;
  }

  String update() {
    if (updateSql == null) {
      StringBuilder b = new StringBuilder(96).append("UPDATE ").append(rowScope).append(" SET ");
      for (int i = 0; i < columns.length; i++) {
        b.append(i == 0 ? "" : ", ").append(Identifiers.quote(columns[i])).append(" = ?");
      }
      updateSql = appendWhere(b).toString();
    }
    return updateSql;
  }

  String delete() {
    if (deleteSql == null) {
      deleteSql =
          appendWhere(new StringBuilder(96).append("DELETE FROM ").append(rowScope)).toString();
    }
    return deleteSql;
  }

  private StringBuilder appendWhere(StringBuilder b) {
    if (fullIdentity) {
      // a ctid is unique within one table only: across partitions the row is (tableoid, ctid)
      String row = partitioned ? "tableoid, ctid" : "ctid";
      b.append(partitioned ? " WHERE (" + row + ")" : " WHERE " + row)
          .append(" = (SELECT ")
          .append(row)
          .append(" FROM ")
          .append(rowScope);
    }
    b.append(" WHERE ");
    for (int i = 0; i < keyColumns.length; i++) {
      b.append(i == 0 ? "" : " AND ")
          .append(Identifiers.quote(keyColumns[i]))
          .append(keyIsNull[i] ? " IS NULL" : " = ?");
    }
    if (fullIdentity) {
      b.append(" LIMIT 1)");
    }
    return b;
  }

  private static void appendColumns(StringBuilder b, String[] names) {
    for (int i = 0; i < names.length; i++) {
      b.append(i == 0 ? "" : ", ").append(Identifiers.quote(names[i]));
    }
  }
}
