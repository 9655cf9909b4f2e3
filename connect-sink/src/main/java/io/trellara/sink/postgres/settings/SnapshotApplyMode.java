package io.trellara.sink.postgres.settings;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;

/** How a source's initial snapshot becomes visible on the target ({@code snapshot.apply}). */
public enum SnapshotApplyMode implements ConfigChoice {
  /**
   * The whole snapshot in one target transaction: a reader sees the tables empty or all of them
   * loaded, mutually consistent (default).
   */
  ATOMIC,
  /**
   * Each table in a target transaction of its own, committed when the snapshot's next table begins
   * (the last at the commit marker): a reader sees each table empty or whole, and a sink restarted
   * mid-snapshot resumes after the last table it committed. For databases too large for one target
   * transaction. Tables loaded earlier are visible before later ones, so foreign keys between them
   * hold only once the snapshot completes.
   */
  PER_TABLE;

  @Override
  public String configName() {
    return ConfigChoices.lowerCase(this);
  }
}
