package io.trellara.sink.postgres.settings;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;

/**
 * Whether the sink derives a captured table's schema changes from the schema versions on the wire.
 */
public enum SchemaEvolutionMode implements ConfigChoice {
  /**
   * Add columns, change types and (per {@link DropColumnsPolicy}) drop columns as the schema
   * versions say.
   */
  AUTO,
  /**
   * Never alter a target table: a schema version the target does not fit stops apply naming what it
   * needs.
   */
  NONE;

  @Override
  public String configName() {
    return ConfigChoices.lowerCase(this);
  }
}
