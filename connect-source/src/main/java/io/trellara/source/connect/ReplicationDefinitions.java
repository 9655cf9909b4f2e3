package io.trellara.source.connect;

import static io.trellara.source.connect.TrellaraSourceConfig.*;

import io.trellara.connect.common.ConfigChoices;
import io.trellara.source.pg.PgNames;
import io.trellara.source.pg.WalGuard;
import io.trellara.source.snapshot.SnapshotMode;
import io.trellara.source.snapshot.SnapshotReads;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings of the Replication group: the slot, the publication, the stream, offsets and the
 * initial snapshot.
 */
final class ReplicationDefinitions {
  private ReplicationDefinitions() {}

  static void define(ConfigDef d) {
    int o;
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
        ConfigChoices.validator(PublicationAutocreate.class),
        Importance.MEDIUM,
        "'filtered': create the publication for the tables of "
            + TABLE_INCLUDE_LIST
            + " when it does not exist, and at each task start add the tables the list gained"
            + " (snapshotted online, ordered with the stream, while the others stream on) and"
            + " drop those it lost (their capture stops; the target keeps their rows)."
            + " 'disabled': the publication must exist (created by an administrator).",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Publication auto-creation",
        ConfigChoices.recommender(PublicationAutocreate.class));
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
            + " 0.5 s, doubling up to 2 s (each less up to 10 % at random), for as long as this; then the task fails with the last cause. Transactions"
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
        HEARTBEAT_ACTION_QUERY,
        Type.STRING,
        "",
        Importance.LOW,
        "A statement the task runs on the source database at every heartbeat (heartbeat.interval.ms"
            + " must be > 0), before the heartbeat message, over the heartbeat's connection in"
            + " autocommit, as Debezium's heartbeat.action.query: for example INSERT INTO"
            + " heartbeat (id, ts) VALUES (1, now()) ON CONFLICT (id) DO UPDATE SET ts = now(), on a"
            + " table of the publication, for a database whose captured tables are idle while others"
            + " are busy, or a role that may not call pg_logical_emit_message. The change it makes is"
            + " captured and published like any other. A failure is logged (WARN once per run of"
            + " failures) and never affects capture. Empty (default): none.",
        GROUP_REPLICATION,
        ++o,
        Width.LONG,
        "Heartbeat action query");
    d.define(
        SLOT_LAG_WARN_BYTES,
        Type.LONG,
        WalGuard.DEFAULT_SLOT_LAG_WARN_BYTES,
        ConfigDef.Range.atLeast(0),
        Importance.MEDIUM,
        "Above this much WAL retained for the slot (pg_current_wal_lsn() minus its"
            + " confirmed_flush_lsn, sampled every 5 s; JMX ReplicationLagBytes and"
            + " ReplicationLagSeconds), the task logs a WARN naming the lag in bytes and seconds and"
            + " max_slot_wal_keep_size, and an INFO once it is below again. The WAL a slot retains"
            + " cannot be removed by a checkpoint: unbounded, it fills the source's disk. 0: no"
            + " warning.",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Slot lag warning (bytes)");
    d.define(
        SLOT_FAILOVER,
        Type.BOOLEAN,
        false,
        Importance.MEDIUM,
        "PostgreSQL 17+: create the replication slot as a failover slot (failover => true), which a"
            + " standby with sync_replication_slots=on, hot_standby_feedback=on, primary_slot_name and"
            + " a dbname in primary_conninfo keeps synchronised, so that after the standby is promoted"
            + " the task resumes from the same slot on it. An existing slot without failover is"
            + " altered (ALTER_REPLICATION_SLOT ... (FAILOVER true)). validate() and the task's start"
            + " refuse it below PostgreSQL 17 and when the primary's synchronized_standby_slots is empty"
            + " or names a physical slot that does not exist (without it the task could publish"
            + " transactions the standby never received). Connections then go to the primary only"
            + " (targetServerType=primary): list the primary and its standbys in "
            + HOSTNAME
            + " (host:port,host:port) or move one host name to the promoted standby. See"
            + " docs/operations.md, Failover slots.",
        GROUP_REPLICATION,
        ++o,
        Width.SHORT,
        "Failover slot");
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
        ConfigChoices.validator(SnapshotMode.class),
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
        ConfigChoices.recommender(SnapshotMode.class));
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
    d.define(
        SIGNAL_TABLE,
        Type.STRING,
        "",
        nameValidator(ReplicationDefinitions::signalTableProblem, "schema.table, or empty"),
        Importance.LOW,
        "A table on the source (schema.table) whose rows are signals to this connector, written"
            + " with a plain INSERT: columns id text (any name for the signal), type text (snapshot,"
            + " stop-snapshot, pause-snapshot, resume-snapshot) and data text (for snapshot: one"
            + " schema.table per line, each optionally followed by WHERE and a row filter). The"
            + " table must be in the connector's publication: its rows are captured like any change,"
            + " so a signal is ordered with the stream, but they are never published. A snapshot"
            + " signal re-snapshots the tables it names while the others keep streaming, and the"
            + " sink replaces each in one target transaction (docs/snapshot.md, Online snapshots)."
            + " Whoever may INSERT into it may signal: grant INSERT to trusted roles only. A"
            + " malformed signal is logged and ignored. Empty: no signal table.",
        GROUP_REPLICATION,
        ++o,
        Width.MEDIUM,
        "Signal table");
  }

  /** Why {@code signal.table} cannot name a table, or null. */
  static String signalTableProblem(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      io.trellara.source.signal.SignalParser.tableName(value);
      return null;
    } catch (io.trellara.source.signal.MalformedSignalException e) {
      return e.getMessage();
    }
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
}
