package io.trellara.sink.postgres.schema;

import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which types the sink creates columns of. A wire type name is resolved on the target ({@code
 * to_regtype}, then {@code pg_type}) and accepted only when it is a built-in (in {@code
 * pg_catalog}, a base, range or multirange type: not a table's row type, not a pseudo-type), an
 * array of one, or a type the operator lists in {@code target.types.allowed} (or an array of it).
 * Everything else is refused with {@code TYPE_REFUSED}: a column typed as a table's row type makes
 * that table depend on the sink's (its {@code DROP TABLE} fails) and copies its shape; a type of
 * the sink's own schema ties the target's tables to the sink's bookkeeping.
 */
final class TypeGate {
  private static final String RESOLVE =
      """
            SELECT pg_catalog.format_type(t.oid, ?), n.nspname, t.typname, t.typtype,
                   en.nspname, e.typname, e.typtype
              FROM pg_catalog.pg_type t
              JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
              LEFT JOIN pg_catalog.pg_type e ON e.typarray = t.oid
              LEFT JOIN pg_catalog.pg_namespace en ON en.oid = e.typnamespace
             WHERE t.oid = pg_catalog.to_regtype(?)""";

  /** Every column of the tables named: (table oid, column number, type oid) and the type. */
  private static final String COLUMNS =
      """
            SELECT a.attrelid::pg_catalog.int8, a.attnum, a.atttypid::pg_catalog.int8, a.attname,
                   pg_catalog.format_type(a.atttypid, a.atttypmod), n.nspname, t.typname, t.typtype,
                   en.nspname, e.typname, e.typtype
              FROM pg_catalog.pg_attribute a
              JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
              JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
              LEFT JOIN pg_catalog.pg_type e ON e.typarray = t.oid
              LEFT JOIN pg_catalog.pg_namespace en ON en.oid = e.typnamespace
             WHERE a.attrelid = ANY (SELECT pg_catalog.to_regclass(x) FROM pg_catalog.unnest(?::pg_catalog.text[]) x)
               AND a.attnum > 0 AND NOT a.attisdropped""";

  /** Base, range and multirange: built-ins of these kinds hold values, never rows of a table. */
  private static final Set<String> BUILT_IN_KINDS = Set.of("b", "r", "m");

  private final TargetSession session;
  private final Set<QualifiedName> allowed;

  TypeGate(TargetSession session, List<String> allowedTypes) {
    this.session = session;
    Set<QualifiedName> names = new HashSet<>();
    for (String t : allowedTypes) {
      names.add(QualifiedName.parse(t));
    }
    this.allowed = Set.copyOf(names);
  }

  /**
   * A type as the target resolved it.
   *
   * @param spelled the target's spelling with the type modifier ({@code format_type})
   * @param type the type itself (for an array, the array type)
   * @param modifier the type modifier
   */
  record Resolved(String spelled, QualifiedName type, int modifier) {}

  /**
   * The wire's type of {@code col} as the target resolves it, or null when the target has no such
   * type; refused ({@code TYPE_REFUSED}, naming the type, the column and {@code relation}) when the
   * type is not one the sink creates columns of.
   */
  Resolved resolve(ColumnDefinition col, String relation, String eventKey) throws SQLException {
    PreparedStatement ps = session.prepare(RESOLVE);
    ps.setInt(1, col.getTypeModifier());
    ps.setString(2, col.getTypeName());
    try (ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      boolean array = rs.getString(6) != null;
      QualifiedName type =
          array
              ? new QualifiedName(rs.getString(5), rs.getString(6))
              : new QualifiedName(rs.getString(2), rs.getString(3));
      String kind = rs.getString(array ? 7 : 4);
      if (!accepts(type, kind)) {
        throw new ApplyException(
            ApplyException.Reason.TYPE_REFUSED,
            relation,
            eventKey,
            "column \""
                + col.getName()
                + "\" has type '"
                + col.getTypeName()
                + "' ("
                + (array ? "an array of " : "")
                + type.quoted()
                + "), which is neither a built-in type nor listed in target.types.allowed; the"
                + " sink creates no column of it. List it there if it is a type of your own");
      }
      return new Resolved(
          rs.getString(1),
          new QualifiedName(rs.getString(2), rs.getString(3)),
          col.getTypeModifier());
    }
  }

  /**
   * Column types of {@code tables} as the target has them, keyed by (table oid, column number, type
   * oid): what {@link #refuseNewColumns} compares a replayed statement's result with.
   */
  Set<String> columns(List<QualifiedName> tables) throws SQLException {
    Set<String> out = new HashSet<>();
    readColumns(tables, rs -> out.add(rs.getLong(1) + ":" + rs.getInt(2) + ":" + rs.getLong(3)));
    return out;
  }

  /**
   * Refuses ({@code TYPE_REFUSED}) a column of {@code tables} that is new or retyped since {@code
   * before} and of a type the sink does not create columns of: replayed DDL text is judged by its
   * form, so the type it named is judged here, in the same target transaction, before it commits.
   */
  void refuseNewColumns(List<QualifiedName> tables, Set<String> before, String eventKey)
      throws SQLException {
    readColumns(
        tables,
        rs -> {
          if (before.contains(rs.getLong(1) + ":" + rs.getInt(2) + ":" + rs.getLong(3))) {
            return;
          }
          boolean array = rs.getString(10) != null;
          QualifiedName type =
              array
                  ? new QualifiedName(rs.getString(9), rs.getString(10))
                  : new QualifiedName(rs.getString(6), rs.getString(7));
          if (!accepts(type, rs.getString(array ? 11 : 8))) {
            throw new ApplyException(
                ApplyException.Reason.TYPE_REFUSED,
                tables.toString(),
                eventKey,
                "the replayed statement gave column \""
                    + rs.getString(4)
                    + "\" type "
                    + rs.getString(5)
                    + ", which is neither a built-in type nor listed in target.types.allowed;"
                    + " nothing of the transaction is applied");
          }
        });
  }

  private interface Row {
    void accept(ResultSet rs) throws SQLException;
  }

  private void readColumns(List<QualifiedName> tables, Row row) throws SQLException {
    String[] names = new String[tables.size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = tables.get(i).quoted();
    }
    PreparedStatement ps = session.prepare(COLUMNS);
    ps.setArray(1, session.array("text", names));
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        row.accept(rs);
      }
    }
  }

  private boolean accepts(QualifiedName type, String kind) {
    return allowed.contains(type)
        || (type.schema().equals("pg_catalog") && BUILT_IN_KINDS.contains(kind));
  }
}
