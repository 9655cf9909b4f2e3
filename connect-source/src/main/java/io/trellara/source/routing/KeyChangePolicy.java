package io.trellara.source.routing;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;
import java.util.List;

/** What the partition planner does when an update moves a row's ownership to another partition. */
public enum KeyChangePolicy implements ConfigChoice {
  /** Fail closed, naming the event. */
  QUARANTINE("quarantine", true),
  /**
   * A delete in the old lane and an insert in the new one, under the transaction's one manifest.
   */
  EMIT_MOVE("emit_move", true),
  /** Declared for contract documentation; no planner for it, so validation fails closed. */
  DUAL_WRITE_WINDOW("dual_write_window", false),
  /** Declared for contract documentation; no planner for it, so validation fails closed. */
  FORBID("forbid", false);

  private final String configName;
  private final boolean planned;

  KeyChangePolicy(String configName, boolean planned) {
    this.configName = configName;
    this.planned = planned;
  }

  @Override
  public String configName() {
    return configName;
  }

  /**
   * False for the declared-only names: the planner fails closed unless moves are handled by
   * emit_move.
   */
  public boolean planned() {
    return planned;
  }

  public static List<String> configNames() {
    return ConfigChoices.names(KeyChangePolicy.class);
  }

  public static KeyChangePolicy fromConfigName(String name) {
    for (KeyChangePolicy p : values()) {
      if (p.configName.equals(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "unknown key_change_policy '" + name + "'; one of " + configNames());
  }
}
