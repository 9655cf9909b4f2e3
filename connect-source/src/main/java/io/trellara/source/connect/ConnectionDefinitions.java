package io.trellara.source.connect;

import static io.trellara.source.connect.TrellaraSourceConfig.*;

import io.trellara.connect.common.TlsDefinitions;
import io.trellara.source.pg.PgEndpoint;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings of the Connection and Identity groups: where the source database is, how to log in,
 * and the identities on the wire.
 */
final class ConnectionDefinitions {
  private ConnectionDefinitions() {}

  static void define(ConfigDef d) {
    int o;
    o = 0;
    d.define(
        HOSTNAME,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        hostnameValidator(),
        Importance.HIGH,
        "Host name or address of the source PostgreSQL server; or a comma-separated list of servers"
            + " (host, host:port, [ipv6]:port; an entry without a port uses "
            + PORT
            + "), tried in order, e.g. the primary and its standbys. With "
            + SLOT_FAILOVER
            + "=true only the primary among them is used, so the task follows a promotion.",
        GROUP_CONNECTION,
        ++o,
        Width.MEDIUM,
        "Host");
    d.define(
        PORT,
        Type.INT,
        5432,
        ConfigDef.Range.between(1, 65535),
        Importance.HIGH,
        "Port of the source PostgreSQL server.",
        GROUP_CONNECTION,
        ++o,
        Width.SHORT,
        "Port");
    d.define(
        DBNAME,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        new ConfigDef.NonEmptyString(),
        Importance.HIGH,
        "Database to capture. One connector reads one database through one replication slot.",
        GROUP_CONNECTION,
        ++o,
        Width.MEDIUM,
        "Database");
    d.define(
        USER,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        new ConfigDef.NonEmptyString(),
        Importance.HIGH,
        "User to connect as. Needs the REPLICATION attribute (or superuser) and SELECT on the captured"
            + " tables; creating the publication and the DDL trigger needs ownership or superuser.",
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
    TlsDefinitions.define(d, DATABASE_PREFIX, GROUP_CONNECTION, o);

    o = 0;
    d.define(
        SOURCE_ID,
        Type.STRING,
        "",
        Importance.HIGH,
        "Stable identity of this source (source_id on the wire). Part of every transaction identity the"
            + " sink deduplicates by: never change it for a running flow. Empty (default): the"
            + " connector's name, which Kafka Connect keeps for the connector's whole life; set it"
            + " when the connector may be recreated under another name for the same flow.",
        GROUP_IDENTITY,
        ++o,
        Width.MEDIUM,
        "Source id");
    d.define(
        DATABASE_ID,
        Type.STRING,
        "",
        Importance.HIGH,
        "Stable identity of the database (database_id on the wire; shown in transaction"
            + " boundary keys). Empty (default): "
            + DBNAME
            + ".",
        GROUP_IDENTITY,
        ++o,
        Width.MEDIUM,
        "Database id");
    d.define(
        DATASET_ID,
        Type.STRING,
        "",
        Importance.HIGH,
        "Identity of the flow (dataset_id on the wire; the default topic names are"
            + " trellara.<dataset.id>.strict and .partitioned). Empty (default): "
            + DBNAME
            + ".",
        GROUP_IDENTITY,
        ++o,
        Width.MEDIUM,
        "Dataset id");
  }

  /**
   * Host names or addresses with optional ports only ({@link PgEndpoint#hosts}): the JDBC URL is
   * the servers and the database, and anything that could start a path or a parameter ({@code /},
   * {@code ?}, {@code &}, {@code #}, {@code @}, white space inside an entry) is refused.
   */
  static ConfigDef.Validator hostnameValidator() {
    return ConfigDef.LambdaValidator.with(
        (name, value) -> {
          String h = value == null ? "" : value.toString().trim();
          if (h.isEmpty()) {
            throw new ConfigException(name, value, "String must be non-empty");
          }
          try {
            PgEndpoint.hosts(h, 5432);
          } catch (IllegalArgumentException e) {
            throw new ConfigException(
                name,
                value,
                e.getMessage()
                    + ": no path, parameters or user. Put the default port in "
                    + PORT
                    + " and TLS settings in database.ssl*.");
          }
        },
        () -> "host name or IP address, or a comma-separated list of host[:port]");
  }
}
