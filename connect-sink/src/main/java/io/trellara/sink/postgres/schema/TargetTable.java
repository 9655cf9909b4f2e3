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
 */
public record TargetTable(
    QualifiedName name,
    Map<String, String> columns,
    List<String> primaryKey,
    boolean selfContained) {
  public TargetTable {
    columns = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(columns));
    primaryKey = List.copyOf(primaryKey);
  }

  boolean hasColumn(String column) {
    return columns.containsKey(column);
  }

  public boolean isKey(String column) {
    return primaryKey.contains(column);
  }
}
