package io.trellara.source.snapshot;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;
import java.util.List;

/** When the source reads the captured tables whole before it streams ({@code snapshot.mode}). */
public enum SnapshotMode implements ConfigChoice {
  /**
   * Snapshot when the connector has no offsets (or its last snapshot did not finish), then stream.
   */
  INITIAL("initial"),
  /**
   * Never snapshot: stream changes from the slot's position only (a target loaded by other means).
   */
  NEVER("never"),
  /** Snapshot when there are no offsets, then stop: no changes are streamed and no slot is kept. */
  INITIAL_ONLY("initial_only"),
  /**
   * As initial, and snapshot again when the slot is gone or lost its WAL (the stream cannot
   * continue).
   */
  WHEN_NEEDED("when_needed");

  private final String configName;

  SnapshotMode(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }

  public static SnapshotMode of(String configName) {
    for (SnapshotMode m : values()) {
      if (m.configName.equalsIgnoreCase(configName.trim())) {
        return m;
      }
    }
    throw new IllegalArgumentException(
        "unknown snapshot.mode '" + configName + "'; one of " + names());
  }

  public static List<String> names() {
    return ConfigChoices.names(SnapshotMode.class);
  }
}
