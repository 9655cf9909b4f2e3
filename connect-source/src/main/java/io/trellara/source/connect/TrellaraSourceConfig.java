package io.trellara.source.connect;

import java.util.List;
import java.util.Map;
import io.trellara.connect.common.ConfigRecommenders;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.types.Password;

/** Every setting of the source connector: one name constant, one doc, one default, one definition. */
public final class TrellaraSourceConfig extends AbstractConfig {
    static final String GROUP_CONNECTION = "Connection";
    static final String GROUP_IDENTITY = "Identity";
    static final String GROUP_REPLICATION = "Replication";
    static final String GROUP_BOUNDARIES = "Boundaries";
    static final String GROUP_TOPICS = "Topics";
    static final String GROUP_CAPTURE = "Capture";

    public static final String HOSTNAME = "database.hostname";
    public static final String PORT = "database.port";
    public static final String DBNAME = "database.dbname";
    public static final String USER = "database.user";
    public static final String PASSWORD = "database.password";
    public static final String SSLMODE = "database.sslmode";
    public static final String SSLROOTCERT = "database.sslrootcert";
    public static final String SSLCERT = "database.sslcert";
    public static final String SSLKEY = "database.sslkey";
    public static final String SSLPASSWORD = "database.sslpassword";

    public static final String SOURCE_ID = "source.id";
    public static final String DATABASE_ID = "database.id";
    public static final String DATASET_ID = "dataset.id";

    public static final String SLOT_NAME = "slot.name";
    public static final String PUBLICATION_NAME = "publication.name";
    public static final String PUBLICATION_AUTOCREATE = "publication.autocreate.mode";
    public static final String TABLE_INCLUDE_LIST = "table.include.list";
    public static final String PROTOCOL_VERSION = "source.pgoutput.protocol_version";
    public static final String STREAMING = "source.pgoutput.streaming";
    public static final String STATUS_INTERVAL_MS = "replication.status.interval.ms";

    public static final String DATASET_MODE = "dataset.mode";
    public static final String MAX_ENVELOPE_BYTES = "dataset.strict.max_envelope_bytes";

    public static final String TOPIC_STRICT = "topic.strict";

    public static final String DDL_CAPTURE = "ddl.capture.enabled";
    public static final String DDL_INSTALL = "ddl.capture.install";
    public static final String SPILL_DIRECTORY = "spill.directory";
    public static final String SPILL_THRESHOLD_BYTES = "spill.threshold.bytes";
    public static final String QUEUE_MAX_TRANSACTIONS = "capture.queue.max.transactions";

    public static final String MODE_STRICT = "strict_transaction_order";
    public static final String MODE_PARTITIONED = "partitioned_scale_mode";
    public static final String AUTOCREATE_FILTERED = "filtered";
    public static final String AUTOCREATE_DISABLED = "disabled";
    static final List<String> SSLMODES = List.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full");

    public static final ConfigDef CONFIG_DEF = define();

