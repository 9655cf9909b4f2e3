package io.trellara.source.pg;

import io.trellara.identity.ColumnType;
import io.trellara.identity.RowIdentityTypes;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Partitioned scale mode's checks of a table's ownership columns against the live catalog, shared
 * by {@code validate()} and task start: each must exist, have a row identity V2 encoder and a
 * deterministic collation, and be carried by the table's replica identity, so that deletes and
 * ownership-changing updates arrive with it. A primary-key column always is; any other column only
 * under REPLICA IDENTITY FULL, or USING INDEX on an index holding it. A column that is not carried
 * is refused naming the {@code ALTER TABLE ... REPLICA IDENTITY ...} that would make it valid:
 * USING INDEX on an existing unique index that holds the primary key and every ownership column,
 * where one can serve (its columns NOT NULL, neither partial nor deferrable), else FULL.
 */
final class OwnershipPreflight {
  static final String OWNERSHIP_PROPERTY = "dataset.partitioned.ownership_keys";

  private OwnershipPreflight() {}

  /**
   * A primary-key column: name, and whether ownership routing can encode it (the reason when not).
   */
  record KeyColumn(String name, String refusal) {}

  /** An index by name and columns. */
  record Index(String name, List<String> columns) {}

  /**
   * A captured table as the preflight saw it.
   *
   * @param identity pg_class.relreplident: d, n, f or i
   * @param identityIndex the replica identity index under USING INDEX, else null
   */
  record CapturedTable(
      String qualified,
      String schema,
      String name,
      long oid,
      char identity,
      List<KeyColumn> primaryKey,
      Index identityIndex) {

    List<String> primaryKeyNames() {
      return primaryKey.stream().map(KeyColumn::name).toList();
    }

    boolean identityIndexHoldsPrimaryKey() {
      return identityIndex != null && identityIndex.columns().containsAll(primaryKeyNames());
    }

    /** The statement giving the table {@code identity}, identifiers quoted. */
    String alterIdentity(String identity) {
      return "ALTER TABLE "
          + PgNames.quoteIdentifier(schema)
          + '.'
          + PgNames.quoteIdentifier(name)
          + " REPLICA IDENTITY "
          + identity;
    }

    String identityDescription() {
      return switch (identity) {
        case 'f' -> "FULL";
        case 'i' ->
            "USING INDEX "
                + PgNames.quoteIdentifier(identityIndex.name())
                + " on "
                + identityIndex.columns();
        case 'n' -> "NOTHING";
        default -> "DEFAULT, the primary key " + primaryKeyNames();
      };
    }
  }

  /** The replica identity index of table {@code oid}, or null when it has none. */
  static Index identityIndex(Connection c, long oid) throws SQLException {
    List<Index> found =
        indexes(
            c,
            oid,
            """
            SELECT ic.relname, array_agg(a.attname::text ORDER BY a.attnum)
            FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
            WHERE i.indrelid = ? AND i.indisreplident GROUP BY ic.relname""");
    return found.isEmpty() ? null : found.get(0);
  }

  /**
   * Checks the ownership columns of {@code t} ({@code configured}; null: its primary key), adding a
   * problem for each that cannot be routed.
   */
  static void check(
      Connection c, CapturedTable t, List<String> configured, List<SourceProblem> problems)
      throws SQLException {
    List<String> ownership = configured == null ? t.primaryKeyNames() : configured;
    List<String> uncarried = new ArrayList<>();
    boolean nullable = false;
    for (String column : ownership) {
      KeyColumn k =
          t.primaryKey().stream().filter(kc -> kc.name().equals(column)).findFirst().orElse(null);
      if (k != null) {
        if (k.refusal() != null) {
          problems.add(unroutable(t, column, k.refusal()));
        }
        continue;
      }
      Boolean notNull = nonKeyColumn(c, t, column, problems);
      if (notNull == null) {
        continue;
      }
      if (!carried(t, column)) {
        uncarried.add(column);
        nullable |= !notNull;
      }
    }
    for (String column : uncarried) {
      problems.add(uncarried(c, t, column, ownership, nullable));
    }
  }

  private static boolean carried(CapturedTable t, String column) {
    return t.identity() == 'f'
        || (t.identity() == 'i' && t.identityIndex().columns().contains(column));
  }

