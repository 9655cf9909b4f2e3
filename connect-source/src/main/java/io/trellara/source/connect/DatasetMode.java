package io.trellara.source.connect;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.protocol.BoundaryVocabulary;

/**
 * The boundary mode of a flow ({@code dataset.mode}), spelled as the wire vocabulary spells it
 * (strict chunked order is a sub-option of strict, {@code dataset.strict_chunking.*}).
 */
public enum DatasetMode implements ConfigChoice {
  STRICT(BoundaryVocabulary.STRICT),
  PARTITIONED(BoundaryVocabulary.PARTITIONED);

  private final String configName;

  DatasetMode(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
