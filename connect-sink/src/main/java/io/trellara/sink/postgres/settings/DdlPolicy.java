package io.trellara.sink.postgres.settings;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;
import io.trellara.sink.port.ApplyException;

/** What the applier does with a DDL event at its place in the transaction's total order. */
public enum DdlPolicy implements ConfigChoice {
  /**
   * The default: run no statement text. Schema changes of captured tables reach the target through
   * structured schema evolution (see {@link SchemaEvolution}); a DDL event is only looked at to
   * refuse what evolution must not misread (a rename of an allowlisted table or column).
   */
  STRUCTURED,
  /**
   * Execute the captured statement on the target under the captured search_path, after {@code
   * ReplayGate} accepted it (one transactional statement on allowlisted objects). This trusts every
   * writer of the topic to choose SQL for the target; an operator must opt in to it explicitly.
   */
  REPLAY,
  /** Ignore the DDL event (the target's schema is managed elsewhere); counted in the metrics. */
  SKIP,
  /** Stop: the transaction is not applied and an {@link ApplyException} names the DDL event. */
  FAIL;

  @Override
  public String configName() {
    return ConfigChoices.lowerCase(this);
  }
}
