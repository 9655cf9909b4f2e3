package io.trellara.sink.connect;

import io.trellara.connect.common.ConfigRecommenders;
import io.trellara.sink.postgres.ApplyOptions;
import io.trellara.sink.postgres.DdlPolicy;
import io.trellara.sink.postgres.DropColumnsPolicy;
import io.trellara.sink.postgres.InsertConflictPolicy;
import io.trellara.sink.postgres.MissingRowPolicy;
import io.trellara.sink.postgres.SchemaEvolutionMode;
import io.trellara.sink.postgres.SnapshotApplyMode;
import io.trellara.sink.postgres.SnapshotTargetPolicy;
import io.trellara.sink.postgres.schema.RelationMapper;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** Every setting of the sink connector: one name constant, one doc, one default, one definition. */
public final class TrellaraSinkConfig extends AbstractConfig {
  static final String GROUP_CONNECTION = "Connection";
  static final String GROUP_MAPPING = "Mapping";
  static final String GROUP_APPLY = "Apply";
  static final String GROUP_RETRIES = "Retries";

  public static final String URL = "connection.url";
  public static final String USER = "connection.user";
  public static final String PASSWORD = "connection.password";
  public static final String SSLMODE = "connection.sslmode";
  public static final String SSLROOTCERT = "connection.sslrootcert";
  public static final String SSLCERT = "connection.sslcert";
  public static final String SSLKEY = "connection.sslkey";
  public static final String SSLPASSWORD = "connection.sslpassword";

  public static final String MAPPING = "relation.mapping";
  public static final String ALLOWLIST = "relation.allowlist";
  public static final String CREATE_TABLES = "target.tables.create";

  public static final String INSERT_CONFLICT = "insert.conflict";
  public static final String SNAPSHOT_TARGET_NONEMPTY = "snapshot.target.nonempty";
  public static final String SNAPSHOT_APPLY = "snapshot.apply";
  public static final String MISSING_ROW = "apply.missing_row";
  public static final String DDL_APPLY = "ddl.apply";
  public static final String DDL_REPLAY_TRUST = "ddl.replay.trust.topic.writers";
  public static final String SCHEMA_EVOLUTION = "schema.evolution";
  public static final String DROP_COLUMNS = "schema.evolution.drop.columns";
  public static final String GROUP_MAX = "apply.group.max.transactions";
  public static final String GROUP_MAX_CHANGES = "apply.group.max.changes";
  public static final String SYNC_COMMIT = "apply.synchronous_commit";
  public static final String COPY_THRESHOLD = "apply.copy.threshold.rows";

  public static final String RETRY_DURATION_MS = "retry.max.duration.ms";
  public static final String BARRIER_MAX_WAIT_MS = "barrier.max.wait.ms";
  public static final String APPLY_STALL_TIMEOUT_MS = "apply.stall.timeout.ms";
  public static final String STAGING_LANE_MAX_BYTES = "staging.lane.max.bytes";
  public static final String LANES_HOLD_MAX_BYTES = "lanes.hold.max.bytes";
  public static final String RETRY_BACKOFF_MS = "retry.backoff.initial.ms";
  public static final String RETRY_BACKOFF_MAX_MS = "retry.backoff.max.ms";

  static final List<String> SSLMODES =
      List.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full");

  public static final ConfigDef CONFIG_DEF = define();

