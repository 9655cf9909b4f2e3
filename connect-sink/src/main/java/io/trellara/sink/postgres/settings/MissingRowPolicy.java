package io.trellara.sink.postgres.settings;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;

/** Handling of an update or delete that matches no row on the target. */
public enum MissingRowPolicy implements ConfigChoice {
  /** Fail closed (default): the target diverged from the source. */
  FAIL,
  /** Skip the change and count it in {@link ApplyMetrics#missingRowsIgnored()}. */
  IGNORE;

  @Override
  public String configName() {
    return ConfigChoices.lowerCase(this);
  }
}
