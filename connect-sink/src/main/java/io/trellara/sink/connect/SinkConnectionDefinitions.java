package io.trellara.sink.connect;

import static io.trellara.sink.connect.TrellaraSinkConfig.CONNECTION_PREFIX;
import static io.trellara.sink.connect.TrellaraSinkConfig.GROUP_CONNECTION;
import static io.trellara.sink.connect.TrellaraSinkConfig.PASSWORD;
import static io.trellara.sink.connect.TrellaraSinkConfig.URL;
import static io.trellara.sink.connect.TrellaraSinkConfig.USER;

import io.trellara.connect.common.TlsDefinitions;
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
    TlsDefinitions.define(d, CONNECTION_PREFIX, GROUP_CONNECTION, o);
  }
}
