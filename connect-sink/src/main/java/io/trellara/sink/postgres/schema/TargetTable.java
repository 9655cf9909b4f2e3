package io.trellara.sink.postgres.schema;

import io.trellara.sink.postgres.names.QualifiedName;
import java.util.List;
import java.util.Map;

/**
 * A target table as the target's catalog describes it, read once per session and again after the
 * sink alters it: its columns with their types, and its primary key. Update and delete match rows
 * on this primary key, never on what a record flags as key.
 *
 * @param name the table
 * @param columns column name to its type as {@code format_type} spells it, in column order
 * @param primaryKey the primary key's columns in key order; empty when the table has none
 * @param selfContained writing it reads and writes no other table, and writing another table does
 *     not touch it: an ordinary table (not partitioned, not a partition, no inheritance parent or
 *     child) without triggers (so without foreign keys either way: they are triggers), rules or row
 *     security. Writes to two such tables commute, so the writer may batch each one's rows across
 *     the others' (the apply package's change writer)
 * @param partitioned a partitioned table: it holds no rows itself, so its statements reach into its
 *     partitions, every one of which the sink checks against the allowlist ({@link
 *     TargetTables#ensure})
 * @param descendants its inheritance children and partitions, transitively ({@code pg_inherits})
 */
public record TargetTable(
    QualifiedName name,
    Map<String, String> columns,
    List<String> primaryKey,
    boolean selfContained,
    boolean partitioned,
    List<QualifiedName> descendants) {
  public TargetTable {
    columns = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(columns));
    primaryKey = List.copyOf(primaryKey);
    descendants = List.copyOf(descendants);
  }

  /**
   * The table as UPDATE, DELETE and TRUNCATE name it: {@code ONLY} it, so an inheritance child (a
   * table of its own, perhaps outside the allowlist) is never reached. A partitioned table is named
   * without {@code ONLY}: its rows live in its partitions ({@code UPDATE ONLY} of it matches
   * nothing, {@code TRUNCATE ONLY} of it is an error), all of them on the allowlist.
   */
  public String rowScope() {
    return partitioned ? name.quoted() : "ONLY " + name.quoted();
  }

  /**
   * The table as ALTER TABLE names it: {@code ONLY} when nothing inherits from it; else without,
   * because the server requires a column added or retyped in every child too ({@link
   * TargetTables#alter} refuses when a child is outside the allowlist).
   */
  String alterScope() {
    return descendants.isEmpty() ? "ONLY " + name.quoted() : name.quoted();
  }

  boolean hasColumn(String column) {
    return columns.containsKey(column);
  }

  public boolean isKey(String column) {
    return primaryKey.contains(column);
  }
}
