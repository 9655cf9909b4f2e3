package io.trellara.sink.postgres.settings;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;

/** {@code apply.synchronous_commit}: whether a target commit waits for its WAL to be flushed. */
public enum SynchronousCommit implements ConfigChoice {
  /** Every commit waits for the flush (and synchronous standbys). */
  ON,
  /** Commits return before the flush, as PostgreSQL's own apply workers do; see the docs. */
  OFF;

  @Override
  public String configName() {
    return ConfigChoices.lowerCase(this);
  }
}
