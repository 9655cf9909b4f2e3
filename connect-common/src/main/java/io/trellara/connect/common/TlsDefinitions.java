package io.trellara.connect.common;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The TLS settings of a PostgreSQL connection, defined once for both connectors: {@code
 * <prefix>sslmode}, {@code sslrootcert}, {@code sslcert}, {@code sslkey} and {@code sslpassword},
 * named and meant as libpq's.
 */
public final class TlsDefinitions {
  public static final String SSLMODE = "sslmode";
  public static final String SSLROOTCERT = "sslrootcert";
  public static final String SSLCERT = "sslcert";
  public static final String SSLKEY = "sslkey";
  public static final String SSLPASSWORD = "sslpassword";

  private TlsDefinitions() {}

  /**
   * Defines the five settings under {@code prefix} in {@code group}, after the group's {@code
   * order}th; returns the order of the last.
   */
  public static int define(ConfigDef d, String prefix, String group, int order) {
    int o = order;
    d.define(
        prefix + SSLMODE,
        Type.STRING,
        SslMode.PREFER.configName(),
        ConfigChoices.validator(SslMode.class),
        Importance.MEDIUM,
        "libpq-style TLS mode: " + ConfigChoices.listed(SslMode.class) + ".",
        group,
        ++o,
        Width.SHORT,
        "TLS mode",
        ConfigChoices.recommender(SslMode.class));
    d.define(
        prefix + SSLROOTCERT,
        Type.STRING,
        "",
        Importance.LOW,
        "File of the CA certificate(s) that verify the server (verify-ca, verify-full).",
        group,
        ++o,
        Width.LONG,
        "TLS root certificate");
    d.define(
        prefix + SSLCERT,
        Type.STRING,
        "",
        Importance.LOW,
        "Client certificate file for certificate authentication.",
        group,
        ++o,
        Width.LONG,
        "TLS client certificate");
    d.define(
        prefix + SSLKEY,
        Type.STRING,
        "",
        Importance.LOW,
        "Client private key file (PKCS-8 DER or PEM).",
        group,
        ++o,
        Width.LONG,
        "TLS client key");
    d.define(
        prefix + SSLPASSWORD,
        Type.PASSWORD,
        "",
        Importance.LOW,
        "Password of the client key.",
        group,
        ++o,
        Width.MEDIUM,
        "TLS key password");
    return o;
  }
}
