package io.trellara.sink.postgres.schema;

import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.names.Identifiers;
import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.ApplyOptions;
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
                     AND NOT EXISTS (SELECT FROM pg_catalog.pg_inherits h WHERE h.inhrelid = c.oid),
                   c.relkind = 'p', c.relhassubclass
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
  private static final String DESCENDANTS =
      """
            WITH RECURSIVE d(oid) AS (
                SELECT i.inhrelid FROM pg_catalog.pg_inherits i WHERE i.inhparent = pg_catalog.to_regclass(?)
              UNION
                SELECT i.inhrelid FROM pg_catalog.pg_inherits i JOIN d ON i.inhparent = d.oid)
            SELECT n.nspname, r.relname FROM d
              JOIN pg_catalog.pg_class r ON r.oid = d.oid JOIN pg_catalog.pg_namespace n ON n.oid = r.relnamespace
             ORDER BY 1, 2""";

  private final TargetSession session;
  private final RelationMapper mapper;
  private final boolean createMissing;
  private final TypeGate types;

  public TargetTables(TargetSession session, RelationMapper mapper, ApplyOptions options) {
    this.session = session;
    this.mapper = mapper;
    this.createMissing = options.createMissingTables();
    this.types = new TypeGate(session, options.allowedTypes());
  }

  /**
   * The table, created first from {@code schema} when it is missing and creation is enabled;
   * refused ({@code RELATION_REFUSED}, naming the partition) when it is partitioned and a
   * partition, at any depth, is not on the allowlist: rows written to it land in its partitions.
   */
  public TargetTable ensure(QualifiedName target, SchemaVersion schema, String eventKey)
      throws SQLException {
    TargetTable t = describe(target);
    if (t != null) {
      if (t.partitioned()) {
        for (QualifiedName partition : t.descendants()) {
          if (!mapper.allows(partition)) {
            throw new ApplyException(
                ApplyException.Reason.RELATION_REFUSED,
                partition.quoted(),
                eventKey,
                "target table "
                    + target.quoted()
                    + " is partitioned and its partition "
                    + partition.quoted()
                    + " is not on the sink's allowlist: rows written to the table would land in it."
                    + " Add every partition to the allowlist, or map the relation elsewhere");
          }
        }
      }
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
    boolean partitioned = false;
    boolean hasChildren = false;
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
        partitioned = rs.getBoolean(5);
        hasChildren = rs.getBoolean(6);
      }
    }
    if (columns.isEmpty()) {
      return null;
    }
    TargetTable t =
        new TargetTable(
            target,
            columns,
            new ArrayList<>(key.values()),
            selfContained,
            partitioned,
            hasChildren ? descendants(target) : List.of());
    session.cache(TableCache.class, TableCache::new).tables.put(target, t);
    return t;
  }

  private List<QualifiedName> descendants(QualifiedName target) throws SQLException {
    List<QualifiedName> out = new ArrayList<>();
    PreparedStatement ps = session.prepare(DESCENDANTS);
    ps.setString(1, target.quoted());
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(new QualifiedName(rs.getString(1), rs.getString(2)));
      }
    }
    return out;
  }

  /**
   * How the target spells the wire's type of {@code col} (a column of {@code relation}), or null
   * when the target has no such type; refused when it is not a type the sink creates columns of
   * ({@link TypeGate}).
   */
  TypeGate.Resolved targetType(ColumnDefinition col, String relation, String eventKey)
      throws SQLException {
    return types.resolve(col, relation, eventKey);
  }

  private void create(QualifiedName target, SchemaVersion schema, String eventKey)
      throws SQLException {
    StringBuilder sql =
        new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(target.quoted()).append(" (");
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < schema.getColumnsCount(); i++) {
      ColumnDefinition col = schema.getColumns(i);
      TypeGate.Resolved resolved = targetType(col, target.quoted(), eventKey);
      if (resolved == null) {
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
          .append(resolved.spelled());
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

  /**
   * Runs one ALTER TABLE the sink derived itself, then forgets what it knew about the table. {@code
   * ONLY} the table when nothing inherits from it; a table with inheritance children or partitions
   * is altered with them (the server allows no other way to add or retype a column), so every one
   * of them must be on the allowlist, else the change is refused ({@code SCHEMA_CHANGE_REFUSED}
   * naming the child) and nothing of the transaction is applied.
   */
  void alter(TargetTable table, String action, String eventKey) throws SQLException {
    for (QualifiedName child : table.descendants()) {
      if (!mapper.allows(child)) {
        throw new ApplyException(
            ApplyException.Reason.SCHEMA_CHANGE_REFUSED,
            table.name().quoted(),
            eventKey,
            "the target needs "
                + action
                + ", which would also change "
                + child.quoted()
                + ": it inherits from "
                + table.name().quoted()
                + " and is not on the sink's allowlist; make the change on the target yourself");
      }
    }
    session.execute("ALTER TABLE " + table.alterScope() + ' ' + action);
    session.forget(table.name());
  }
}
