package io.trellara.sink.connect;

import static io.trellara.sink.connect.TrellaraSinkConfig.GROUP_CONNECTION;
import static io.trellara.sink.connect.TrellaraSinkConfig.PASSWORD;
import static io.trellara.sink.connect.TrellaraSinkConfig.SSLCERT;
import static io.trellara.sink.connect.TrellaraSinkConfig.SSLKEY;
import static io.trellara.sink.connect.TrellaraSinkConfig.SSLMODE;
import static io.trellara.sink.connect.TrellaraSinkConfig.SSLPASSWORD;
import static io.trellara.sink.connect.TrellaraSinkConfig.SSLROOTCERT;
import static io.trellara.sink.connect.TrellaraSinkConfig.URL;
import static io.trellara.sink.connect.TrellaraSinkConfig.USER;

import io.trellara.connect.common.ConfigChoices;
import io.trellara.connect.common.SslMode;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** The sink's Connection settings: the target and how to reach it. */
final class SinkConnectionDefinitions {
  private SinkConnectionDefinitions() {}

  static void define(ConfigDef d) {
    int o = 0;
    d.define(
        URL,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        new ConfigDef.NonEmptyString(),
        Importance.HIGH,
        "JDBC URL of the target PostgreSQL, e.g. jdbc:postgresql://target:5432/app.",
        GROUP_CONNECTION,
        ++o,
        Width.LONG,
        "JDBC URL");
    d.define(
        USER,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        new ConfigDef.NonEmptyString(),
        Importance.HIGH,
        "User to connect as. Needs INSERT, UPDATE, DELETE, TRUNCATE on the mapped tables and CREATE on the"
            + " database (for the trellara_sink schema, created once).",
        GROUP_CONNECTION,
        ++o,
        Width.MEDIUM,
        "User");
    d.define(
        PASSWORD,
        Type.PASSWORD,
        "",
        Importance.HIGH,
        "Password of the user.",
        GROUP_CONNECTION,
        ++o,
        Width.MEDIUM,
        "Password");
    d.define(
        SSLMODE,
        Type.STRING,
        "prefer",
        ConfigChoices.validator(SslMode.class),
        Importance.MEDIUM,
        "libpq-style TLS mode: disable, allow, prefer, require, verify-ca, verify-full.",
        GROUP_CONNECTION,
        ++o,
        Width.SHORT,
        "TLS mode",
        ConfigChoices.recommender(SslMode.class));
    d.define(
        SSLROOTCERT,
        Type.STRING,
        "",
        Importance.LOW,
        "CA certificate file that verifies the server.",
        GROUP_CONNECTION,
        ++o,
        Width.LONG,
        "TLS root certificate");
    d.define(
        SSLCERT,
        Type.STRING,
        "",
        Importance.LOW,
        "Client certificate file.",
        GROUP_CONNECTION,
        ++o,
        Width.LONG,
        "TLS client certificate");
    d.define(
        SSLKEY,
        Type.STRING,
        "",
        Importance.LOW,
        "Client private key file.",
        GROUP_CONNECTION,
        ++o,
        Width.LONG,
        "TLS client key");
    d.define(
        SSLPASSWORD,
        Type.PASSWORD,
        "",
        Importance.LOW,
        "Password of the client key.",
        GROUP_CONNECTION,
        ++o,
        Width.MEDIUM,
        "TLS key password");
  }
}