  /**
   * Checks a non-key ownership column's existence, type and collation; its NOT NULL flag, or null
   * when a problem was added.
   */
  private static Boolean nonKeyColumn(
      Connection c, CapturedTable t, String column, List<SourceProblem> problems)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            SELECT a.atttypid, a.atttypmod, a.attnotnull, COALESCE(col.collisdeterministic, true),
                   COALESCE(col.collname, '')
            FROM pg_attribute a LEFT JOIN pg_collation col ON col.oid = a.attcollation
            WHERE a.attrelid = ? AND a.attname = ? AND a.attnum > 0 AND NOT a.attisdropped""")) {
      ps.setLong(1, t.oid());
      ps.setString(2, column);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          problems.add(
              new SourceProblem(
                  OWNERSHIP_PROPERTY,
                  "Ownership column \""
                      + column
                      + "\" of "
                      + t.qualified()
                      + " is not a column of the table. Fix "
                      + OWNERSHIP_PROPERTY
                      + " ("
                      + t.qualified()
                      + ":column)."));
          return null;
        }
        ColumnType type = CatalogKeyTypes.resolve(c, (int) rs.getLong(1), rs.getInt(2));
        String refusal = RowIdentityTypes.rejectionReason(column, type).orElse(null);
        if (refusal == null && !rs.getBoolean(4)) {
          refusal =
              "it uses the non-deterministic collation "
                  + rs.getString(5)
                  + ", so equal values could differ in bytes and in lane";
        }
        if (refusal != null) {
          problems.add(unroutable(t, column, refusal));
          return null;
        }
        return rs.getBoolean(3);
      }
    }
  }

  private static SourceProblem unroutable(CapturedTable t, String column, String refusal) {
    return new SourceProblem(
        OWNERSHIP_PROPERTY,
        "Ownership column \""
            + column
            + "\" of "
            + t.qualified()
            + " cannot be routed: "
            + refusal
            + ". Route by another column ("
            + OWNERSHIP_PROPERTY
            + "="
            + t.qualified()
            + ":col).");
  }

  private static SourceProblem uncarried(
      Connection c, CapturedTable t, String column, List<String> ownership, boolean nullable)
      throws SQLException {
    List<String> needed = new ArrayList<>(t.primaryKeyNames());
    needed.addAll(ownership);
    Index index = nullable ? null : usableIndex(c, t.oid(), needed);
    String fix =
        index != null
            ? t.alterIdentity("USING INDEX " + PgNames.quoteIdentifier(index.name()))
                + " (a unique index on "
                + index.columns()
                + ", holding the primary key and the ownership columns), or "
                + t.alterIdentity("FULL")
            : t.alterIdentity("FULL")
                + (nullable
                    ? " (a replica identity index cannot hold a nullable column)"
                    : " (or USING INDEX on a unique index of NOT NULL columns holding the primary"
                        + " key and the ownership columns)");
    return new SourceProblem(
        OWNERSHIP_PROPERTY,
        "Ownership column \""
            + column
            + "\" of "
            + t.qualified()
            + " is not a primary-key column and the table's replica identity ("
            + t.identityDescription()
            + ") does not carry it: its deletes and ownership-changing updates would arrive without"
            + " it, so they could not be routed and a move between lanes would be invisible. Run "
            + fix
            + ", or route by a primary-key column.");
  }

  /**
   * A unique index of {@code oid} that could be the replica identity (valid, immediate, not
   * partial, no expressions, NOT NULL columns) and holds every column of {@code needed}.
   */
  private static Index usableIndex(Connection c, long oid, List<String> needed)
      throws SQLException {
    for (Index i :
        indexes(
            c,
            oid,
            """
            SELECT ic.relname, array_agg(a.attname::text ORDER BY a.attnum)
            FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
            WHERE i.indrelid = ? AND i.indisunique AND i.indimmediate AND i.indisvalid
              AND i.indpred IS NULL AND i.indexprs IS NULL
            GROUP BY ic.relname HAVING bool_and(a.attnotnull) ORDER BY count(*), ic.relname""")) {
      if (i.columns().containsAll(needed)) {
        return i;
      }
    }
    return null;
  }

  private static List<Index> indexes(Connection c, long oid, String sql) throws SQLException {
    List<Index> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setLong(1, oid);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Array names = rs.getArray(2);
          out.add(new Index(rs.getString(1), List.of((String[]) names.getArray())));
        }
      }
    }
    return out;
  }
}