    private static ConfigDef define() {
        ConfigDef d = new ConfigDef();
        int o = 0;
        d.define(HOSTNAME, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                "Host name or address of the source PostgreSQL server.", GROUP_CONNECTION, ++o, Width.MEDIUM,
                "Host");
        d.define(PORT, Type.INT, 5432, ConfigDef.Range.between(1, 65535), Importance.HIGH,
                "Port of the source PostgreSQL server.", GROUP_CONNECTION, ++o, Width.SHORT, "Port");
        d.define(DBNAME, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                "Database to capture. One connector reads one database through one replication slot.",
                GROUP_CONNECTION, ++o, Width.MEDIUM, "Database");
        d.define(USER, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                "User to connect as. Needs the REPLICATION attribute (or superuser) and SELECT on the captured"
                        + " tables; creating the publication and the DDL trigger needs ownership or superuser.",
                GROUP_CONNECTION, ++o, Width.MEDIUM, "User");
        d.define(PASSWORD, Type.PASSWORD, "", Importance.HIGH, "Password of the user.", GROUP_CONNECTION, ++o,
                Width.MEDIUM, "Password");
        d.define(SSLMODE, Type.STRING, "prefer", ConfigDef.ValidString.in(SSLMODES.toArray(new String[0])),
                Importance.MEDIUM, "libpq-style TLS mode: disable, allow, prefer, require, verify-ca, verify-full.",
                GROUP_CONNECTION, ++o, Width.SHORT, "TLS mode", recommender(SSLMODES));
        d.define(SSLROOTCERT, Type.STRING, "", Importance.LOW, "File of the CA certificate(s) that verify the"
                + " server (verify-ca, verify-full).", GROUP_CONNECTION, ++o, Width.LONG, "TLS root certificate");
        d.define(SSLCERT, Type.STRING, "", Importance.LOW, "Client certificate file for certificate"
                + " authentication.", GROUP_CONNECTION, ++o, Width.LONG, "TLS client certificate");
        d.define(SSLKEY, Type.STRING, "", Importance.LOW, "Client private key file (PKCS-8 DER or PEM).",
                GROUP_CONNECTION, ++o, Width.LONG, "TLS client key");
        d.define(SSLPASSWORD, Type.PASSWORD, "", Importance.LOW, "Password of the client key.", GROUP_CONNECTION,
                ++o, Width.MEDIUM, "TLS key password");

        o = 0;
        d.define(SOURCE_ID, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                "Stable identity of this source (source_id on the wire). Part of every transaction identity the"
                        + " sink deduplicates by: never change it for a running flow.",
                GROUP_IDENTITY, ++o, Width.MEDIUM, "Source id");
        d.define(DATABASE_ID, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(),
                Importance.HIGH, "Stable identity of the database (database_id on the wire; shown in transaction"
                        + " boundary keys).", GROUP_IDENTITY, ++o, Width.MEDIUM, "Database id");
        d.define(DATASET_ID, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                "Identity of the flow (dataset_id on the wire).", GROUP_IDENTITY, ++o, Width.MEDIUM, "Dataset id");

        o = 0;
        d.define(SLOT_NAME, Type.STRING, "trellara", new ConfigDef.NonEmptyString(), Importance.HIGH,
                "Logical replication slot (pgoutput). Created if absent. One slot, one task.", GROUP_REPLICATION,
                ++o, Width.MEDIUM, "Slot");
        d.define(PUBLICATION_NAME, Type.STRING, "trellara_publication", new ConfigDef.NonEmptyString(),
                Importance.HIGH, "Publication whose tables are captured.", GROUP_REPLICATION, ++o, Width.MEDIUM,
                "Publication");
        d.define(PUBLICATION_AUTOCREATE, Type.STRING, AUTOCREATE_FILTERED,
                ConfigDef.ValidString.in(AUTOCREATE_FILTERED, AUTOCREATE_DISABLED), Importance.MEDIUM,
                "'filtered': create the publication for the tables of " + TABLE_INCLUDE_LIST + " when it does not"
                        + " exist. 'disabled': the publication must exist (created by an administrator).",
                GROUP_REPLICATION, ++o, Width.SHORT, "Publication auto-creation",
                recommender(List.of(AUTOCREATE_FILTERED, AUTOCREATE_DISABLED)));
        d.define(TABLE_INCLUDE_LIST, Type.LIST, "", Importance.HIGH,
                "Tables (schema.table, comma-separated) the auto-created publication covers.", GROUP_REPLICATION,
                ++o, Width.LONG, "Tables");
        d.define(PROTOCOL_VERSION, Type.INT, 2, ConfigDef.Range.between(1, 2), Importance.MEDIUM,
                "pgoutput protocol version: 2 (default; streams large in-progress transactions) or 1 (no"
                        + " streaming: PostgreSQL spills large transactions itself until commit).",
                GROUP_REPLICATION, ++o, Width.SHORT, "pgoutput protocol", recommender(List.of(2, 1)));
        d.define(STREAMING, Type.BOOLEAN, true, Importance.MEDIUM,
                "Receive large in-progress transactions as they are decoded (protocol 2 only). Left unset with"
                        + " protocol 1 it is off; set explicitly to true with protocol 1 it is an error.", GROUP_REPLICATION, ++o, Width.SHORT, "Streaming");
        d.define(STATUS_INTERVAL_MS, Type.LONG, 1000L, ConfigDef.Range.atLeast(100), Importance.LOW,
                "How often the task reports its flushed LSN to PostgreSQL, and so how often an idle slot advances.",
                GROUP_REPLICATION, ++o, Width.SHORT, "Status interval (ms)");

        o = 0;
        d.define(DATASET_MODE, Type.STRING, MODE_STRICT, ConfigDef.ValidString.in(MODE_STRICT), Importance.HIGH,
                "Boundary mode of the flow. strict_transaction_order: one envelope per committed transaction on"
                        + " the strict topic, in commit order. (partitioned_scale_mode is not available in this"
                        + " release.)", GROUP_BOUNDARIES, ++o, Width.MEDIUM, "Dataset mode",
                recommender(List.of(MODE_STRICT)));
        d.define(MAX_ENVELOPE_BYTES, Type.INT, 64 * 1024 * 1024, ConfigDef.Range.atLeast(1024), Importance.MEDIUM,
                "Largest envelope the task publishes. A larger transaction stops the task (nothing is dropped):"
                        + " raise this together with the topic's max.message.bytes and the producer's"
                        + " max.request.size.", GROUP_BOUNDARIES, ++o, Width.SHORT, "Max envelope bytes");

        o = 0;
        d.define(TOPIC_STRICT, Type.STRING, "", Importance.HIGH,
                "Strict topic (one partition, commit order). Default: trellara.<dataset.id>.strict. Create it"
                        + " with one partition, or let Connect create it (topic.creation.default.partitions=1).",
                GROUP_TOPICS, ++o, Width.LONG, "Strict topic");

        o = 0;
        d.define(DDL_CAPTURE, Type.BOOLEAN, true, Importance.MEDIUM,
                "Publish DDL statements as DDL events inside their transaction (needs the event trigger).",
                GROUP_CAPTURE, ++o, Width.SHORT, "Capture DDL");
        d.define(DDL_INSTALL, Type.BOOLEAN, true, Importance.MEDIUM,
                "Install the DDL event trigger (needs superuser) when absent. Set false and run"
                        + " trellara-ddl-capture.sql as an administrator instead.",
                GROUP_CAPTURE, ++o, Width.SHORT, "Install DDL trigger");
        d.define(SPILL_DIRECTORY, Type.STRING, "", Importance.MEDIUM,
                "Directory for spill files of large in-flight transactions. Empty: the worker JVM's"
                        + " java.io.tmpdir.", GROUP_CAPTURE, ++o, Width.LONG,
                "Spill directory");
        d.define(SPILL_THRESHOLD_BYTES, Type.LONG, 16L * 1024 * 1024, ConfigDef.Range.atLeast(0), Importance.LOW,
                "In-flight change bytes held in memory before a transaction spills to disk.", GROUP_CAPTURE, ++o,
                Width.SHORT, "Spill threshold (bytes)");
        d.define(QUEUE_MAX_TRANSACTIONS, Type.INT, 64, ConfigDef.Range.atLeast(1), Importance.LOW,
                "Committed transactions buffered between capture and publishing (back-pressure).", GROUP_CAPTURE,
                ++o, Width.SHORT, "Queue size");
        return d;
    }

