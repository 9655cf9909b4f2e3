package io.trellara.sink.postgres.schema;

import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.names.Identifiers;
import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The target's catalog, as the writer needs it: each target table's columns and primary key (read
 * once per session, see {@link TargetSession#tables}), the target's spelling of a wire type, and
 * (only when enabled) the creation of a missing table from a schema version. Types are resolved by
 * the target ({@code to_regtype} and {@code format_type}), never pasted from the wire into SQL;
 * every identifier is quoted.
 */
public final class TargetTables {
  private static final String DESCRIBE =
      """
            SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
                   pg_catalog.array_position(i.indkey::pg_catalog.int2[], a.attnum),
                   c.relkind = 'r' AND NOT c.relispartition AND NOT c.relhassubclass AND NOT c.relhastriggers
                     AND NOT c.relhasrules AND NOT c.relrowsecurity
                     AND NOT EXISTS (SELECT FROM pg_catalog.pg_inherits h WHERE h.inhrelid = c.oid)
              FROM pg_catalog.pg_attribute a
              JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
              LEFT JOIN pg_catalog.pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
             WHERE a.attrelid = pg_catalog.to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped
             ORDER BY a.attnum""";
  private static final String REFERENCING =
      """
            WITH RECURSIVE edges(parent, child) AS (
                SELECT c.confrelid, c.conrelid FROM pg_catalog.pg_constraint c WHERE c.contype = 'f'
              UNION ALL
                SELECT i.inhparent, i.inhrelid FROM pg_catalog.pg_inherits i),
            t(oid) AS (
                SELECT pg_catalog.to_regclass(n)::pg_catalog.oid FROM pg_catalog.unnest(?::pg_catalog.text[]) AS n
              UNION
                SELECT e.child FROM edges e JOIN t ON e.parent = t.oid)
            SELECT n.nspname, r.relname FROM t
              JOIN pg_catalog.pg_class r ON r.oid = t.oid JOIN pg_catalog.pg_namespace n ON n.oid = r.relnamespace""";
  private static final String TYPE = "SELECT pg_catalog.format_type(pg_catalog.to_regtype(?), ?)";

  private final TargetSession session;
  private final boolean createMissing;

  public TargetTables(TargetSession session, boolean createMissing) {
    this.session = session;
    this.createMissing = createMissing;
  }

  /** The table, created first from {@code schema} when it is missing and creation is enabled. */
  public TargetTable ensure(QualifiedName target, SchemaVersion schema, String eventKey)
      throws SQLException {
    TargetTable t = describe(target);
    if (t != null) {
      return t;
    }
    if (!createMissing) {
      throw new ApplyException(
          ApplyException.Reason.MISSING_TARGET_TABLE,
          target.quoted(),
          eventKey,
          "target table "
              + target.quoted()
              + " does not exist; create it, map the source relation"
              + " to an existing table, or enable creation of missing tables");
    }
    if (schema == null || schema.getColumnsCount() == 0) {
      throw new ApplyException(
          ApplyException.Reason.MISSING_TARGET_TABLE,
          target.quoted(),
          eventKey,
          "target table is missing and the envelope (or chunk) carries no column definitions to create"
              + " it from");
    }
    create(target, schema, eventKey);
    return describe(target);
  }

  /** The table as the catalog says now (cached per session), or null when it does not exist. */
  public TargetTable describe(QualifiedName target) throws SQLException {
    TargetTable cached = session.cache(TableCache.class, TableCache::new).tables.get(target);
    if (cached != null) {
      return cached;
    }
    Map<String, String> columns = new LinkedHashMap<>();
    Map<Integer, String> key = new TreeMap<>();
    boolean selfContained = false;
    PreparedStatement ps = session.prepare(DESCRIBE);
    ps.setString(1, target.quoted());
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        columns.put(rs.getString(1), rs.getString(2));
        int position = rs.getInt(3);
        if (!rs.wasNull()) {
          key.put(position, rs.getString(1));
        }
        selfContained = rs.getBoolean(4);
      }
    }
    if (columns.isEmpty()) {
      return null;
    }
    TargetTable t = new TargetTable(target, columns, new ArrayList<>(key.values()), selfContained);
    session.cache(TableCache.class, TableCache::new).tables.put(target, t);
    return t;
  }

  /**
   * How the target spells the wire's type of {@code col}, or null when the target has no such type.
   */
  String targetType(ColumnDefinition col) throws SQLException {
    PreparedStatement ps = session.prepare(TYPE);
    ps.setString(1, col.getTypeName());
    ps.setInt(2, col.getTypeModifier());
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }

  private void create(QualifiedName target, SchemaVersion schema, String eventKey)
      throws SQLException {
    StringBuilder sql =
        new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(target.quoted()).append(" (");
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < schema.getColumnsCount(); i++) {
      ColumnDefinition col = schema.getColumns(i);
      String type = targetType(col);
      if (type == null) {
        throw new ApplyException(
            ApplyException.Reason.MISSING_TARGET_TABLE,
            target.quoted(),
            eventKey,
            "cannot create the target table: type '"
                + col.getTypeName()
                + "' of column \""
                + col.getName()
                + "\" does not exist on the target");
      }
      sql.append(i == 0 ? "" : ", ")
          .append(Identifiers.quote(col.getName()))
          .append(' ')
          .append(type);
      if (col.getKey()) {
        keys.add(Identifiers.quote(col.getName()));
      }
    }
    if (!keys.isEmpty()) {
      sql.append(", PRIMARY KEY (").append(String.join(", ", keys)).append(')');
    }
    sql.append(')');
    session.execute("CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(target.schema()));
    session.execute(sql.toString());
    session.cache(TableCache.class, TableCache::new).tables.remove(target);
  }

  /**
   * Every table that {@code TRUNCATE ... CASCADE} of {@code targets} would also empty: the tables
   * whose foreign keys reference them, transitively (partitions of a referencing partitioned table
   * included).
   */
  public List<QualifiedName> referencing(List<QualifiedName> targets) throws SQLException {
    String[] names = new String[targets.size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = targets.get(i).quoted();
    }
    List<QualifiedName> out = new ArrayList<>();
    PreparedStatement ps = session.prepare(REFERENCING);
    ps.setArray(1, session.array("text", names));
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(new QualifiedName(rs.getString(1), rs.getString(2)));
      }
    }
    return out;
  }

  /** Runs one ALTER TABLE the sink derived itself, then forgets what it knew about the table. */
  void alter(QualifiedName target, String action) throws SQLException {
    session.execute("ALTER TABLE " + target.quoted() + ' ' + action);
    session.forget(target);
  }
}
