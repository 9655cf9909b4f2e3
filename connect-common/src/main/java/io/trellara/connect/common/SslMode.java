package io.trellara.connect.common;

/** libpq's TLS modes ({@code database.sslmode}), as pgjdbc's {@code sslmode} takes them. */
public enum SslMode implements ConfigChoice {
  DISABLE("disable"),
  ALLOW("allow"),
  PREFER("prefer"),
  REQUIRE("require"),
  VERIFY_CA("verify-ca"),
  VERIFY_FULL("verify-full");

  private final String configName;

  SslMode(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
