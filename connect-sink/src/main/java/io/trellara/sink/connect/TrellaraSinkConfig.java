package io.trellara.sink.connect;

import io.trellara.connect.common.ConfigChoices;
import io.trellara.connect.common.ConfigRecommenders;
import io.trellara.connect.common.TlsDefinitions;
import io.trellara.connect.common.auth.AuthDefinitions;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.DdlPolicy;
import io.trellara.sink.postgres.settings.DropColumnsPolicy;
import io.trellara.sink.postgres.settings.FlowBounds;
import io.trellara.sink.postgres.settings.InsertConflictPolicy;
import io.trellara.sink.postgres.settings.MissingRowPolicy;
import io.trellara.sink.postgres.settings.SchemaEvolutionMode;
import io.trellara.sink.postgres.settings.SnapshotApplyMode;
import io.trellara.sink.postgres.settings.SnapshotTargetPolicy;
import io.trellara.sink.postgres.settings.SynchronousCommit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** Every setting of the sink connector: one name constant, one doc, one default, one definition. */
public final class TrellaraSinkConfig extends AbstractConfig {
  static final String GROUP_CONNECTION = "Connection";
  static final String GROUP_MAPPING = "Mapping";
  static final String GROUP_APPLY = "Apply";
  static final String GROUP_RETRIES = "Retries";
  static final String GROUP_FLOWS = "Flows";

  public static final String URL = "connection.url";
  public static final String USER = "connection.user";
  public static final String PASSWORD = "connection.password";

  /** The prefix of the TLS settings ({@link TlsDefinitions}). */
  public static final String CONNECTION_PREFIX = "connection.";

  public static final String SSLMODE = CONNECTION_PREFIX + TlsDefinitions.SSLMODE;
  public static final String SSLROOTCERT = CONNECTION_PREFIX + TlsDefinitions.SSLROOTCERT;
  public static final String SSLCERT = CONNECTION_PREFIX + TlsDefinitions.SSLCERT;
  public static final String SSLKEY = CONNECTION_PREFIX + TlsDefinitions.SSLKEY;
  public static final String SSLPASSWORD = CONNECTION_PREFIX + TlsDefinitions.SSLPASSWORD;

  public static final String MAPPING = "relation.mapping";
  public static final String ALLOWLIST = "relation.allowlist";
  public static final String CREATE_TABLES = "target.tables.create";
  public static final String TYPES_ALLOWED = "target.types.allowed";

  public static final String INSERT_CONFLICT = "insert.conflict";
  public static final String SNAPSHOT_TARGET_NONEMPTY = "snapshot.target.nonempty";
  public static final String SNAPSHOT_APPLY = "snapshot.apply";
  public static final String MISSING_ROW = "apply.missing_row";
  public static final String DDL_APPLY = "ddl.apply";
  public static final String DDL_REPLAY_TRUST = "ddl.replay.trust.topic.writers";
  public static final String SCHEMA_EVOLUTION = "schema.evolution";
  public static final String DROP_COLUMNS = "schema.evolution.drop.columns";
  public static final String LOSSY_TABLES = "schema.evolution.lossy.tables";
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

  public static final String SOURCE_IDS = "source.ids";
  public static final String DATASET_IDS = "dataset.ids";
  public static final String ORDER_MAX_LSN_ADVANCE = "order.max.lsn.advance.bytes";
  public static final String STAGING_RETENTION_MS = "staging.retention.ms";
  public static final String STAGING_FLOW_MAX_BYTES = "staging.flow.max.bytes";

  public static final ConfigDef CONFIG_DEF = define();

  private static ConfigDef define() {
    ConfigDef d = new ConfigDef();
    SinkConnectionDefinitions.define(d);
    SinkApplyDefinitions.define(d);
    SinkRetryDefinitions.define(d);
    SinkFlowDefinitions.define(d);
    AuthDefinitions.define(d, false);
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
        .synchronousCommitOff(
            ConfigChoices.of(SynchronousCommit.class, getString(SYNC_COMMIT))
                == SynchronousCommit.OFF)
        .insertConflict(ConfigChoices.of(InsertConflictPolicy.class, getString(INSERT_CONFLICT)))
        .missingRow(ConfigChoices.of(MissingRowPolicy.class, getString(MISSING_ROW)))
        .ddlPolicy(ConfigChoices.of(DdlPolicy.class, getString(DDL_APPLY)))
        .schemaEvolution(ConfigChoices.of(SchemaEvolutionMode.class, getString(SCHEMA_EVOLUTION)))
        .dropColumns(ConfigChoices.of(DropColumnsPolicy.class, getString(DROP_COLUMNS)))
        .createMissingTables(getBoolean(CREATE_TABLES))
        .allowedTypes(getList(TYPES_ALLOWED))
        .lossyTables(getList(LOSSY_TABLES))
        .copyThreshold(getInt(COPY_THRESHOLD))
        .maxRetryDuration(Duration.ofMillis(getLong(RETRY_DURATION_MS)))
        .stallTimeout(Duration.ofMillis(getLong(APPLY_STALL_TIMEOUT_MS)))
        .initialBackoff(Duration.ofMillis(getLong(RETRY_BACKOFF_MS)))
        .maxBackoff(Duration.ofMillis(getLong(RETRY_BACKOFF_MAX_MS)))
        .snapshotTarget(
            ConfigChoices.of(SnapshotTargetPolicy.class, getString(SNAPSHOT_TARGET_NONEMPTY)))
        .snapshotApply(ConfigChoices.of(SnapshotApplyMode.class, getString(SNAPSHOT_APPLY)))
        .flowBounds(
            new FlowBounds(
                getLong(ORDER_MAX_LSN_ADVANCE),
                java.util.Set.copyOf(getList(SOURCE_IDS)),
                java.util.Set.copyOf(getList(DATASET_IDS)),
                Duration.ofMillis(getLong(STAGING_RETENTION_MS)),
                getLong(STAGING_FLOW_MAX_BYTES)))
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
