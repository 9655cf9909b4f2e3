package io.trellara.sink.postgres.schema;

import com.google.protobuf.InvalidProtocolBufferException;
import io.trellara.protocol.LogText;
import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.names.Identifiers;
import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.DdlPolicy;
import io.trellara.sink.postgres.settings.DropColumnsPolicy;
import io.trellara.sink.postgres.settings.SchemaEvolutionMode;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Structured schema evolution: the sink derives a captured table's schema changes from the column
 * definitions on the wire ({@code schema_versions}), never from statement text. The schema version
 * each source relation was last applied with is kept in {@code trellara_sink.relation_schemas},
 * written in the same target transaction as the rows, so a restart continues from what the target
 * really has.
 *
 * <p>When a relation's fingerprint changes, the difference between the recorded version and the new
 * one is made on the target, each step only if the target does not already have it (so a change an
 * operator made by hand, or a replayed DDL, is not made twice):
 *
 * <ul>
 *   <li>a column the new version adds: {@code ADD COLUMN} (nullable, the target's spelling of the
 *       wire type);
 *   <li>a column it no longer has: kept (default) or dropped ({@code
 *       schema.evolution.drop.columns}, and only in a table named in {@code
 *       schema.evolution.lossy.tables}: a drop destroys the column's values);
 *   <li>a column whose type changed: {@code ALTER COLUMN ... TYPE} to the target's spelling of the
 *       new type, when the change is lossless ({@link Retypes}) or the table is named in {@code
 *       schema.evolution.lossy.tables}.
 * </ul>
 *
 * A wire record can ask for any change, so a change that would lose values already on the target is
 * refused ({@code SCHEMA_CHANGE_REFUSED}, naming the column, both types and the setting) unless the
 * operator named the table.
 *
 * <p>What cannot be derived safely stops apply naming the relation and the change: a changed key, a
 * type the target does not know, and a column dropped and another added in one step while dropping
 * is enabled (it may be a rename, which must never become a drop and an add). Renames themselves
 * are recognised at their DDL event (see {@link DdlApplier}).
 */
public final class SchemaEvolution {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(SchemaEvolution.class);
  private static final String LOAD =
      """
            SELECT fingerprint, definition FROM trellara_sink.relation_schemas
             WHERE sink_name = ? AND source_id = ? AND dataset_id = ? AND source_schema = ? AND source_table = ?""";
  private static final String STORE =
      """
            INSERT INTO trellara_sink.relation_schemas (sink_name, source_id, dataset_id, source_schema,
                source_table, fingerprint, definition)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (sink_name, source_id, dataset_id, source_schema, source_table)
            DO UPDATE SET fingerprint = EXCLUDED.fingerprint, definition = EXCLUDED.definition,
                          updated_at = pg_catalog.now()""";

  private static final String COLUMN_TYPE =
      """
            SELECT n.nspname, t.typname, a.atttypmod FROM pg_catalog.pg_attribute a
              JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
              JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
             WHERE a.attrelid = pg_catalog.to_regclass(?) AND a.attname = ? AND NOT a.attisdropped""";

  private final TargetSession session;
  private final TargetTables tables;
  private final ApplyOptions options;
  private final Set<QualifiedName> lossyTables;

  /** Target tables altered, for the metrics. */
  public long changes;

  public SchemaEvolution(TargetSession session, TargetTables tables, ApplyOptions options) {
    this.session = session;
    this.tables = tables;
    this.options = options;
    Set<QualifiedName> lossy = new HashSet<>();
    for (String t : options.lossyTables()) {
      lossy.add(QualifiedName.parse(t));
    }
    this.lossyTables = Set.copyOf(lossy);
  }

  /**
   * Makes {@code target} ready for rows of {@code version} (of the flow {@code sourceId}/{@code
   * datasetId}) and returns the table as the target has it then.
   */
  public TargetTable prepare(
      QualifiedName target,
      SchemaVersion version,
      String sourceId,
      String datasetId,
      String eventKey)
      throws SQLException {
    TargetTable table = tables.ensure(target, version, eventKey);
    if (version == null) {
      return table;
    }
    RelationId source = version.getRelation();
    SchemaVersion recorded = load(sourceId, datasetId, source);
    if (recorded != null && recorded.getFingerprint().equals(version.getFingerprint())) {
      return table;
    }
    // under replay the captured statements change the schema at their place; evolution only keeps
    // its record
    List<String> actions =
        options.ddlPolicy() == DdlPolicy.REPLAY
            ? List.of()
            : recorded == null
                ? added(table, version, eventKey)
                : derive(table, recorded, version, eventKey);
    if (!actions.isEmpty()) {
      if (options.schemaEvolution() == SchemaEvolutionMode.NONE) {
        throw refused(
            target,
            eventKey,
            "the target needs "
                + String.join(", ", actions)
                + " for schema version "
                + version.getFingerprint()
                + " and schema evolution is off; make"
                + " the change on the target yourself, or turn schema evolution on");
      }
      LOG.info(
          "Schema evolution of {} for schema version {} of {}.{} (event {}): {}",
          LogText.escape(target.quoted()),
          LogText.escape(version.getFingerprint()),
          LogText.escape(source.getSchema()),
          LogText.escape(source.getTable()),
          LogText.escape(eventKey),
          LogText.escape(actions.toString()));
      tables.alter(table, String.join(", ", actions), eventKey);
      table = tables.describe(target);
      changes++;
    }
    store(sourceId, datasetId, version);
    return table;
  }

  /**
   * First sight of a relation: only what the target lacks is added (nothing is dropped or retyped).
   */
  private List<String> added(TargetTable table, SchemaVersion version, String eventKey)
      throws SQLException {
    List<String> actions = new ArrayList<>();
    for (ColumnDefinition c : version.getColumnsList()) {
      if (!table.hasColumn(c.getName())) {
        actions.add(addColumn(table, c, eventKey));
      }
    }
    return actions;
  }

  private List<String> derive(
      TargetTable table, SchemaVersion from, SchemaVersion to, String eventKey)
      throws SQLException {
    Map<String, ColumnDefinition> before = byName(from);
    Map<String, ColumnDefinition> after = byName(to);
    if (!keys(before).equals(keys(after))) {
      throw refused(
          table.name(),
          eventKey,
          "the key of "
              + to.getRelation().getSchema()
              + '.'
              + to.getRelation().getTable()
              + " changed from "
              + keys(before)
              + " to "
              + keys(after)
              + "; a key change cannot be derived safely: change the target's primary key yourself, then"
              + " restart the task");
    }
    List<String> dropped = new ArrayList<>();
    for (String name : before.keySet()) {
      if (!after.containsKey(name)) {
        dropped.add(name);
      }
    }
    List<String> actions = new ArrayList<>();
    List<String> addedNames = new ArrayList<>();
    for (ColumnDefinition c : to.getColumnsList()) {
      ColumnDefinition old = before.get(c.getName());
      if (!table.hasColumn(c.getName())) {
        actions.add(addColumn(table, c, eventKey));
        addedNames.add(c.getName());
      } else if (old != null
          && (!old.getTypeName().equals(c.getTypeName())
              || old.getTypeModifier() != c.getTypeModifier())) {
        TypeGate.Resolved type = type(table, c, eventKey);
        if (!type.spelled().equals(table.columns().get(c.getName()))) {
          refuseLossyRetype(table, c.getName(), type, eventKey);
          actions.add("ALTER COLUMN " + Identifiers.quote(c.getName()) + " TYPE " + type.spelled());
        }
      }
    }
    if (options.dropColumns() == DropColumnsPolicy.DROP) {
      List<String> present = dropped.stream().filter(table::hasColumn).toList();
      if (!present.isEmpty() && !addedNames.isEmpty()) {
        throw refused(
            table.name(),
            eventKey,
            "columns "
                + present
                + " disappeared and "
                + addedNames
                + " appeared in one schema change: that may be a rename, which dropping would destroy;"
                + " make the change on the target yourself, then restart the task");
      }
      if (!present.isEmpty() && !lossyTables.contains(table.name())) {
        throw refused(
            table.name(),
            eventKey,
            "the source no longer has columns "
                + present
                + " and schema.evolution.drop.columns=drop, but dropping them destroys their"
                + " values: name "
                + table.name()
                + " in schema.evolution.lossy.tables to let the sink drop them, or drop them"
                + " yourself");
      }
      for (String name : present) {
        actions.add("DROP COLUMN IF EXISTS " + Identifiers.quote(name));
      }
    }
    return actions;
  }

  private String addColumn(TargetTable table, ColumnDefinition c, String eventKey)
      throws SQLException {
    return "ADD COLUMN IF NOT EXISTS "
        + Identifiers.quote(c.getName())
        + ' '
        + type(table, c, eventKey).spelled();
  }

  /**
   * Refuses retyping {@code column} of {@code table} to {@code to} unless it keeps every value
   * ({@link Retypes}) or the operator named the table in {@code schema.evolution.lossy.tables}.
   */
  private void refuseLossyRetype(
      TargetTable table, String column, TypeGate.Resolved to, String eventKey) throws SQLException {
    if (lossyTables.contains(table.name())) {
      return;
    }
    PreparedStatement ps = session.prepare(COLUMN_TYPE);
    ps.setString(1, table.name().quoted());
    ps.setString(2, column);
    try (ResultSet rs = ps.executeQuery()) {
      if (rs.next()
          && Retypes.lossless(
              new QualifiedName(rs.getString(1), rs.getString(2)),
              rs.getInt(3),
              to.type(),
              to.modifier())) {
        return;
      }
    }
    throw refused(
        table.name(),
        eventKey,
        "changing column \""
            + column
            + "\" from "
            + table.columns().get(column)
            + " to "
            + to.spelled()
            + " may lose values already on the target (not a widening change): name "
            + table.name()
            + " in schema.evolution.lossy.tables to let the sink apply it, or change the column"
            + " yourself");
  }

  private TypeGate.Resolved type(TargetTable table, ColumnDefinition c, String eventKey)
      throws SQLException {
    TypeGate.Resolved type = tables.targetType(c, table.name().quoted(), eventKey);
    if (type == null) {
      throw refused(
          table.name(),
          eventKey,
          "column \""
              + c.getName()
              + "\" has type '"
              + c.getTypeName()
              + "', which the target does not know; create the type on the target, or add the column"
              + " yourself");
    }
    return type;
  }

  private static Map<String, ColumnDefinition> byName(SchemaVersion v) {
    Map<String, ColumnDefinition> out = new LinkedHashMap<>();
    for (ColumnDefinition c : v.getColumnsList()) {
      out.put(c.getName(), c);
    }
    return out;
  }

  private static List<String> keys(Map<String, ColumnDefinition> columns) {
    return columns.values().stream()
        .filter(ColumnDefinition::getKey)
        .map(ColumnDefinition::getName)
        .toList();
  }

  private SchemaVersion load(String sourceId, String datasetId, RelationId source)
      throws SQLException {
    PreparedStatement ps = session.prepare(LOAD);
    ps.setString(1, options.sinkName());
    ps.setString(2, sourceId);
    ps.setString(3, datasetId);
    ps.setString(4, source.getSchema());
    ps.setString(5, source.getTable());
    try (ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      try {
        return SchemaVersion.parseFrom(rs.getBytes(2));
      } catch (InvalidProtocolBufferException e) {
        throw new SQLException(
            "trellara_sink.relation_schemas holds an unreadable definition for "
                + source.getSchema()
                + '.'
                + source.getTable(),
            e);
      }
    }
  }

  private void store(String sourceId, String datasetId, SchemaVersion version) throws SQLException {
    PreparedStatement ps = session.prepare(STORE);
    ps.setString(1, options.sinkName());
    ps.setString(2, sourceId);
    ps.setString(3, datasetId);
    ps.setString(4, version.getRelation().getSchema());
    ps.setString(5, version.getRelation().getTable());
    ps.setString(6, version.getFingerprint());
    ps.setBytes(7, version.toByteArray());
    ps.executeUpdate();
  }

  private static ApplyException refused(QualifiedName target, String eventKey, String detail) {
    return new ApplyException(
        ApplyException.Reason.SCHEMA_CHANGE_REFUSED, target.quoted(), eventKey, detail);
  }
}
