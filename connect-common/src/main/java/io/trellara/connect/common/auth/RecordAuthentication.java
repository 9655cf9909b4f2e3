package io.trellara.connect.common.auth;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;

/**
 * {@code record.authentication}: whether records carry and must carry the {@code trellara-auth}
 * header. The source signs every record unless {@link #OFF}; the sink refuses an unsigned record
 * when {@link #REQUIRED}, accepts one when {@link #OPTIONAL} (a header that is present is checked
 * in both), and checks nothing when {@link #OFF}.
 */
public enum RecordAuthentication implements ConfigChoice {
  REQUIRED,
  OPTIONAL,
  OFF;

  @Override
  public String configName() {
    return ConfigChoices.lowerCase(this);
  }
}
