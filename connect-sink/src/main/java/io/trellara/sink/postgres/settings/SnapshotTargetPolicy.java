package io.trellara.sink.postgres.settings;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;

/**
 * What the sink does when a source's initial snapshot is about to load a target table that already
 * holds rows ({@code snapshot.target.nonempty}), when the source flow has never applied a
 * transaction to this target. Once it has, a new snapshot of it (its slot or offsets were lost)
 * always replaces the table, emptied in the same target transaction that loads it again: the later
 * snapshot supersedes what came before.
 */
public enum SnapshotTargetPolicy implements ConfigChoice {
  /** Refuse: nothing of the snapshot is applied, and the error names the table (default). */
  FAIL,
  /**
   * Empty the table inside the snapshot's target transaction, so readers see the old rows or the
   * new ones.
   */
  TRUNCATE,
  /** Keep the rows and upsert the snapshot's rows over them by key. */
  UPSERT;

  @Override
  public String configName() {
    return ConfigChoices.lowerCase(this);
  }
}
