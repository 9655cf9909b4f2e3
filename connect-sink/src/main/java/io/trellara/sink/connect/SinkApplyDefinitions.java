package io.trellara.sink.connect;

import static io.trellara.sink.connect.TrellaraSinkConfig.ALLOWLIST;
import static io.trellara.sink.connect.TrellaraSinkConfig.APPLY_STALL_TIMEOUT_MS;
import static io.trellara.sink.connect.TrellaraSinkConfig.BARRIER_MAX_WAIT_MS;
import static io.trellara.sink.connect.TrellaraSinkConfig.COPY_THRESHOLD;
import static io.trellara.sink.connect.TrellaraSinkConfig.CREATE_TABLES;
import static io.trellara.sink.connect.TrellaraSinkConfig.DDL_APPLY;
import static io.trellara.sink.connect.TrellaraSinkConfig.DDL_REPLAY_TRUST;
import static io.trellara.sink.connect.TrellaraSinkConfig.DROP_COLUMNS;
import static io.trellara.sink.connect.TrellaraSinkConfig.GROUP_APPLY;
import static io.trellara.sink.connect.TrellaraSinkConfig.GROUP_MAPPING;
import static io.trellara.sink.connect.TrellaraSinkConfig.GROUP_MAX;
import static io.trellara.sink.connect.TrellaraSinkConfig.GROUP_MAX_CHANGES;
import static io.trellara.sink.connect.TrellaraSinkConfig.INSERT_CONFLICT;
import static io.trellara.sink.connect.TrellaraSinkConfig.LANES_HOLD_MAX_BYTES;
import static io.trellara.sink.connect.TrellaraSinkConfig.LOSSY_TABLES;
import static io.trellara.sink.connect.TrellaraSinkConfig.MAPPING;
import static io.trellara.sink.connect.TrellaraSinkConfig.MISSING_ROW;
import static io.trellara.sink.connect.TrellaraSinkConfig.SCHEMA_EVOLUTION;
import static io.trellara.sink.connect.TrellaraSinkConfig.SNAPSHOT_APPLY;
import static io.trellara.sink.connect.TrellaraSinkConfig.SNAPSHOT_TARGET_NONEMPTY;
import static io.trellara.sink.connect.TrellaraSinkConfig.STAGING_LANE_MAX_BYTES;
import static io.trellara.sink.connect.TrellaraSinkConfig.SYNC_COMMIT;
import static io.trellara.sink.connect.TrellaraSinkConfig.TYPES_ALLOWED;

import io.trellara.connect.common.ConfigChoices;
import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.DdlPolicy;
import io.trellara.sink.postgres.settings.DropColumnsPolicy;
import io.trellara.sink.postgres.settings.InsertConflictPolicy;
import io.trellara.sink.postgres.settings.MissingRowPolicy;
import io.trellara.sink.postgres.settings.SchemaEvolutionMode;
import io.trellara.sink.postgres.settings.SnapshotApplyMode;
import io.trellara.sink.postgres.settings.SnapshotTargetPolicy;
import io.trellara.sink.postgres.settings.SynchronousCommit;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** The sink's Mapping and Apply settings: what it may write and how it writes it. */
final class SinkApplyDefinitions {
  private SinkApplyDefinitions() {}

