package io.trellara.source.routing;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;
import java.util.List;

/**
 * What the partition planner does with a row whose ownership value is NULL or absent (spec:
 * partition policies). Rowless events (TRUNCATE, DDL) have no key to lack: lane 0 under every
 * policy.
 */
public enum NullKeyPolicy implements ConfigChoice {
  /** Fail closed, naming the event. */
  QUARANTINE("quarantine"),
  /** Partition 0. */
  ROUTE_TO_SINGLETON_PARTITION("route_to_singleton_partition"),
  /** The last partition, so local consumers can isolate them. */
  ROUTE_TO_DEAD_LETTER_PARTITION("route_to_dead_letter_partition"),
  /**
   * xxh3_64 of the row's primary key's row identity V2 SCAN_KEY bytes (the key read from the
   * catalog, in column order), mod N.
   */
  DERIVE_FROM_PRIMARY_KEY("derive_from_primary_key");

  private final String configName;

  NullKeyPolicy(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }

  public static List<String> configNames() {
    return ConfigChoices.names(NullKeyPolicy.class);
  }

  public static NullKeyPolicy fromConfigName(String name) {
    for (NullKeyPolicy p : values()) {
      if (p.configName.equals(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "unknown null_key_policy '" + name + "'; one of " + configNames());
  }
}
