package io.trellara.sink.postgres.settings;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;

/** Handling of an insert whose key already exists on the target. */
public enum InsertConflictPolicy implements ConfigChoice {
  /** The unique violation stops the transaction (default: the target diverged). */
  FAIL,
  /** {@code INSERT ... ON CONFLICT (key columns) DO UPDATE SET ...}. */
  UPSERT;

  @Override
  public String configName() {
    return ConfigChoices.lowerCase(this);
  }
}
