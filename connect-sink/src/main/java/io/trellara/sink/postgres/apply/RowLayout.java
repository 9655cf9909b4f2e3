package io.trellara.sink.postgres.apply;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.names.Identifiers;
import io.trellara.sink.postgres.schema.TargetTable;
import java.util.ArrayList;
import java.util.List;

/**
 * How the positional row images of one schema version map onto one target table: row image column i
 * is the schema version's column i, whose name is the target column's. Computed once per (relation,
 * fingerprint) and target description (see {@link #of}), so a row costs no name lookup: the column
 * names, which positions hold the target's primary key, and whether the schema version's key flags
 * agree with that key.
 */
public final class RowLayout {
  final SchemaVersion version;
  final TargetTable table;

  /** Position to column name. */
  final String[] names;

  /** Position holds a column of the target's primary key. */
  final boolean[] targetKey;

  /**
   * Positions of the target's primary-key columns, in key order; -1 where the schema version lacks
   * one.
   */
  final int[] primaryKeyPositions;

  /** A column the schema version flags as key that is not in the target's primary key, or null. */
  final String flaggedNotTargetKey;

  /** A target primary-key column the schema version does not flag as key (or lacks), or null. */
  final String targetKeyNotFlagged;

  /** The row shapes met so far, most recent last: a run's shape is looked up, not built again. */
  private final List<RowShape> shapes = new ArrayList<>(4);

  /**
   * More kinds of rows than this for one version (unchanged-TOAST patterns): the oldest shape is
   * dropped.
   */
  static final int MAX_SHAPES = 32;

  private RowLayout(SchemaVersion version, TargetTable table, String relation, String eventKey) {
    this.version = version;
    this.table = table;
    int n = version.getColumnsCount();
    names = new String[n];
    targetKey = new boolean[n];
    String flagged = null;
    java.util.Set<String> seen = new java.util.HashSet<>(n * 2);
    for (int i = 0; i < n; i++) {
      ColumnDefinition d = version.getColumns(i);
      names[i] = checkedName(d.getName(), relation, eventKey);
      if (!seen.add(names[i])) { // which position's value would apply would be the writer's choice
        throw new ApplyException(
            ApplyException.Reason.KEY_COLUMNS_MISMATCH,
            relation,
            eventKey,
            "the schema version names column \"" + names[i] + "\" more than once");
      }
      targetKey[i] = table.isKey(names[i]);
      if (d.getKey() && !targetKey[i] && flagged == null) {
        flagged = names[i];
      }
    }
    flaggedNotTargetKey = flagged;
    primaryKeyPositions = new int[table.primaryKey().size()];
    String notFlagged = null;
    for (int k = 0; k < primaryKeyPositions.length; k++) {
      String name = table.primaryKey().get(k);
      int p = positionOf(name);
      primaryKeyPositions[k] = p;
      if ((p < 0 || !version.getColumns(p).getKey()) && notFlagged == null) {
        notFlagged = name;
      }
    }
    targetKeyNotFlagged = notFlagged;
  }

  /**
   * The layout of {@code version} on {@code table}, reusing {@code cached} when it is the same
   * pair.
   */
  static RowLayout of(
      RowLayout cached,
      SchemaVersion version,
      TargetTable table,
      String relation,
      String eventKey) {
    if (cached != null
        && cached.table == table
        && (cached.version == version
            || cached.version.getFingerprint().equals(version.getFingerprint()))) {
      return cached;
    }
    return new RowLayout(version, table, relation, eventKey);
  }

  /**
   * The shape of {@code c}: one met before that it matches, else built (checking {@code c}) and
   * kept.
   */
  RowShape shapeOf(ChangeRecord c) {
    for (int i = shapes.size() - 1; i >= 0; i--) {
      RowShape s = shapes.get(i);
      if (s.matches(c)) {
        return s;
      }
    }
    RowShape s = RowShape.of(c, this);
    if (shapes.size() == MAX_SHAPES) {
      shapes.remove(0);
    }
    shapes.add(s);
    return s;
  }

  int columnCount() {
    return names.length;
  }

  int positionOf(String name) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static String checkedName(String name, String relation, String eventKey) {
    try {
      Identifiers.check(name);
    } catch (IllegalArgumentException e) {
      throw new ApplyException(
          ApplyException.Reason.RELATION_REFUSED,
          relation,
          eventKey,
          "column name cannot be used: " + e.getMessage());
    }
    return name;
  }
}
