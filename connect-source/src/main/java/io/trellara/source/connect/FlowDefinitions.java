package io.trellara.source.connect;

import static io.trellara.source.connect.TrellaraSourceConfig.*;

import io.trellara.connect.common.ConfigChoices;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings of the Boundaries, Topics and Capture groups: how transactions are cut into records,
 * where they go, and what capture may hold.
 */
final class FlowDefinitions {
  private FlowDefinitions() {}

  static void define(ConfigDef d) {
    int o;
    o = 0;
    d.define(
        DATASET_MODE,
        Type.STRING,
        MODE_STRICT,
        ConfigChoices.validator(DatasetMode.class),
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
        ConfigChoices.recommender(DatasetMode.class));
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
        "The largest encoded chunk (and manifest) the flow publishes, exactly: a chunk is closed"
            + " before an event would take it past this, even below its change limit, in the snapshot"
            + " and in the stream. The largest record is this plus "
            + RECORD_OVERHEAD_BYTES
            + " bytes of record overhead; the default fits Kafka's default max.message.bytes. An event"
            + " is never split: one that does not fit in a chunk of its own (the chunk's fields and the"
            + " schema versions it references count) stops the task with event_too_large, naming the"
            + " value to set here, and nothing of its transaction is applied.",
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
            + " entries). A column must be a primary-key column, or one the table's replica identity"
            + " carries (REPLICA IDENTITY FULL, or USING INDEX on an index holding the primary key and"
            + " the column), so deletes and ownership moves carry it; validate() names the ALTER TABLE"
            + " for one that is not. A table not listed is owned by its whole primary key. Lane = xxh3_64 of the row identity V2 SCAN_KEY bytes, mod the"
            + " partition count.",
        GROUP_BOUNDARIES,
        ++o,
        Width.LONG,
        "Ownership keys");
    d.define(
        NULL_KEY_POLICY,
        Type.STRING,
        NullKeyPolicy.ROUTE_TO_SINGLETON_PARTITION.configName(),
        ConfigChoices.validator(NullKeyPolicy.class),
        Importance.MEDIUM,
        "partitioned_scale_mode: where a row whose ownership value is NULL goes (TRUNCATE and DDL"
            + " events carry no row: lane 0). quarantine fails closed; route_to_singleton_partition uses partition 0;"
            + " route_to_dead_letter_partition the last partition; derive_from_primary_key hashes the"
            + " row's primary key (read from the catalog).",
        GROUP_BOUNDARIES,
        ++o,
        Width.MEDIUM,
        "Null key policy",
        ConfigChoices.recommender(NullKeyPolicy.class));
    d.define(
        KEY_CHANGE_POLICY,
        Type.STRING,
        KeyChangePolicy.EMIT_MOVE.configName(),
        ConfigChoices.validator(KeyChangePolicy.class),
        Importance.MEDIUM,
        "partitioned_scale_mode: an update that moves its row to another lane. emit_move publishes a"
            + " delete in the old lane and an insert in the new one under the one manifest;"
            + " quarantine fails closed. dual_write_window and forbid are declared names only and"
            + " fail validation.",
        GROUP_BOUNDARIES,
        ++o,
        Width.MEDIUM,
        "Key change policy",
        // offered: the policies a planner implements; the others fail the cross-field rules
        ConfigChoices.recommender(KeyChangePolicy.class, KeyChangePolicy::planned));

    o = 0;
    d.define(
        KAFKA_BOOTSTRAP_SERVERS,
        Type.STRING,
        "",
        Importance.HIGH,
        "Brokers (host:port, comma-separated) of the cluster the worker produces to. Optional."
            + " Empty (default): the source opens no Kafka client of its own; Kafka Connect's topic"
            + " creation (topic.creation.default.partitions, .replication.factor and"
            + " .max.message.bytes, required then) creates the topics, the source checks every"
            + " acknowledgement (topic, partition, offsets in order), and a snapshot.mode other than"
            + " never needs exactly.once.support=required (docs/operations.md, Without"
            + " kafka.bootstrap.servers). Set: Kafka"
            + " Connect gives a connector no Admin client, so the source opens its own one to create its"
            + " topics, or verify them, at start: partition counts and a max.message.bytes that admits"
            + " its largest record, and reads its strict topic's tail to resume. Settings prefixed "
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
            + " the broker auto-create it): then its max.message.bytes is raised. Created with the"
            + " connector's topic.creation.* group settings (a larger max.message.bytes is kept;"
            + " validate() refuses a partition count other than 1, a smaller max.message.bytes and"
            + " compaction).",
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
            + " raised. Created with the connector's topic.creation.* group settings, like the strict"
            + " topic (a group's partitions must then be "
            + PARTITION_COUNT
            + ").",
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
            + " start fails with an error saying they could not be reached. Unused without "
            + KAFKA_BOOTSTRAP_SERVERS
            + ".",
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
        DDL_MESSAGE_ROLES,
        Type.LIST,
        "",
        Importance.MEDIUM,
        "The roles whose DDL this connector publishes: the event trigger records the role each DDL"
            + " statement ran as (the SET ROLE role, else the login role), and a DDL message from any"
            + " other role, or naming none, is logged at WARN and skipped (DdlMessagesRefused"
            + " metric). Empty (default): every role with the privileges of an owner of a table of"
            + " the publication when the task starts (the owners, their inheriting members and"
            + " superusers). The role is trustworthy only while PUBLIC cannot execute"
            + " pg_logical_emit_message, which trellara-ddl-capture.sql revokes and validate()"
            + " checks.",
        GROUP_CAPTURE,
        ++o,
        Width.LONG,
        "DDL message roles");
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
  }
}
