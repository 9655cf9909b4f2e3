package io.trellara.source.routing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configured ownership key of each table: {@code schema.table:col1|col2, schema.table2:col}. A
 * table not listed is owned by its whole primary key. Ownership columns must be carried by the
 * table's replica identity (primary-key columns; any column under REPLICA IDENTITY FULL, the
 * index's under USING INDEX), so every insert, update and delete carries them in the image that
 * identifies its row, and a key change is visible.
 */
public final class OwnershipKeys {
  private final Map<String, List<String>> columns;

  private OwnershipKeys(Map<String, List<String>> columns) {
    this.columns = columns;
  }

  public static OwnershipKeys none() {
    return new OwnershipKeys(Map.of());
  }

  /**
   * @throws IllegalArgumentException with what is wrong with an entry
   */
  public static OwnershipKeys parse(List<String> entries) {
    Map<String, List<String>> m = new LinkedHashMap<>();
    for (String entry : entries) {
      String e = entry.trim();
      if (e.isEmpty()) {
        continue;
      }
      int colon = e.lastIndexOf(':');
      if (colon <= 0 || colon == e.length() - 1 || e.substring(0, colon).indexOf('.') <= 0) {
        throw new IllegalArgumentException("'" + e + "' is not schema.table:column[|column...]");
      }
      List<String> cols =
          List.of(e.substring(colon + 1).split("\\|")).stream().map(String::trim).toList();
      if (cols.stream().anyMatch(String::isEmpty)) {
        throw new IllegalArgumentException("'" + e + "' names an empty column");
      }
      if (m.put(e.substring(0, colon).trim(), cols) != null) {
        throw new IllegalArgumentException("table " + e.substring(0, colon) + " is listed twice");
      }
    }
    return new OwnershipKeys(Map.copyOf(m));
  }

  /** The configured ownership columns of {@code schema.table}, or null for "the primary key". */
  public List<String> columnsOf(String qualifiedTable) {
    return columns.get(qualifiedTable);
  }

  public Map<String, List<String>> asMap() {
    return columns;
  }
}
