package io.trellara.sink.postgres;

/**
 * Whether the sink derives a captured table's schema changes from the schema versions on the wire.
 */
public enum SchemaEvolutionMode {
  /**
   * Add columns, change types and (per {@link DropColumnsPolicy}) drop columns as the schema
   * versions say.
   */
  AUTO,
  /**
   * Never alter a target table: a schema version the target does not fit stops apply naming what it
   * needs.
   */
  NONE
}
