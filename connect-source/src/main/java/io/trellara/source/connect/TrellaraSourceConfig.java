package io.trellara.source.connect;

import io.trellara.connect.common.ConfigChoices;
import io.trellara.connect.common.ConfigRecommenders;
import io.trellara.connect.common.SslMode;
import io.trellara.connect.common.TlsDefinitions;
import io.trellara.source.replication.BoundarySettings;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import io.trellara.source.routing.OwnershipKeys;
import io.trellara.source.snapshot.SnapshotMode;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
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

  /** The prefix of the TLS settings ({@link TlsDefinitions}). */
  public static final String DATABASE_PREFIX = "database.";

  public static final String SSLMODE = DATABASE_PREFIX + TlsDefinitions.SSLMODE;
  public static final String SSLROOTCERT = DATABASE_PREFIX + TlsDefinitions.SSLROOTCERT;
  public static final String SSLCERT = DATABASE_PREFIX + TlsDefinitions.SSLCERT;
  public static final String SSLKEY = DATABASE_PREFIX + TlsDefinitions.SSLKEY;
  public static final String SSLPASSWORD = DATABASE_PREFIX + TlsDefinitions.SSLPASSWORD;

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
  public static final String HEARTBEAT_ACTION_QUERY = "heartbeat.action.query";
  public static final String SLOT_LAG_WARN_BYTES = "slot.lag.warn.bytes";
  public static final String SLOT_DROP_ON_STOP = "slot.drop.on.stop";
  public static final String SLOT_FAILOVER = "slot.failover";
  public static final String SNAPSHOT_MODE = "snapshot.mode";
  public static final String SNAPSHOT_MAX_THREADS = "snapshot.max.threads";
  public static final String SNAPSHOT_KEY_RANGE_ROWS = "snapshot.key.range.rows";
  public static final String SIGNAL_TABLE = "signal.table";
  public static final String SIGNAL_KAFKA_TOPIC = "signal.kafka.topic";
  public static final String SIGNAL_KAFKA_BOOTSTRAP_SERVERS = "signal.kafka.bootstrap.servers";
  public static final String SIGNAL_KAFKA_GROUP_ID = "signal.kafka.group.id";

  /** Entries under this prefix go, without it, to the signal topic's consumer. */
  public static final String SIGNAL_KAFKA_CONSUMER_PREFIX = "signal.kafka.consumer.";

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
  public static final String DDL_MESSAGE_ROLES = "ddl.message.roles";
  public static final String SPILL_DIRECTORY = "spill.directory";
  public static final String SPILL_THRESHOLD_BYTES = "spill.threshold.bytes";
  public static final String QUEUE_MAX_RECORDS = "capture.queue.max.records";
  public static final String QUEUE_MAX_BYTES = "capture.queue.max.bytes";
  public static final String STALL_TIMEOUT_MS = "capture.stall.timeout.ms";

  public static final String MODE_STRICT = DatasetMode.STRICT.configName();
  public static final String MODE_PARTITIONED = DatasetMode.PARTITIONED.configName();
  public static final String AUTOCREATE_FILTERED = PublicationAutocreate.FILTERED.configName();
  public static final String AUTOCREATE_DISABLED = PublicationAutocreate.DISABLED.configName();
  static final List<String> SSLMODES = ConfigChoices.names(SslMode.class);

  public static final ConfigDef CONFIG_DEF = define();

  public SnapshotMode snapshotMode() {
    return SnapshotMode.of(getString(SNAPSHOT_MODE));
  }

  private static ConfigDef define() {
    ConfigDef d = new ConfigDef();
    ConnectionDefinitions.define(d);
    ReplicationDefinitions.define(d);
    FlowDefinitions.define(d);
    SignalDefinitions.define(d);
    io.trellara.connect.common.auth.AuthDefinitions.define(d, true);
    return d;
  }

  static ConfigDef.Recommender recommender(List<?> values) {
    return ConfigRecommenders.fixed(values);
  }

  public TrellaraSourceConfig(Map<?, ?> props) {
    super(CONFIG_DEF, props);
  }

  /** The connector's name as Kafka Connect passes it in the connector's config. */
  static final String CONNECTOR_NAME = "name";

  /** {@link #SOURCE_ID}, or the connector's name when empty (empty when neither is given). */
  public String sourceId() {
    String id = getString(SOURCE_ID).trim();
    Object name = originals().get(CONNECTOR_NAME);
    return id.isEmpty() && name != null ? name.toString().trim() : id;
  }

  /** {@link #DATABASE_ID}, or {@link #DBNAME} when empty. */
  public String databaseId() {
    String id = getString(DATABASE_ID).trim();
    return id.isEmpty() ? getString(DBNAME).trim() : id;
  }

  /** {@link #DATASET_ID}, or {@link #DBNAME} when empty. */
  public String datasetId() {
    String id = getString(DATASET_ID).trim();
    return id.isEmpty() ? getString(DBNAME).trim() : id;
  }

  /**
   * True when {@link #KAFKA_BOOTSTRAP_SERVERS} is set: the source creates and verifies its topics
   * with its own Admin client and reads its strict topic's tail at start. False: Connect's topic
   * creation makes the topics and the acknowledgements are checked instead ({@link
   * BrokerlessRules}, {@link AcknowledgementCheck}).
   */
  public boolean ownKafkaAccess() {
    return !getString(KAFKA_BOOTSTRAP_SERVERS).isBlank();
  }

  public boolean partitioned() {
    return MODE_PARTITIONED.equals(getString(DATASET_MODE));
  }

  public String partitionedTopic() {
    String t = getString(TOPIC_PARTITIONED);
    return t.isBlank() ? "trellara." + datasetId() + ".partitioned" : t;
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
    return t.isBlank() ? "trellara." + datasetId() + ".strict" : t;
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

  String largestRecordText() {
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
   * Kafka Connect's {@code topic.creation.*} settings of the connector, which the source applies to
   * the topics it creates (see {@link TopicCreationRules}).
   *
   * @throws io.trellara.source.kafka.TopicCreationGroups.InvalidSetting when an include or exclude
   *     is not a regular expression
   */
  public io.trellara.source.kafka.TopicCreationGroups topicCreation() {
    return io.trellara.source.kafka.TopicCreationGroups.of(
        originalsWithPrefix(io.trellara.source.kafka.TopicCreationGroups.PREFIX));
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
    return SourceConfigRules.frameworkErrors(originals);
  }

  /**
   * Cross-field rules, written once: reported by validate() and enforced at start. Empty when fine.
   */
  public List<String[]> crossFieldErrors() {
    return SourceConfigRules.crossFieldErrors(this);
  }
}