  /** Each entry of a list setting is a qualified name, schema.name (either part may be quoted). */
  private static final ConfigDef.Validator QUALIFIED_NAMES =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          for (Object entry : (java.util.List<?>) value) {
            try {
              QualifiedName.parse(entry.toString());
            } catch (IllegalArgumentException e) {
              throw new org.apache.kafka.common.config.ConfigException(name, entry, e.getMessage());
            }
          }
        }

        @Override
        public String toString() {
          return "comma-separated schema.name entries (either part may be double-quoted)";
        }
      };

  static void define(ConfigDef d) {
    int o = 0;
    d.define(
        MAPPING,
        Type.LIST,
        "",
        Importance.MEDIUM,
        "Source-to-target relation mapping, comma-separated"
            + " entries source_schema.source_table:target_schema.target_table. Unmapped relations keep their"
            + " schema and table name.",
        GROUP_MAPPING,
        ++o,
        Width.LONG,
        "Relation mapping");
    d.define(
        ALLOWLIST,
        Type.LIST,
        "",
        Importance.HIGH,
        "Target tables the sink may write: schema.table,"
            + " schema.* for a whole schema, or * for every table. A change for any other table stops the task"
            + " before anything of its transaction is applied. Required: anyone who can write to the topics"
            + " chooses which tables a record names. The sink's own schemas (trellara_sink, and trellara"
            + " for read-your-writes) and the system schemas are never written, whatever this says.",
        GROUP_MAPPING,
        ++o,
        Width.LONG,
        "Allowlist");
    d.define(
        CREATE_TABLES,
        Type.BOOLEAN,
        false,
        Importance.LOW,
        "Create a missing target table from the" + " envelope's column types and key.",
        GROUP_MAPPING,
        ++o,
        Width.SHORT,
        "Create missing tables");
    d.define(
        TYPES_ALLOWED,
        Type.LIST,
        "",
        QUALIFIED_NAMES,
        Importance.LOW,
        "Types, as schema.type, the sink may create columns of (creating a missing table, or adding or"
            + " retyping a column by schema evolution) beyond the built-in types of pg_catalog and their"
            + " arrays, e.g. public.citext,public.mood; arrays of a listed type too. Any other type a"
            + " record names (a table's row type, a type of the sink's own schema) is refused with"
            + " TYPE_REFUSED.",
        GROUP_MAPPING,
        ++o,
        Width.LONG,
        "Allowed column types");

    o = 0;
    d.define(
        INSERT_CONFLICT,
        Type.STRING,
        "fail",
        ConfigChoices.validator(InsertConflictPolicy.class),
        Importance.MEDIUM,
        "An insert whose key exists on the target: 'fail' stops the task (the target diverged), 'upsert'"
            + " updates the existing row.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Insert conflict",
        ConfigChoices.recommender(InsertConflictPolicy.class));
    d.define(
        SNAPSHOT_TARGET_NONEMPTY,
        Type.STRING,
        "fail",
        ConfigChoices.validator(SnapshotTargetPolicy.class),
        Importance.MEDIUM,
        "A source's initial snapshot (transaction_id 'snapshot') about to load a target table"
            + " that already holds rows: 'fail' (default) refuses it, names the table and applies nothing"
            + " of the snapshot; 'truncate' empties the table in the snapshot's own target transaction,"
            + " so readers see the old rows until the snapshot commits and the new ones after; 'upsert'"
            + " keeps the rows and writes the snapshot's over them by key. Once the source has applied"
            + " transactions to this target, a new snapshot of it (its slot or offsets were lost) always"
            + " replaces the tables it loads: the later snapshot supersedes what came before.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Snapshot into a non-empty table",
        ConfigChoices.recommender(SnapshotTargetPolicy.class));
    d.define(
        SNAPSHOT_APPLY,
        Type.STRING,
        "atomic",
        ConfigChoices.validator(SnapshotApplyMode.class),
        Importance.MEDIUM,
        "How a source's initial snapshot becomes visible: 'atomic' (default) applies it in"
            + " one target transaction, so readers see the tables empty or all of them loaded and mutually"
            + " consistent; 'per_table' commits each table on its own when the snapshot's next table"
            + " begins (readers see each table empty or whole; foreign keys between tables hold once the"
            + " snapshot completes), bounds a target transaction to one table, and a sink restarted"
            + " mid-snapshot resumes after the last table it committed. Snapshots of partitioned flows,"
            + " and of chunked flows that cannot be applied as their chunks arrive, are atomic.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Snapshot apply",
        ConfigChoices.recommender(SnapshotApplyMode.class));
    d.define(
        MISSING_ROW,
        Type.STRING,
        "fail",
        ConfigChoices.validator(MissingRowPolicy.class),
        Importance.MEDIUM,
        "An update or delete that matches no target row: 'fail' stops the task, 'ignore' counts and skips"
            + " it.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Missing row",
        ConfigChoices.recommender(MissingRowPolicy.class));
    d.define(
        DDL_APPLY,
        Type.STRING,
        "structured",
        ConfigChoices.validator(DdlPolicy.class),
        Importance.MEDIUM,
        "DDL events: 'structured' runs no statement text; schema changes of captured"
            + " tables reach the target through schema evolution (schema.evolution), and a rename stops"
            + " the task naming it. 'skip' ignores DDL events (also renames: use it to pass a rename you"
            + " made on the target yourself). 'fail' stops the task at any DDL event. 'replay' runs the"
            + " captured statement at its place in the transaction, after refusing anything but one"
            + " transactional statement on allowlisted tables: it trusts every writer of the topic to"
            + " choose SQL for the target, and needs "
            + DDL_REPLAY_TRUST
            + "=true.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "DDL apply",
        ConfigChoices.recommender(DdlPolicy.class));
    d.define(
        DDL_REPLAY_TRUST,
        Type.BOOLEAN,
        false,
        Importance.LOW,
        "Set to true, together with ddl.apply=replay,"
            + " to state that every writer of the topics may choose SQL for the target.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Trust topic writers with DDL");
    d.define(
        SCHEMA_EVOLUTION,
        Type.STRING,
        "auto",
        ConfigChoices.validator(SchemaEvolutionMode.class),
        Importance.MEDIUM,
        "'auto' derives ALTER TABLE from the column definitions on the wire when a captured table's schema"
            + " version changes: adds columns, changes column types (only widening ones unless the table is"
            + " on schema.evolution.lossy.tables) and (see "
            + "schema.evolution.drop.columns"
            + ") drops columns, with the target's own spelling of each type. A key change, a type the"
            + " target lacks or a possible rename stops the task naming the table and the change."
            + " 'none' never alters a target table.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Schema evolution",
        ConfigChoices.recommender(SchemaEvolutionMode.class));
    d.define(
        DROP_COLUMNS,
        Type.STRING,
        "keep",
        ConfigChoices.validator(DropColumnsPolicy.class),
        Importance.LOW,
        "A column the source no longer has: 'keep' leaves the target column and its values, 'drop' drops"
            + " it, in a table on schema.evolution.lossy.tables (elsewhere the task stops naming the"
            + " column and the setting).",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Dropped columns",
        ConfigChoices.recommender(DropColumnsPolicy.class));
    d.define(
        LOSSY_TABLES,
        Type.LIST,
        "",
        QUALIFIED_NAMES,
        Importance.LOW,
        "Target tables, as schema.table, where schema evolution may make a change that loses values"
            + " already on the target: a retype that is not widening (e.g. timestamptz to date, text to"
            + " varchar(1)) and, with schema.evolution.drop.columns=drop, dropping a column. Elsewhere"
            + " such a change stops the task with SCHEMA_CHANGE_REFUSED naming the column and both"
            + " types; the lossless retypes are listed in docs/security.md.",
        GROUP_APPLY,
        ++o,
        Width.LONG,
        "Tables open to lossy changes");
    d.define(
        GROUP_MAX,
        Type.INT,
        ApplyOptions.DEFAULT_GROUP_MAX_TRANSACTIONS,
        ConfigDef.Range.between(1, 10_000),
        Importance.MEDIUM,
        "At most this many consecutive source transactions, of those the sink already holds,"
            + " are applied in one target transaction; nothing waits for more to arrive. Each source"
            + " transaction stays all-or-nothing and is recorded in the dedup table, and the progress row"
            + " records the last, so readers of the target never see part of a source transaction; they"
            + " may skip the committed states between the transactions of a group. 1: one target commit"
            + " per source transaction, so readers see every intermediate state. Applies to envelopes"
            + " and to strict chunked transactions that arrive whole in one batch; staged barriers"
            + " (partitioned mode, large chunked transactions) commit one by one. A transaction with DDL"
            + " events starts a new group, and a group the target refuses is applied again one source"
            + " transaction per target commit (deferred constraint checks and ALTER TABLE behave as on"
            + " the source).",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Transactions per target commit");
    d.define(
        GROUP_MAX_CHANGES,
        Type.INT,
        ApplyOptions.DEFAULT_GROUP_MAX_CHANGES,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "A group of transactions ("
            + GROUP_MAX
            + ") takes no further transaction once it"
            + " holds this many changes: it bounds the size of one target transaction and what a retry"
            + " repeats. A source transaction is never split (the one that reaches the bound ends its group).",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Changes per target commit");
    d.define(
        SYNC_COMMIT,
        Type.STRING,
        "off",
        ConfigChoices.validator(SynchronousCommit.class),
        Importance.MEDIUM,
        "'off' (the default) commits target transactions with synchronous_commit=off, as PostgreSQL's own"
            + " logical replication apply workers do: the commit returns before its WAL is flushed, and a"
            + " crash of the target may lose the last commits (about 3 x wal_writer_delay). The sink's"
            + " progress and dedup rows are in the same transactions, so they are lost with them: the sink"
            + " notices the lost connection, reads its progress from the target again and re-applies the"
            + " lost transactions from Kafka; Kafka offsets are committed only up to what the target has"
            + " flushed. 'on' waits for the flush (and synchronous standbys) at every commit.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Synchronous commit",
        ConfigChoices.recommender(SynchronousCommit.class));
    d.define(
        BARRIER_MAX_WAIT_MS,
        Type.LONG,
        600_000L,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "How long a chunked or partitioned transaction may wait at its commit barrier for chunks of other"
            + " lanes without one of them arriving before the task stops, naming the missing lanes"
            + " (MISSING_CHUNK): a chunk lost to retention, or a lane that carries no later transaction, is"
            + " never waited for forever. A lane that is merely slow keeps the barrier alive as long as its"
            + " chunks keep arriving.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Max barrier wait (ms)");
    d.define(
        APPLY_STALL_TIMEOUT_MS,
        Type.LONG,
        300_000L,
        ConfigDef.Range.atLeast(1_000),
        Importance.LOW,
        "How long a target statement, a COPY or a lock wait may go without progress. Past it the watchdog"
            + " cancels the statement on the target (a server-side cancel), rolls the transaction back so"
            + " its locks are released, and the task fails with STALLED, naming the statement, the table,"
            + " the event key and what it waited for (the lock holder's pid when it is a lock). A statement"
            + " the target is still working on (not waiting for a lock) is given more time. Seconds since"
            + " the last progress of each stage are in JMX (TargetStatementSecondsSinceProgress,"
            + " StreamedTransactionSecondsSinceProgress) and trellara status --jmx.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Stall timeout (ms)");
    d.define(
        STAGING_LANE_MAX_BYTES,
        Type.LONG,
        io.trellara.sink.buffer.SinkBuffer.DEFAULT_MAX_STAGED_BYTES_PER_LANE,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "A partitioned lane pauses while more than this many bytes of its chunks are staged in the target for"
            + " transactions after the oldest one staged of its flow, i.e. behind a barrier that waits;"
            + " it resumes once the barrier applies. Bounds the staging table while a barrier waits (for a"
            + " lost worker's lanes, or up to barrier.max.wait.ms for a lost chunk). The lanes the waiting barrier"
            + " still needs are behind, so they are never paused.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Max staged bytes per lane");
    d.define(
        LANES_HOLD_MAX_BYTES,
        Type.LONG,
        io.trellara.sink.buffer.SinkBuffer.DEFAULT_MAX_HELD_BYTES,
        ConfigDef.Range.atLeast(0),
        Importance.LOW,
        "The task that holds a partitioned flow's strict partition holds the chunks of its own lanes in"
            + " memory, up to this many bytes, so that a transaction whose lanes it all holds is verified"
            + " and applied without staging a byte; beyond it, or after a second, they are staged. 0:"
            + " every lane chunk is staged in the target as it arrives.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Lane chunks held in memory (bytes)");
    d.define(
        COPY_THRESHOLD,
        Type.INT,
        64,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "Insert runs of at least this many rows are written with COPY.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "COPY threshold");
  }
}
