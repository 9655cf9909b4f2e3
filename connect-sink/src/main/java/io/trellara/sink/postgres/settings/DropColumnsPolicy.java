package io.trellara.sink.postgres.settings;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;

/** What structured schema evolution does with a column the source no longer has. */
public enum DropColumnsPolicy implements ConfigChoice {
  /** Leave the target column (its values stay; new rows leave it to its default). */
  KEEP,
  /** Drop the target column. */
  DROP;

  @Override
  public String configName() {
    return ConfigChoices.lowerCase(this);
  }
}
