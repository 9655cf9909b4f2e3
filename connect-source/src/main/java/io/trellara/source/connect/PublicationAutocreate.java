package io.trellara.source.connect;

import io.trellara.connect.common.ConfigChoice;

/** Whether the source creates its publication ({@code publication.autocreate.mode}). */
public enum PublicationAutocreate implements ConfigChoice {
  /** Create it for the tables of table.include.list when it does not exist. */
  FILTERED("filtered"),
  /** It must exist (created by an administrator). */
  DISABLED("disabled");

  private final String configName;

  PublicationAutocreate(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
