package io.trellara.source.connect;

import io.trellara.connect.common.ConfigRecommenders;
import io.trellara.source.pg.PgNames;
import io.trellara.source.replication.BoundarySettings;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import io.trellara.source.routing.OwnershipKeys;
import io.trellara.source.snapshot.SnapshotMode;
import io.trellara.source.snapshot.SnapshotReads;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * Every setting of the source connector: one name constant, one doc, one default, one definition.
 */
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
  public static final String RECONNECT_MAX_DURATION_MS = "replication.reconnect.max.duration.ms";
  public static final String OFFSETS_ACCEPT_NEW_HISTORY = "offsets.accept.new.history";
  public static final String HEARTBEAT_INTERVAL_MS = "heartbeat.interval.ms";
  public static final String SLOT_DROP_ON_STOP = "slot.drop.on.stop";
  public static final String SNAPSHOT_MODE = "snapshot.mode";
  public static final String SNAPSHOT_MAX_THREADS = "snapshot.max.threads";
  public static final String SNAPSHOT_KEY_RANGE_ROWS = "snapshot.key.range.rows";

  public static final String DATASET_MODE = "dataset.mode";
  public static final String MAX_ENVELOPE_BYTES = "dataset.strict.max_envelope_bytes";
  public static final String STRICT_CHUNKING = "dataset.strict_chunking.max_changes_per_chunk";
  public static final String CHUNK_MAX_BYTES = "dataset.chunk.max_bytes";
  public static final String PARTITION_COUNT = "dataset.partitioned.partition_count";
  public static final String PARTITIONED_MAX_CHANGES = "dataset.partitioned.max_changes_per_chunk";
  public static final String OWNERSHIP_KEYS = "dataset.partitioned.ownership_keys";
  public static final String NULL_KEY_POLICY = "dataset.partitioned.null_key_policy";
  public static final String KEY_CHANGE_POLICY = "dataset.partitioned.key_change_policy";

  public static final String TOPIC_STRICT = "topic.strict";
  public static final String TOPIC_PARTITIONED = "topic.partitioned";
  public static final String TOPIC_REPLICATION_FACTOR = "topic.replication.factor";
  public static final String TOPIC_CHECK_TIMEOUT_MS = "topic.check.timeout.ms";
  public static final String KAFKA_BOOTSTRAP_SERVERS = "kafka.bootstrap.servers";

  /**
   * Entries under this prefix go, without it, to the Admin client that verifies/creates the topics.
   */
  public static final String KAFKA_ADMIN_PREFIX = "kafka.admin.";

  /**
   * Kafka Connect's own connector settings the source refuses (see {@link #crossFieldErrors()}).
   */
  public static final String ERRORS_TOLERANCE = "errors.tolerance";

  public static final String TRANSFORMS = "transforms";
  public static final String PRODUCER_MAX_REQUEST_SIZE = "producer.override.max.request.size";
  public static final String PRODUCER_BUFFER_MEMORY = "producer.override.buffer.memory";

  /** Kafka's defaults, which apply when the connector sets no producer override. */
  static final long KAFKA_DEFAULT_MAX_REQUEST_SIZE = 1_048_576L;

  static final long KAFKA_DEFAULT_BUFFER_MEMORY = 33_554_432L;

  /**
   * Bytes a Kafka record batch needs beyond the value: batch and record headers, the boundary key
   * and the Trellara headers (a few hundred bytes in practice). Small enough that the default chunk
   * size plus this fits Kafka's default 1 MiB limits.
   */
  public static final long RECORD_OVERHEAD_BYTES = 16 * 1024;

  public static final String DDL_CAPTURE = "ddl.capture.enabled";
  public static final String DDL_INSTALL = "ddl.capture.install";
  public static final String SPILL_DIRECTORY = "spill.directory";
  public static final String SPILL_THRESHOLD_BYTES = "spill.threshold.bytes";
  public static final String QUEUE_MAX_RECORDS = "capture.queue.max.records";
  public static final String QUEUE_MAX_BYTES = "capture.queue.max.bytes";
  public static final String STALL_TIMEOUT_MS = "capture.stall.timeout.ms";

  public static final String MODE_STRICT = "strict_transaction_order";
  public static final String MODE_PARTITIONED = "partitioned_scale_mode";
  public static final String AUTOCREATE_FILTERED = "filtered";
  public static final String AUTOCREATE_DISABLED = "disabled";
  static final List<String> SSLMODES =
      List.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full");

  public static final ConfigDef CONFIG_DEF = define();

  public SnapshotMode snapshotMode() {
    return SnapshotMode.of(getString(SNAPSHOT_MODE));
  }

  private static ConfigDef define() {
    ConfigDef d = new ConfigDef();
    int o = 0;
    d.define(
        HOSTNAME,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        hostnameValidator(),
        Importance.HIGH,
        "Host name or address of the source PostgreSQL server.",
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
    d.define(
        SSLMODE,
        Type.STRING,
        "prefer",
        ConfigDef.ValidString.in(SSLMODES.toArray(new String[0])),
        Importance.MEDIUM,
        "libpq-style TLS mode: disable, allow, prefer, require, verify-ca, verify-full.",
        GROUP_CONNECTION,
        ++o,
        Width.SHORT,
        "TLS mode",
        recommender(SSLMODES));
    d.define(
        SSLROOTCERT,
        Type.STRING,
        "",
        Importance.LOW,
        "File of the CA certificate(s) that verify the" + " server (verify-ca, verify-full).",
        GROUP_CONNECTION,
        ++o,
        Width.LONG,
        "TLS root certificate");
    d.define(
        SSLCERT,
        Type.STRING,
        "",
        Importance.LOW,
        "Client certificate file for certificate" + " authentication.",
        GROUP_CONNECTION,
        ++o,
        Width.LONG,
        "TLS client certificate");
    d.define(
        SSLKEY,
        Type.STRING,
        "",
        Importance.LOW,
        "Client private key file (PKCS-8 DER or PEM).",
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

    o = 0;
    d.define(
        SOURCE_ID,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        new ConfigDef.NonEmptyString(),
        Importance.HIGH,
        "Stable identity of this source (source_id on the wire). Part of every transaction identity the"
            + " sink deduplicates by: never change it for a running flow.",
        GROUP_IDENTITY,
        ++o,
        Width.MEDIUM,
        "Source id");
    d.define(
        DATABASE_ID,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        new ConfigDef.NonEmptyString(),
        Importance.HIGH,
        "Stable identity of the database (database_id on the wire; shown in transaction"
            + " boundary keys).",
        GROUP_IDENTITY,
        ++o,
        Width.MEDIUM,
        "Database id");
    d.define(
        DATASET_ID,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        new ConfigDef.NonEmptyString(),
        Importance.HIGH,
        "Identity of the flow (dataset_id on the wire).",
        GROUP_IDENTITY,
        ++o,
        Width.MEDIUM,
        "Dataset id");

    o = 0;
    d.define(
        SLOT_NAME,
        Type.STRING,
        "trellara",
        nameValidator(
            PgNames::slotNameProblem, "lower-case letters, digits and _, at most 63 bytes"),
        Importance.HIGH,
        "Logical replication slot (pgoutput). Created if absent. One slot, one task. PostgreSQL's rule:"
            + " lower-case letters (a-z), digits and underscore, at most 63 bytes.",
        GROUP_REPLICATION,
        ++o,
        Width.MEDIUM,
        "Slot");
    d.define(
        PUBLICATION_NAME,
        Type.STRING,
        "trellara_publication",
        nameValidator(PgNames::publicationNameProblem, "an identifier of at most 63 bytes, no NUL"),
        Importance.HIGH,
        "Publication whose tables are captured. Any identifier of at most 63 bytes (UTF-8)"
            + " without NUL; used quoted, so case and punctuation are kept.",
        GROUP_REPLICATION,
        ++o,
        Width.MEDIUM,
        "Publication");
    d.define(
        PUBLICATION_AUTOCREATE,
        Type.STRING,
        AUTOCREATE_FILTERED,
        ConfigDef.ValidString.in(AUTOCREATE_FILTERED, AUTOCREATE_DISABLED),
        Importance.MEDIUM,
        "'filtered': create the publication for the tables of "
            + TABLE_INCLUDE_LIST
            + " when it does not"
            + " exist. 'disabled': the publication must exist (created by an administrator).",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Publication auto-creation",
        recommender(List.of(AUTOCREATE_FILTERED, AUTOCREATE_DISABLED)));
    d.define(
        TABLE_INCLUDE_LIST,
        Type.LIST,
        "",
        Importance.HIGH,
        "Tables (schema.table, comma-separated) the auto-created publication covers.",
        GROUP_REPLICATION,
        ++o,
        Width.LONG,
        "Tables");
    d.define(
        PROTOCOL_VERSION,
        Type.INT,
        2,
        ConfigDef.Range.between(1, 2),
        Importance.MEDIUM,
        "pgoutput protocol version: 2 (default; streams large in-progress transactions) or 1 (no"
            + " streaming: PostgreSQL spills large transactions itself until commit).",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "pgoutput protocol",
        recommender(List.of(2, 1)));
    d.define(
        STREAMING,
        Type.BOOLEAN,
        true,
        Importance.MEDIUM,
        "Receive large in-progress transactions as they are decoded (protocol 2 only). Left unset with"
            + " protocol 1 it is off; set explicitly to true with protocol 1 it is an error.",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Streaming");
    d.define(
        STATUS_INTERVAL_MS,
        Type.LONG,
        1000L,
        ConfigDef.Range.atLeast(100),
        Importance.LOW,
        "How often the task reports its flushed LSN to PostgreSQL, and so how often an idle slot advances.",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Status interval (ms)");
    d.define(
        RECONNECT_MAX_DURATION_MS,
        Type.LONG,
        600_000L,
        ConfigDef.Range.atLeast(0),
        Importance.LOW,
        "How long the task keeps reconnecting after it lost the replication connection (server restart"
            + " or failover, network drop, wal_sender_timeout, walsender terminated), retrying after"
            + " 0.5 s, doubling up to 30 s; then the task fails with the last cause. Transactions"
            + " Kafka has not acknowledged are sent again (duplicates the sink absorbs). 0: fail at"
            + " once.",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Reconnect for at most (ms)");
    d.define(
        OFFSETS_ACCEPT_NEW_HISTORY,
        Type.BOOLEAN,
        false,
        Importance.LOW,
        "Every source offset records the server it was written against (system identifier and timeline,"
            + " from IDENTIFY_SYSTEM). At start, an offset of another system identifier (a restored"
            + " backup, another cluster: its LSNs belong to another WAL history) stops the task, since"
            + " resuming at its LSN would skip or duplicate transactions silently. true: start at the"
            + " replication slot's own position on this server instead (logged as a WARN); remove it"
            + " once the task runs. The alternative is deleting the connector's offsets. A new timeline"
            + " of the same system identifier (a promoted standby) is accepted with a WARN whatever"
            + " this setting; offsets of older versions, without the identity, are accepted.",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Accept a new WAL history");
    d.define(
        HEARTBEAT_INTERVAL_MS,
        Type.LONG,
        0L,
        ConfigDef.Range.atLeast(0),
        Importance.LOW,
        "Every this many milliseconds the task writes a non-transactional logical message (prefix"
            + " trellara.heartbeat, empty) on the source database over an ordinary connection; it"
            + " comes back through the slot, is never published, and lets the task confirm the slot up"
            + " to it whenever nothing it published is still unacknowledged by Kafka. 0 (default, as in"
            + " Debezium): no heartbeat. Without one the slot still advances while only uncaptured"
            + " tables or other databases change, since the task also confirms the positions the"
            + " walsender's keepalives report; a heartbeat adds a position written on purpose, and"
            + " HeartbeatsSent/HeartbeatsReceived (JMX) show the whole path alive. It needs EXECUTE on"
            + " pg_logical_emit_message and a primary (a standby refuses it: a WARN, capture goes on).",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Heartbeat interval (ms)");
    d.define(
        SLOT_DROP_ON_STOP,
        Type.BOOLEAN,
        false,
        Importance.LOW,
        "Drop the replication slot, and the publication when "
            + PUBLICATION_AUTOCREATE
            + "=filtered"
            + " (the connector's own), whenever the task stops, so a deleted connector leaves no slot"
            + " retaining WAL. Kafka Connect has no delete hook: a task stops alike when its connector"
            + " is deleted and on every rebalance, restart, reconfiguration, stop (PUT .../stop) or"
            + " worker shutdown (a pause keeps the task),"
            + " and each of those then loses every transaction committed until the next task creates"
            + " the slot again (logged as a WARN). For throwaway setups (tests, demos) only, as"
            + " Debezium's setting of the same name; in production drop the slot after deleting the"
            + " connector (SELECT pg_drop_replication_slot('<slot>')). Do not share the publication"
            + " with another connector when this is on. The DDL event triggers are never dropped.",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Drop slot on stop");
    d.define(
        SNAPSHOT_MODE,
        Type.STRING,
        SnapshotMode.INITIAL.configName(),
        ConfigDef.ValidString.in(SnapshotMode.names().toArray(new String[0])),
        Importance.HIGH,
        "Whether the task first publishes what the captured tables already hold, consistent with the"
            + " stream: it creates the slot with an exported snapshot, reads every table of the"
            + " publication inside that snapshot and publishes it as one transaction of inserts"
            + " (transaction_id 'snapshot', committed at the slot's consistent point), then streams"
            + " from that point, so no row is missed or duplicated between the two. 'initial'"
            + " (default): snapshot when the connector has no offsets, or its last snapshot did not"
            + " finish (an existing slot is dropped and created again for it), then stream."
            + " 'never': only stream changes from the slot's position (load the target by other"
            + " means). 'initial_only': snapshot in a temporary slot, then stop: nothing is streamed"
            + " and no slot is left. 'when_needed': as 'initial', and also snapshot again when the"
            + " slot is gone or PostgreSQL invalidated it (wal_status lost), where 'initial' would"
            + " warn about the changes it cannot stream.",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Snapshot mode",
        recommender(SnapshotMode.names()));
    d.define(
        SNAPSHOT_MAX_THREADS,
        Type.INT,
        1,
        ConfigDef.Range.between(1, 16),
        Importance.LOW,
        "Connections reading the tables of an initial snapshot at once, all inside the same exported"
            + " snapshot (Debezium's setting of the same name). Above 1, the extra connections read"
            + " tables ahead into files in "
            + SPILL_DIRECTORY
            + " while the task publishes the table"
            + " in hand; each table is still published whole, one after the other, and the snapshot is"
            + " one transaction either way. It helps a database of many tables whose reads are the"
            + " bottleneck; one table is always read by one connection.",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Snapshot threads");
    d.define(
        SNAPSHOT_KEY_RANGE_ROWS,
        Type.LONG,
        SnapshotReads.DEFAULT_KEY_RANGE_ROWS,
        ConfigDef.Range.atLeast(0),
        Importance.LOW,
        "An initial snapshot reads each table that has a primary key (or a replica identity"
            + " index) in key order, in ranges of at most this many rows: each range is one COPY of"
            + " SELECT ... WHERE key > the last key read ORDER BY key LIMIT n, an index scan inside the"
            + " same exported snapshot, so no statement on the source runs longer than one range and the"
            + " target's key index is filled in order. A table without such a key (or whose key index"
            + " orders by a non-default operator class or collation) is read in one COPY in storage"
            + " order. 0 reads every table in one COPY in storage order, as PostgreSQL's own copy_data"
            + " does: the cheapest read for a table whose storage order is far from its key order.",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Snapshot key range rows");

    o = 0;
    d.define(
        DATASET_MODE,
        Type.STRING,
        MODE_STRICT,
        ConfigDef.ValidString.in(MODE_STRICT, MODE_PARTITIONED),
        Importance.HIGH,
        "Boundary mode of the flow. strict_transaction_order: every committed transaction on"
            + " the strict topic in commit order, as one envelope (or as chunks, a manifest and a commit"
            + " marker when "
            + STRICT_CHUNKING
            + " is set). partitioned_scale_mode: changes routed by"
            + " ownership key to the partitioned topic's lanes, one or more chunks per participating"
            + " lane, then the manifest and commit marker on the strict topic in commit order.",
        GROUP_BOUNDARIES,
        ++o,
        Width.MEDIUM,
        "Dataset mode",
        recommender(List.of(MODE_STRICT, MODE_PARTITIONED)));
    d.define(
        MAX_ENVELOPE_BYTES,
        Type.INT,
        64 * 1024 * 1024,
        ConfigDef.Range.atLeast(1024),
        Importance.MEDIUM,
        "Largest envelope the task publishes. A larger transaction stops the task (nothing is dropped):"
            + " raise this together with the topic's max.message.bytes and the producer's"
            + " max.request.size.",
        GROUP_BOUNDARIES,
        ++o,
        Width.SHORT,
        "Max envelope bytes");
    d.define(
        STRICT_CHUNKING,
        Type.INT,
        0,
        ConfigDef.Range.atLeast(0),
        Importance.MEDIUM,
        "Strict mode only. 0: one envelope per transaction. N > 0: every transaction of the flow, even a"
            + " one-change one, is published as chunks of at most N events (operator output calls this"
            + " strict_chunked_transaction_order), then a manifest and a commit marker, so no"
            + " transaction size needs to fit one Kafka message or the worker's heap.",
        GROUP_BOUNDARIES,
        ++o,
        Width.SHORT,
        "Strict chunking: max changes per chunk");
    d.define(
        CHUNK_MAX_BYTES,
        Type.LONG,
        1_000_000L,
        ConfigDef.Range.atLeast(4096),
        Importance.LOW,
        "A chunk is closed when it reaches this many encoded bytes, even below its change limit. The"
            + " default fits Kafka's default max.message.bytes.",
        GROUP_BOUNDARIES,
        ++o,
        Width.SHORT,
        "Max chunk bytes");
    d.define(
        PARTITION_COUNT,
        Type.INT,
        6,
        ConfigDef.Range.between(1, 100_000),
        Importance.HIGH,
        "partitioned_scale_mode: lanes, i.e. partitions of the partitioned topic (which must have exactly"
            + " this many).",
        GROUP_BOUNDARIES,
        ++o,
        Width.SHORT,
        "Partition count");
    d.define(
        PARTITIONED_MAX_CHANGES,
        Type.INT,
        5_000,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "partitioned_scale_mode: a lane's chunk is published once it holds this many events; a lane"
            + " that fills more numbers its chunks with chunk_sequence.",
        GROUP_BOUNDARIES,
        ++o,
        Width.SHORT,
        "Partitioned: max changes per chunk");
    d.define(
        OWNERSHIP_KEYS,
        Type.LIST,
        "",
        Importance.MEDIUM,
        "partitioned_scale_mode: ownership key per table, schema.table:col1|col2 (comma-separated"
            + " entries). The columns must be primary-key columns. A table not listed is owned by its"
            + " whole primary key. Lane = xxh3_64 of the row identity V2 SCAN_KEY bytes, mod the"
            + " partition count.",
        GROUP_BOUNDARIES,
        ++o,
        Width.LONG,
        "Ownership keys");
    d.define(
        NULL_KEY_POLICY,
        Type.STRING,
        "route_to_singleton_partition",
        ConfigDef.ValidString.in(NullKeyPolicy.configNames().toArray(new String[0])),
        Importance.MEDIUM,
        "partitioned_scale_mode: where an event without an ownership key goes (TRUNCATE and DDL events"
            + " carry no row). quarantine fails closed; route_to_singleton_partition uses partition 0;"
            + " route_to_dead_letter_partition the last partition; derive_from_primary_key hashes the"
            + " primary key (partition 0 for rowless events).",
        GROUP_BOUNDARIES,
        ++o,
        Width.MEDIUM,
        "Null key policy",
        recommender(NullKeyPolicy.configNames()));
    d.define(
        KEY_CHANGE_POLICY,
        Type.STRING,
        "emit_move",
        ConfigDef.ValidString.in(KeyChangePolicy.configNames().toArray(new String[0])),
        Importance.MEDIUM,
        "partitioned_scale_mode: an update that moves its row to another lane. emit_move publishes a"
            + " delete in the old lane and an insert in the new one under the one manifest;"
            + " quarantine fails closed. dual_write_window and forbid are declared names only and"
            + " fail validation.",
        GROUP_BOUNDARIES,
        ++o,
        Width.MEDIUM,
        "Key change policy",
        recommender(List.of("emit_move", "quarantine")));

    o = 0;
    d.define(
        KAFKA_BOOTSTRAP_SERVERS,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        new ConfigDef.NonEmptyString(),
        Importance.HIGH,
        "Brokers (host:port, comma-separated) of the cluster the worker produces to. Kafka"
            + " Connect gives a connector no Admin client, so the source opens its own one to create its"
            + " topics, or verify them, at start: partition counts and a max.message.bytes that admits"
            + " its largest record. Settings prefixed "
            + KAFKA_ADMIN_PREFIX
            + " go, without the prefix,"
            + " to that Admin client (e.g. "
            + KAFKA_ADMIN_PREFIX
            + "security.protocol=SASL_SSL, "
            + KAFKA_ADMIN_PREFIX
            + "sasl.jaas.config=...); it needs Describe, DescribeConfigs and"
            + " Create on the topics.",
        GROUP_TOPICS,
        ++o,
        Width.LONG,
        "Kafka bootstrap servers");
    d.define(
        TOPIC_STRICT,
        Type.STRING,
        "",
        Importance.HIGH,
        "Strict topic (exactly one partition: commit order). Default: trellara.<dataset.id>.strict. Created"
            + " at start when missing; an existing one with another partition count, or a"
            + " max.message.bytes below the largest record ("
            + MAX_ENVELOPE_BYTES
            + ", or "
            + CHUNK_MAX_BYTES
            + " when chunked, plus "
            + RECORD_OVERHEAD_BYTES
            + " bytes), stops the"
            + " start, unless nothing was ever written to it (as when a consumer subscribing first had"
            + " the broker auto-create it): then its max.message.bytes is raised.",
        GROUP_TOPICS,
        ++o,
        Width.LONG,
        "Strict topic");
    d.define(
        TOPIC_PARTITIONED,
        Type.STRING,
        "",
        Importance.MEDIUM,
        "partitioned_scale_mode: the lane topic, with exactly "
            + PARTITION_COUNT
            + " partitions. Default:"
            + " trellara.<dataset.id>.partitioned. Created at start when missing (max.message.bytes: "
            + CHUNK_MAX_BYTES
            + " plus "
            + RECORD_OVERHEAD_BYTES
            + "); an existing one with another"
            + " partition count or a smaller max.message.bytes stops the start, unless nothing was ever"
            + " written to it and it has fewer partitions: then partitions are added and the limit"
            + " raised.",
        GROUP_TOPICS,
        ++o,
        Width.LONG,
        "Partitioned topic");
    d.define(
        TOPIC_REPLICATION_FACTOR,
        Type.INT,
        -1,
        ConfigDef.LambdaValidator.with(
            (name, value) -> {
              int rf = (Integer) value;
              if (rf == 0 || rf < -1 || rf > Short.MAX_VALUE) {
                throw new ConfigException(
                    name,
                    value,
                    "-1 (the broker's default.replication.factor) or a"
                        + " replication factor of at least 1");
              }
            },
            () -> "-1 or [1,...]"),
        Importance.MEDIUM,
        "Replication factor of the topics the source creates; -1: the broker's default.replication.factor.",
        GROUP_TOPICS,
        ++o,
        Width.SHORT,
        "Topic replication factor");
    d.define(
        TOPIC_CHECK_TIMEOUT_MS,
        Type.INT,
        30_000,
        ConfigDef.Range.between(1_000, 600_000),
        Importance.LOW,
        "How long the topic check may wait for the brokers ("
            + KAFKA_BOOTSTRAP_SERVERS
            + ") before the"
            + " start fails with an error saying they could not be reached.",
        GROUP_TOPICS,
        ++o,
        Width.SHORT,
        "Topic check timeout (ms)");

    o = 0;
    d.define(
        DDL_CAPTURE,
        Type.BOOLEAN,
        true,
        Importance.MEDIUM,
        "Publish DDL statements of the captured tables as DDL events inside their transaction (needs the"
            + " event trigger). The trigger is database-wide and shared by every connector on the"
            + " database, so this connector filters: it publishes only DDL whose objects belong to a"
            + " table of its publication and are not temporary, and with false it ignores every DDL"
            + " message whatever trigger exists (both counted in the DdlEventsDropped metric).",
        GROUP_CAPTURE,
        ++o,
        Width.SHORT,
        "Capture DDL");
    d.define(
        DDL_INSTALL,
        Type.BOOLEAN,
        true,
        Importance.MEDIUM,
        "Install the DDL event trigger (needs superuser) when absent. Set false and run"
            + " trellara-ddl-capture.sql as an administrator instead.",
        GROUP_CAPTURE,
        ++o,
        Width.SHORT,
        "Install DDL trigger");
    d.define(
        SPILL_DIRECTORY,
        Type.STRING,
        "",
        Importance.MEDIUM,
        "Directory for spill files of large in-flight transactions. Empty: the worker JVM's"
            + " java.io.tmpdir.",
        GROUP_CAPTURE,
        ++o,
        Width.LONG,
        "Spill directory");
    d.define(
        SPILL_THRESHOLD_BYTES,
        Type.LONG,
        16L * 1024 * 1024,
        ConfigDef.Range.atLeast(0),
        Importance.LOW,
        "In-flight change bytes held in memory before a transaction spills to disk.",
        GROUP_CAPTURE,
        ++o,
        Width.SHORT,
        "Spill threshold (bytes)");
    d.define(
        QUEUE_MAX_RECORDS,
        Type.INT,
        1024,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "Records (envelopes, chunks, manifests, markers) buffered between capture and publishing"
            + " (back-pressure).",
        GROUP_CAPTURE,
        ++o,
        Width.SHORT,
        "Queue records");
    d.define(
        QUEUE_MAX_BYTES,
        Type.LONG,
        32L * 1024 * 1024,
        ConfigDef.Range.atLeast(1024),
        Importance.LOW,
        "Bytes of records buffered between capture and publishing; one record larger than this still"
            + " passes alone.",
        GROUP_CAPTURE,
        ++o,
        Width.SHORT,
        "Queue bytes");
    d.define(
        STALL_TIMEOUT_MS,
        Type.LONG,
        300_000L,
        ConfigDef.Range.between(1_000L, 86_400_000L),
        Importance.LOW,
        "How long a stage of the task that waits may go without progress before the task fails with"
            + " STALLED naming it: the replication stream (any message from the server is progress,"
            + " keepalives included; a stream quiet for a quarter of this, at most 10 s, asks the"
            + " server for one), the initial snapshot's reads (rows read), and the producer"
            + " (records handed to Kafka Connect and not acknowledged by Kafka; each acknowledgement"
            + " is progress). A stalled stream or snapshot has its connections closed. Each stage's"
            + " seconds since its last progress are on the task's JMX bean. A wait past half of"
            + " this is logged at INFO.",
        GROUP_CAPTURE,
        ++o,
        Width.SHORT,
        "Stall timeout (ms)");
    return d;
  }

  /**
   * A validator from one of {@link PgNames}' rules (null = valid, else the message with the rule).
   */
  static ConfigDef.Validator nameValidator(Function<String, String> rule, String description) {
    return ConfigDef.LambdaValidator.with(
        (name, value) -> {
          String problem = rule.apply(value == null ? null : value.toString());
          if (problem != null) {
            throw new ConfigException(name, value, problem);
          }
        },
        () -> description);
  }

  /**
   * A host name or address only: the JDBC URL is host, port and database, and anything that could
   * start a path or a parameter ({@code /}, {@code ?}, {@code &}, {@code #}, {@code @}, white
   * space) is refused.
   */
  static ConfigDef.Validator hostnameValidator() {
    return ConfigDef.LambdaValidator.with(
        (name, value) -> {
          String h = value == null ? "" : value.toString().trim();
          if (h.isEmpty()) {
            throw new ConfigException(name, value, "String must be non-empty");
          }
          if (!h.matches("[A-Za-z0-9._:%\\[\\]-]+")) {
            throw new ConfigException(
                name,
                value,
                "A host name or IP address only (letters, digits, '.', '-',"
                    + " '_', ':' and [] for IPv6): no port, path, parameters or user. Put the port in "
                    + PORT
                    + " and TLS settings in database.ssl*.");
          }
        },
        () -> "host name or IP address");
  }

  static ConfigDef.Recommender recommender(List<?> values) {
    return ConfigRecommenders.fixed(values);
  }

  public TrellaraSourceConfig(Map<?, ?> props) {
    super(CONFIG_DEF, props);
  }

  public boolean partitioned() {
    return MODE_PARTITIONED.equals(getString(DATASET_MODE));
  }

  public String partitionedTopic() {
    String t = getString(TOPIC_PARTITIONED);
    return t.isBlank() ? "trellara." + getString(DATASET_ID) + ".partitioned" : t;
  }

  /**
   * The boundary mode as the engine sees it; call after {@link #crossFieldErrors()} came back
   * empty.
   */
  public BoundarySettings boundary() {
    if (partitioned()) {
      return new BoundarySettings(
          true,
          getInt(PARTITIONED_MAX_CHANGES),
          getLong(CHUNK_MAX_BYTES),
          getInt(PARTITION_COUNT),
          OwnershipKeys.parse(getList(OWNERSHIP_KEYS)),
          NullKeyPolicy.fromConfigName(getString(NULL_KEY_POLICY)),
          KeyChangePolicy.fromConfigName(getString(KEY_CHANGE_POLICY)));
    }
    int chunking = getInt(STRICT_CHUNKING);
    return chunking == 0
        ? BoundarySettings.strict()
        : new BoundarySettings(
            false,
            chunking,
            getLong(CHUNK_MAX_BYTES),
            0,
            OwnershipKeys.none(),
            NullKeyPolicy.ROUTE_TO_SINGLETON_PARTITION,
            KeyChangePolicy.EMIT_MOVE);
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

  /**
   * The largest record the flow publishes: the envelope cap in strict mode, the chunk size when
   * chunked (partitioned or strict chunked: chunks, manifests and markers), plus the record
   * overhead.
   */
  public long largestRecordBytes() {
    return largestRecordSetting() == MAX_ENVELOPE_BYTES
        ? getInt(MAX_ENVELOPE_BYTES) + RECORD_OVERHEAD_BYTES
        : getLong(CHUNK_MAX_BYTES) + RECORD_OVERHEAD_BYTES;
  }

  /**
   * The setting that bounds the largest record: {@link #MAX_ENVELOPE_BYTES} or {@link
   * #CHUNK_MAX_BYTES}.
   */
  public String largestRecordSetting() {
    return partitioned() || getInt(STRICT_CHUNKING) > 0 ? CHUNK_MAX_BYTES : MAX_ENVELOPE_BYTES;
  }

  private String largestRecordText() {
    String setting = largestRecordSetting();
    Object value = setting.equals(MAX_ENVELOPE_BYTES) ? getInt(setting) : getLong(setting);
    return largestRecordBytes()
        + " bytes ("
        + setting
        + "="
        + value
        + " plus "
        + RECORD_OVERHEAD_BYTES
        + " bytes of record overhead)";
  }

  /**
   * The Admin client's settings: {@link #KAFKA_BOOTSTRAP_SERVERS} and every {@code kafka.admin.*}
   * entry.
   */
  public Map<String, Object> adminConfig() {
    Map<String, Object> admin = new java.util.HashMap<>(originalsWithPrefix(KAFKA_ADMIN_PREFIX));
    admin.put("bootstrap.servers", getString(KAFKA_BOOTSTRAP_SERVERS));
    return admin;
  }

  /**
   * Kafka Connect settings that would let a record go missing: any {@code errors.tolerance} but
   * none, any transform. Checked on the raw settings, so {@code validate()} reports them even when
   * other fields fail.
   */
  public static List<String[]> frameworkErrors(Map<?, ?> originals) {
    List<String[]> errors = new java.util.ArrayList<>();
    Object tolerance = originals.get(ERRORS_TOLERANCE);
    if (tolerance != null && !"none".equalsIgnoreCase(tolerance.toString().trim())) {
      errors.add(
          new String[] {
            ERRORS_TOLERANCE,
            ERRORS_TOLERANCE
                + "="
                + tolerance
                + " is refused: every"
                + " record of the source carries a transaction or part of one, and Kafka Connect counts a"
                + " record it skips (a failed send such as RecordTooLargeException) as delivered, so the"
                + " replication slot would move past a transaction Kafka never received: data loss. Remove "
                + ERRORS_TOLERANCE
                + " or set it to none; a record that cannot be sent stops the task instead."
          });
    }
    Object transforms = originals.get(TRANSFORMS);
    if (transforms != null && !transforms.toString().isBlank()) {
      errors.add(
          new String[] {
            TRANSFORMS,
            TRANSFORMS
                + "="
                + transforms
                + " is refused: every record of the"
                + " source carries a transaction or part of one (checksummed, counted in its manifest), so a"
                + " transform that drops or rewrites a record loses or corrupts data, and a dropped record"
                + " counts as delivered. Remove "
                + TRANSFORMS
                + " from the source; filter with"
                + " "
                + TABLE_INCLUDE_LIST
                + " / the publication, or on the sink."
          });
    }
    return errors;
  }

  /**
   * Cross-field rules, written once: reported by validate() and enforced at start. Empty when fine.
   */
  public List<String[]> crossFieldErrors() {
    List<String[]> errors = new java.util.ArrayList<>();
    errors.addAll(frameworkErrors(originals()));
    records(errors);
    if (getInt(PROTOCOL_VERSION) == 1
        && "true".equalsIgnoreCase(String.valueOf(originals().get(STREAMING)).trim())) {
      errors.add(
          new String[] {
            STREAMING,
            "pgoutput protocol 1 cannot stream in-progress transactions. Set "
                + STREAMING
                + "=false, or use "
                + PROTOCOL_VERSION
                + "=2."
          });
    }
    if (AUTOCREATE_FILTERED.equals(getString(PUBLICATION_AUTOCREATE))
        && getList(TABLE_INCLUDE_LIST).isEmpty()) {
      errors.add(
          new String[] {
            TABLE_INCLUDE_LIST,
            "List the tables to capture (schema.table, comma-separated)"
                + " so the publication can be created, or set "
                + PUBLICATION_AUTOCREATE
                + "=disabled and"
                + " create publication "
                + getString(PUBLICATION_NAME)
                + " yourself."
          });
    }
    if (partitioned()) {
      if (getInt(STRICT_CHUNKING) > 0) {
        errors.add(
            new String[] {
              STRICT_CHUNKING,
              "Strict chunking is a sub-option of"
                  + " strict_transaction_order; partitioned_scale_mode always publishes chunks. Remove "
                  + STRICT_CHUNKING
                  + " or set "
                  + DATASET_MODE
                  + "="
                  + MODE_STRICT
                  + "."
            });
      }
      if (!KeyChangePolicy.fromConfigName(getString(KEY_CHANGE_POLICY)).planned()) {
        errors.add(
            new String[] {
              KEY_CHANGE_POLICY,
              getString(KEY_CHANGE_POLICY)
                  + " is a declared policy"
                  + " name without a planner: the partition planner fails closed unless ownership moves are"
                  + " handled by emit_move. Use emit_move, or quarantine to refuse moves."
            });
      }
      try {
        OwnershipKeys.parse(getList(OWNERSHIP_KEYS));
      } catch (IllegalArgumentException e) {
        errors.add(
            new String[] {
              OWNERSHIP_KEYS,
              e.getMessage() + ". Write schema.table:col1|col2, with" + " primary-key columns."
            });
      }
      if (partitionedTopic().equals(strictTopic())) {
        errors.add(
            new String[] {
              TOPIC_PARTITIONED,
              "The partitioned topic must differ from the strict topic"
                  + " ("
                  + strictTopic()
                  + ")."
            });
      }
    }
    return errors;
  }

  /**
   * The largest record must pass the producer. The connector sees only its own producer.override.*
   * settings: a worker-level producer.max.request.size or producer.buffer.memory is invisible here,
   * hence Kafka's defaults when no override is set.
   */
  private void records(List<String[]> errors) {
    long needed = largestRecordBytes();
    String setting = largestRecordSetting();
    long maxRequest =
        producerSetting(PRODUCER_MAX_REQUEST_SIZE, KAFKA_DEFAULT_MAX_REQUEST_SIZE, errors);
    long buffer = producerSetting(PRODUCER_BUFFER_MEMORY, KAFKA_DEFAULT_BUFFER_MEMORY, errors);
    for (Object[] p :
        new Object[][] {
          {PRODUCER_MAX_REQUEST_SIZE, maxRequest}, {PRODUCER_BUFFER_MEMORY, buffer}
        }) {
      String key = (String) p[0];
      long value = (Long) p[1];
      if (value >= 0 && value < needed) {
        String source =
            originals().containsKey(key)
                ? key + "=" + value
                : key
                    + " is not set, so Kafka's default "
                    + value
                    + " applies (a worker-level producer."
                    + key.substring("producer.override.".length())
                    + " is invisible to the connector)";
        errors.add(
            new String[] {
              setting,
              "The largest record of this flow is "
                  + largestRecordText()
                  + ", but "
                  + source
                  + ": the producer would refuse it and stop the task. Set "
                  + key
                  + " to at least "
                  + needed
                  + " on the connector (the worker's"
                  + " connector.client.config.override.policy must allow it), or lower "
                  + setting
                  + "."
            });
      }
    }
  }

  private long producerSetting(String key, long kafkaDefault, List<String[]> errors) {
    Object v = originals().get(key);
    if (v == null || v.toString().isBlank()) {
      return kafkaDefault;
    }
    try {
      return Long.parseLong(v.toString().trim());
    } catch (NumberFormatException e) {
      errors.add(new String[] {key, key + "=" + v + " is not a number of bytes."});
      return -1;
    }
  }
}