  private static ConfigDef define() {
    ConfigDef d = new ConfigDef();
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

    o = 0;
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
            + " chooses which tables a record names. The sink's own schema (trellara_sink) and the system"
            + " schemas are never written, whatever this says.",
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

    o = 0;
    d.define(
        INSERT_CONFLICT,
        Type.STRING,
        "fail",
        ConfigDef.ValidString.in("fail", "upsert"),
        Importance.MEDIUM,
        "An insert whose key exists on the target: 'fail' stops the task (the target diverged), 'upsert'"
            + " updates the existing row.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Insert conflict",
        recommender(List.of("fail", "upsert")));
    d.define(
        SNAPSHOT_TARGET_NONEMPTY,
        Type.STRING,
        "fail",
        ConfigDef.ValidString.in("fail", "truncate", "upsert"),
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
        recommender(List.of("fail", "truncate", "upsert")));
    d.define(
        SNAPSHOT_APPLY,
        Type.STRING,
        "atomic",
        ConfigDef.ValidString.in("atomic", "per_table"),
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
        recommender(List.of("atomic", "per_table")));
    d.define(
        MISSING_ROW,
        Type.STRING,
        "fail",
        ConfigDef.ValidString.in("fail", "ignore"),
        Importance.MEDIUM,
        "An update or delete that matches no target row: 'fail' stops the task, 'ignore' counts and skips"
            + " it.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Missing row",
        recommender(List.of("fail", "ignore")));
    d.define(
        DDL_APPLY,
        Type.STRING,
        "structured",
        ConfigDef.ValidString.in("structured", "skip", "fail", "replay"),
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
        recommender(List.of("structured", "skip", "fail", "replay")));
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
        ConfigDef.ValidString.in("auto", "none"),
        Importance.MEDIUM,
        "'auto' derives ALTER TABLE from the column definitions on the wire when a captured table's schema"
            + " version changes: adds columns, changes column types and (see "
            + "schema.evolution.drop.columns"
            + ") drops columns, with the target's own spelling of each type. A key change, a type the"
            + " target lacks or a possible rename stops the task naming the table and the change."
            + " 'none' never alters a target table.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Schema evolution",
        recommender(List.of("auto", "none")));
    d.define(
        DROP_COLUMNS,
        Type.STRING,
        "keep",
        ConfigDef.ValidString.in("keep", "drop"),
        Importance.LOW,
        "A column the source no longer has: 'keep' leaves the target column and its values, 'drop' drops"
            + " it.",
        GROUP_APPLY,
        ++o,
        Width.SHORT,
        "Dropped columns",
        recommender(List.of("keep", "drop")));
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
        ConfigDef.ValidString.in("on", "off"),
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
        recommender(List.of("on", "off")));
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
            + " the last progress of each stage are in JMX (StageSecondsSinceProgress).",
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
            + " lost worker's lanes, or for ever with barrier.max.wait.ms=0). The lanes the waiting barrier"
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

    o = 0;
    d.define(
        RETRY_DURATION_MS,
        Type.LONG,
        600_000L,
        ConfigDef.Range.atLeast(0),
        Importance.LOW,
        "How long a target transaction is retried on transient failures (connection loss, serialization"
            + " failure, deadlock, server starting or shutting down) before the task stops: a bound in time,"
            + " so a target outage up to this long is ridden out with nothing lost or applied twice.",
        GROUP_RETRIES,
        ++o,
        Width.SHORT,
        "Max retry time (ms)");
    d.define(
        RETRY_BACKOFF_MS,
        Type.LONG,
        200L,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "First retry delay, doubled per attempt.",
        GROUP_RETRIES,
        ++o,
        Width.SHORT,
        "Initial backoff (ms)");
    d.define(
        RETRY_BACKOFF_MAX_MS,
        Type.LONG,
        2_000L,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "Largest retry delay. Short so that a target that comes back is written to within about two"
            + " seconds however long it was away; an attempt is one connection and a login, and after the"
            + " first three a long outage logs one line per 30 s.",
        GROUP_RETRIES,
        ++o,
        Width.SHORT,
        "Max backoff (ms)");
    return d;
  }

  static ConfigDef.Recommender recommender(List<?> values) {
    return ConfigRecommenders.fixed(values);
  }

  public TrellaraSinkConfig(Map<?, ?> props) {
    super(CONFIG_DEF, props);
  }

  Properties driverProperties() {
    Properties p = new Properties();
    p.setProperty("sslmode", getString(SSLMODE));
    putIfSet(p, "sslrootcert", getString(SSLROOTCERT));
    putIfSet(p, "sslcert", getString(SSLCERT));
    putIfSet(p, "sslkey", getString(SSLKEY));
    putIfSet(p, "sslpassword", secret(getPassword(SSLPASSWORD)));
    return p;
  }

  private static void putIfSet(Properties p, String key, String value) {
    if (value != null && !value.isBlank()) {
      p.setProperty(key, value);
    }
  }

  static String secret(Password p) {
    return p == null ? "" : p.value();
  }

  ApplyOptions applyOptions(String sinkName) {
    return ApplyOptions.builder(sinkName)
        .groupMaxTransactions(getInt(GROUP_MAX))
        .groupMaxChanges(getInt(GROUP_MAX_CHANGES))
        .synchronousCommitOff("off".equals(getString(SYNC_COMMIT)))
        .insertConflict(
            InsertConflictPolicy.valueOf(getString(INSERT_CONFLICT).toUpperCase(Locale.ROOT)))
        .missingRow(MissingRowPolicy.valueOf(getString(MISSING_ROW).toUpperCase(Locale.ROOT)))
        .ddlPolicy(DdlPolicy.valueOf(getString(DDL_APPLY).toUpperCase(Locale.ROOT)))
        .schemaEvolution(
            SchemaEvolutionMode.valueOf(getString(SCHEMA_EVOLUTION).toUpperCase(Locale.ROOT)))
        .dropColumns(DropColumnsPolicy.valueOf(getString(DROP_COLUMNS).toUpperCase(Locale.ROOT)))
        .createMissingTables(getBoolean(CREATE_TABLES))
        .copyThreshold(getInt(COPY_THRESHOLD))
        .maxRetryDuration(Duration.ofMillis(getLong(RETRY_DURATION_MS)))
        .stallTimeout(Duration.ofMillis(getLong(APPLY_STALL_TIMEOUT_MS)))
        .initialBackoff(Duration.ofMillis(getLong(RETRY_BACKOFF_MS)))
        .maxBackoff(Duration.ofMillis(getLong(RETRY_BACKOFF_MAX_MS)))
        .snapshotTarget(
            SnapshotTargetPolicy.valueOf(
                getString(SNAPSHOT_TARGET_NONEMPTY).toUpperCase(Locale.ROOT)))
        .snapshotApply(
            SnapshotApplyMode.valueOf(getString(SNAPSHOT_APPLY).toUpperCase(Locale.ROOT)))
        .build();
  }

  RelationMapper relationMapper() {
    RelationMapper.Builder b = RelationMapper.builder();
    for (String entry : getList(MAPPING)) {
      int colon = entry.indexOf(':');
      if (colon <= 0 || colon == entry.length() - 1) {
        throw new ConfigException(
            MAPPING, entry, "expected source_schema.source_table:target_schema.target_table");
      }
      b.map(entry.substring(0, colon).trim(), entry.substring(colon + 1).trim());
    }
    b.allow(getList(ALLOWLIST)); // empty: nothing may be written (the rules refuse it before start)
    return b.build();
  }
}
