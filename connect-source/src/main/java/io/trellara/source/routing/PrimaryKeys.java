package io.trellara.source.routing;

import io.trellara.source.capture.RelationSchema;
import java.util.ArrayList;
import java.util.List;

/**
 * A captured table's primary key, which a Relation message does not name: its key flags are the
 * replica identity's columns, which are the primary key only under REPLICA IDENTITY DEFAULT (under
 * FULL no column is flagged, under USING INDEX the index's columns are). {@code
 * derive_from_primary_key}, and ownership by the whole primary key, need the real one, read from
 * the source catalog ({@code io.trellara.source.pg.CatalogPrimaryKeys}).
 */
public interface PrimaryKeys {

  /**
   * The primary-key column names of {@code relation}, in the table's column order; empty when it
   * has none.
   */
  List<String> of(RelationSchema relation);

  /**
   * The key flags, valid as the primary key under REPLICA IDENTITY DEFAULT only (tests, and flows
   * whose tables all have it).
   */
  static PrimaryKeys flagged() {
    return PrimaryKeys::flaggedColumns;
  }

  /** The columns {@code relation}'s Relation message flags as key, in column order. */
  static List<String> flaggedColumns(RelationSchema relation) {
    List<String> flagged = new ArrayList<>();
    for (RelationSchema.Column col : relation.columns()) {
      if (col.key()) {
        flagged.add(col.name());
      }
    }
    return flagged;
  }
}
