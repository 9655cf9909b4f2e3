package io.trellara.source.connect;

import static io.trellara.source.connect.TrellaraSourceConfig.*;

import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.kafka.SourceTopics;
import io.trellara.source.kafka.TopicTailReader;
import io.trellara.source.pg.PgEndpoint;
import io.trellara.source.pg.WalGuard;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.signal.MalformedSignalException;
import io.trellara.source.signal.Signal;
import io.trellara.source.signal.SignalParser;
import io.trellara.source.snapshot.SnapshotReads;
import io.trellara.source.startup.SourceStartup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.common.config.types.Password;

/**
 * Translates the Connect configuration into the engine's settings, and reports errors on
 * ConfigValues.
 */
final class SourceSettingsMapper {
  private SourceSettingsMapper() {}

  static SourceSettings settings(TrellaraSourceConfig c) {
    PgEndpoint endpoint =
        new PgEndpoint(
            c.getString(HOSTNAME),
            c.getInt(PORT),
            c.getString(DBNAME),
            c.getString(USER),
            c.password(),
            c.getString(SSLMODE),
            c.getString(SSLROOTCERT),
            c.getString(SSLCERT),
            c.getString(SSLKEY),
            secret(c.getPassword(SSLPASSWORD)),
            c.getBoolean(SLOT_FAILOVER));
    return new SourceSettings(
        endpoint,
        c.sourceId(),
        c.databaseId(),
        c.datasetId(),
        c.getString(SLOT_NAME),
        c.getString(PUBLICATION_NAME),
        AUTOCREATE_FILTERED.equals(c.getString(PUBLICATION_AUTOCREATE)),
        c.getList(TABLE_INCLUDE_LIST),
        c.getInt(PROTOCOL_VERSION),
        c.streaming(),
        c.getLong(STATUS_INTERVAL_MS),
        c.getLong(RECONNECT_MAX_DURATION_MS),
        c.getLong(HEARTBEAT_INTERVAL_MS),
        c.getBoolean(DDL_CAPTURE),
        c.getBoolean(DDL_INSTALL),
        c.spillDirectory(),
        c.getLong(SPILL_THRESHOLD_BYTES),
        c.getInt(MAX_ENVELOPE_BYTES),
        c.getInt(QUEUE_MAX_RECORDS),
        c.getLong(QUEUE_MAX_BYTES),
        c.boundary(),
        // the roles as configured; the start resolves an empty list to the tables' owners
        CapturedTables.NONE.withDdlRoles(Set.copyOf(c.getList(DDL_MESSAGE_ROLES))),
        new SnapshotReads(c.getInt(SNAPSHOT_MAX_THREADS), c.getLong(SNAPSHOT_KEY_RANGE_ROWS)),
        c.getLong(STALL_TIMEOUT_MS),
        new WalGuard(c.getLong(SLOT_LAG_WARN_BYTES), c.getString(HEARTBEAT_ACTION_QUERY)));
  }

  /** Records read back at most from each partition of the source's topics at start. */
  static final int TAIL_MAX_RECORDS_PER_PARTITION = 50_000;

  /**
   * What the start needs besides the engine's settings; the topics' tail is read with the Admin
   * client's brokers and security settings, within {@code topic.check.timeout.ms}.
   */
  static SourceStartup.Options startupOptions(TrellaraSourceConfig c, String connector) {
    return new SourceStartup.Options(
        c.snapshotMode(),
        c.getBoolean(OFFSETS_ACCEPT_NEW_HISTORY),
        connector,
        !c.ownKafkaAccess()
            ? null // no brokers of its own: nothing to read the tail with (BrokerlessRules)
            : new TopicTailReader.Settings(
                c.adminConfig(),
                c.strictTopic(),
                c.partitioned() ? c.partitionedTopic() : null,
                c.partitioned() ? c.getInt(PARTITION_COUNT) : 0,
                Duration.ofMillis(c.getInt(TOPIC_CHECK_TIMEOUT_MS)),
                TAIL_MAX_RECORDS_PER_PARTITION),
        signalTable(c.getString(TrellaraSourceConfig.SIGNAL_TABLE)),
        SignalDefinitions.settings(c, connector));
  }

  /** {@code signal.table} parsed (its validator has checked it), or null when empty. */
  static Signal.TableRequest signalTable(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      return SignalParser.tableName(value);
    } catch (MalformedSignalException e) {
      throw new org.apache.kafka.common.config.ConfigException(
          TrellaraSourceConfig.SIGNAL_TABLE, value, e.getMessage());
    }
  }

  /**
   * What the source's topics must be: strict (1 partition) and, partitioned, the lane topic; each
   * created as the connector's {@code topic.creation.*} settings ask (see {@link
   * TopicCreationRules}).
   */
  static SourceTopics.Plan topicPlan(TrellaraSourceConfig c) {
    io.trellara.source.kafka.TopicCreationGroups groups = c.topicCreation();
    return new SourceTopics.Plan(
        requiredTopics(c).stream().map(r -> TopicCreationRules.applied(c, groups, r)).toList(),
        c.adminConfig(),
        c.getInt(TOPIC_REPLICATION_FACTOR).shortValue(),
        Duration.ofMillis(c.getInt(TOPIC_CHECK_TIMEOUT_MS)),
        KAFKA_BOOTSTRAP_SERVERS,
        TOPIC_CHECK_TIMEOUT_MS);
  }

  /** The topics and what their records need, before the user's topic.creation.* settings. */
  static List<SourceTopics.Requirement> requiredTopics(TrellaraSourceConfig c) {
    long needed = c.largestRecordBytes();
    String sizeRule =
        "max.message.bytes >= "
            + needed
            + " ("
            + c.largestRecordSetting()
            + " plus "
            + RECORD_OVERHEAD_BYTES
            + " bytes of record overhead)";
    List<SourceTopics.Requirement> topics = new ArrayList<>();
    topics.add(
        new SourceTopics.Requirement(
            c.strictTopic(),
            TOPIC_STRICT,
            1,
            "the strict topic (one partition: commit order)",
            needed,
            sizeRule));
    if (c.partitioned()) {
      int lanes = c.getInt(PARTITION_COUNT);
      topics.add(
          new SourceTopics.Requirement(
              c.partitionedTopic(),
              TOPIC_PARTITIONED,
              lanes,
              PARTITION_COUNT + "=" + lanes,
              needed,
              sizeRule));
    }
    return topics;
  }

  private static String secret(Password p) {
    return p == null ? "" : p.value();
  }

  static Map<String, ConfigValue> byName(Config config) {
    Map<String, ConfigValue> m = new LinkedHashMap<>();
    config.configValues().forEach(v -> m.put(v.name(), v));
    return m;
  }

  /**
   * Adds an error to the setting's ConfigValue, creating it (and listing it in the Config) when
   * absent.
   */
  static void error(Config config, Map<String, ConfigValue> values, String name, String message) {
    ConfigValue v = values.get(name);
    if (v == null) {
      v = new ConfigValue(name);
      values.put(name, v);
      config.configValues().add(v);
    }
    v.addErrorMessage(message);
  }
}
