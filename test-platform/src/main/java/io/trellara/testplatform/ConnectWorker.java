package io.trellara.testplatform;

import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.distributed.DistributedHerder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real distributed Kafka Connect 4.4 worker in this JVM ({@link
 * ConnectDistributed#startConnect}), with its REST API on a fixed loopback port that survives
 * {@link #restart()}.
 *
 * <p>Defaults: internal topics at replication factor 1 (one partition each), {@code
 * offset.flush.interval.ms} 1000, {@code scheduled.rebalance.max.delay.ms} 0 (a restarted worker
 * gets its connectors back at once), {@code connector.client.config.override.policy=All}
 * (connectors may set {@code consumer.override.*} / {@code producer.override.*}), {@code
 * ByteArrayConverter} for keys and values (connectors set their own), {@code
 * plugin.discovery=service_load}.
 *
 * <p>Plugin discovery: Kafka 4.4 finds classpath plugins (anything on this JVM's class path) and
 * {@code plugin.path} plugins with the same mechanism, chosen by {@code plugin.discovery}: {@code
 * service_load} uses only {@code META-INF/services/<plugin interface>} manifests (fast, and what
 * Kafka will default to); {@code only_scan}/{@code hybrid_*} also scan classes reflectively (slower
 * start). With the default, a connector class is usable by class name only if its jar or classes
 * directory has the manifest, e.g. {@code
 * META-INF/services/org.apache.kafka.connect.source.SourceConnector}.
 *
 * <p>Whoever starts a worker stops it: Connect's own JVM shutdown hook is suppressed (it raced the
 * ordered shutdown of {@link TrellaraStack} and hung the JVM exit when the broker went first).
 *
 * <p>{@link #stop()} is an orderly shutdown (tasks stopped, offsets flushed, the worker leaves the
 * group). A new worker on the same group id reads the config, offset and status topics and runs the
 * same connectors.
 */
public final class ConnectWorker implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectWorker.class);

  private final KafkaBroker broker;
  private final Map<String, String> properties;
  private final int restPort;
  private volatile Connect<DistributedHerder> connect;
  private volatile URI restUrl;

  private ConnectWorker(Builder builder) {
    this.broker = builder.broker;
    this.restPort = builder.restPort > 0 ? builder.restPort : FreePorts.next();
    this.properties = workerProperties(builder, restPort);
  }

  public static Builder builder(KafkaBroker broker) {
    return new Builder(broker);
  }

  static Map<String, String> workerProperties(Builder builder, int restPort) {
    KafkaBroker broker = builder.broker;
    String group = builder.groupId;
    Map<String, String> props = new LinkedHashMap<>();
    props.put("bootstrap.servers", broker.bootstrapServers());
    props.put("group.id", group);
    props.put("config.storage.topic", group + "-configs");
    props.put("offset.storage.topic", group + "-offsets");
    props.put("status.storage.topic", group + "-status");
    props.put("config.storage.replication.factor", "1");
    props.put("offset.storage.replication.factor", "1");
    props.put("status.storage.replication.factor", "1");
    props.put("offset.storage.partitions", "1");
    props.put("status.storage.partitions", "1");
    props.put("offset.flush.interval.ms", "1000");
    props.put("scheduled.rebalance.max.delay.ms", "0");
    props.put("connector.client.config.override.policy", "All");
    props.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    props.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    props.put("header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter");
    props.put("plugin.discovery", "service_load");
    props.put("listeners", "http://127.0.0.1:" + restPort);
    props.put("rest.advertised.host.name", "127.0.0.1");
    props.put("rest.advertised.port", Integer.toString(restPort));
    props.put("task.shutdown.graceful.timeout.ms", "5000");
    // secrets as operators pass them: ${file:PATH:KEY} and ${env:NAME} in connector settings
    props.put("config.providers", "file,env");
    props.put(
        "config.providers.file.class",
        "org.apache.kafka.common.config.provider.FileConfigProvider");
    props.put(
        "config.providers.env.class",
        "org.apache.kafka.common.config.provider.EnvVarConfigProvider");
    props.putAll(builder.overrides);
    return Map.copyOf(props);
  }

  /** Starts the worker; returns once the REST server answers (connectors may still be starting). */
  public synchronized ConnectWorker start() {
    if (connect != null) {
      return this;
    }
    long started = System.nanoTime();
    KafkaJvmGuards.installExitGuards();
    Connect<DistributedHerder> started1 =
        KafkaJvmGuards.withoutKafkaShutdownHooks(
            () -> new ConnectDistributed().startConnect(properties));
    connect = started1;
    restUrl = started1.rest().serverUrl();
    rest().awaitReady();
    LOG.info(
        "Connect worker {} up at {} in {} ms",
        properties.get("group.id"),
        restUrl,
        (System.nanoTime() - started) / 1_000_000);
    return this;
  }

  /** Orderly stop: tasks stopped, offsets committed, the worker leaves its group. */
  public synchronized void stop() {
    Connect<DistributedHerder> running = connect;
    if (running == null) {
      return;
    }
    connect = null;
    running.stop();
    running.awaitStop();
  }

  /** Stops this worker and starts a new one with the same properties (group, topics, REST port). */
  public ConnectWorker restart() {
    stop();
    return start();
  }

  public boolean isRunning() {
    return connect != null;
  }

  /** The REST base URL, e.g. {@code http://127.0.0.1:41234/}; stable across restarts. */
  public URI restUrl() {
    URI url = restUrl;
    return url != null ? url : URI.create("http://127.0.0.1:" + restPort + "/");
  }

  /** A REST client for this worker (cheap; create freely). */
  public ConnectRestClient rest() {
    return new ConnectRestClient(restUrl());
  }

  public String groupId() {
    return properties.get("group.id");
  }

  /** The effective worker properties. */
  public Map<String, String> properties() {
    return properties;
  }

  public KafkaBroker broker() {
    return broker;
  }

  @Override
  public void close() {
    stop();
  }

  @Override
  public String toString() {
    return "ConnectWorker["
        + groupId()
        + " @ "
        + restUrl()
        + (isRunning() ? "" : ", stopped")
        + "]";
  }

  /** Worker settings. */
  public static final class Builder {
    final KafkaBroker broker;
    private String groupId = "connect-" + Names.randomSuffix();
    int restPort;
    final java.util.List<String> jvmArgs = new java.util.ArrayList<>();
    private final Map<String, String> overrides = new LinkedHashMap<>();

    private Builder(KafkaBroker broker) {
      this.broker = broker;
    }

    /** Worker group id; also names the internal topics {@code <group>-configs|offsets|status}. */
    public Builder groupId(String groupId) {
      this.groupId = groupId;
      return this;
    }

    /** Fixed REST port (e.g. 8083 for the quickstart); default a free one, kept across restarts. */
    public Builder restPort(int port) {
      this.restPort = port;
      return this;
    }

    /**
     * {@code service_load} (default), {@code only_scan}, {@code hybrid_warn} or {@code
     * hybrid_fail}.
     */
    public Builder pluginDiscovery(String mode) {
      return set("plugin.discovery", mode);
    }

    /**
     * Directories/archives of isolated plugins, e.g. an unpacked plugin archive's parent directory.
     */
    public Builder pluginPath(Path... paths) {
      StringBuilder joined = new StringBuilder();
      for (Path p : paths) {
        joined.append(joined.length() == 0 ? "" : ",").append(p.toAbsolutePath());
      }
      return set("plugin.path", joined.toString());
    }

    /**
     * Exactly-once support for source connectors (KIP-618, {@code
     * exactly.once.source.support=enabled}): each source task writes through a transactional
     * producer and commits its offsets in its Kafka transactions. The embedded broker's transaction
     * state log is already at replication factor 1 and min ISR 1, which one broker needs. Off by
     * default: existing tests keep Connect's at-least-once delivery.
     */
    public Builder exactlyOnceSource() {
      return set("exactly.once.source.support", "enabled");
    }

    public Builder keyConverter(String className) {
      return set("key.converter", className);
    }

    public Builder valueConverter(String className) {
      return set("value.converter", className);
    }

    /** Any other worker property. */
    public Builder set(String key, String value) {
      overrides.put(key, value);
      return this;
    }

    /** A JVM option for {@link #buildProcess()} (e.g. {@code -Xmx256m}); ignored in-JVM. */
    public Builder jvmArg(String arg) {
      jvmArgs.add(arg);
      return this;
    }

    public ConnectWorker build() {
      return new ConnectWorker(this);
    }

    /**
     * The same worker as a separate JVM process (kill -9, own heap limit); see {@link
     * ConnectWorkerProcess}.
     */
    public ConnectWorkerProcess buildProcess() {
      return new ConnectWorkerProcess(this);
    }

    public ConnectWorker start() {
      return build().start();
    }
  }
}