    static ConfigDef.Recommender recommender(List<?> values) {
        return ConfigRecommenders.fixed(values);
    }

    public TrellaraSourceConfig(Map<?, ?> props) {
        super(CONFIG_DEF, props);
    }

    public String strictTopic() {
        String t = getString(TOPIC_STRICT);
        return t.isBlank() ? "trellara." + getString(DATASET_ID) + ".strict" : t;
    }

    /** Streaming is on by default with protocol 2 and off with protocol 1 (which cannot stream). */
    public boolean streaming() {
        return getInt(PROTOCOL_VERSION) >= 2 && getBoolean(STREAMING);
    }

    public java.nio.file.Path spillDirectory() {
        String dir = getString(SPILL_DIRECTORY);
        return java.nio.file.Path.of(dir.isBlank() ? System.getProperty("java.io.tmpdir") : dir);
    }

    public String password() {
        Password p = getPassword(PASSWORD);
        return p == null ? "" : p.value();
    }

    /** Cross-field rules, written once: reported by validate() and enforced at start. Empty when fine. */
    public List<String[]> crossFieldErrors() {
        List<String[]> errors = new java.util.ArrayList<>();
        if (getInt(PROTOCOL_VERSION) == 1 && "true".equalsIgnoreCase(String.valueOf(originals().get(STREAMING)).trim())) {
            errors.add(new String[] {STREAMING, "pgoutput protocol 1 cannot stream in-progress transactions. Set "
                    + STREAMING + "=false, or use " + PROTOCOL_VERSION + "=2."});
        }
        if (AUTOCREATE_FILTERED.equals(getString(PUBLICATION_AUTOCREATE)) && getList(TABLE_INCLUDE_LIST).isEmpty()) {
            errors.add(new String[] {TABLE_INCLUDE_LIST, "List the tables to capture (schema.table, comma-separated)"
                    + " so the publication can be created, or set " + PUBLICATION_AUTOCREATE + "=disabled and"
                    + " create publication " + getString(PUBLICATION_NAME) + " yourself."});
        }
        return errors;
    }
}
