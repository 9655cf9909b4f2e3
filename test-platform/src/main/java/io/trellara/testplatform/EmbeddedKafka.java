package io.trellara.testplatform;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded {@link TestServers.Kafka}: one KRaft node in this JVM acting as broker and
 * controller, PLAINTEXT on a free loopback port. Started the way Kafka's own scripts do it: {@code
 * kafka-storage format} ({@link StorageTool}) then {@link KafkaRaftServer#startup()}.
 */
final class EmbeddedKafka implements TestServers.Kafka {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

  private final Map<String, String> overrides;
  private final java.util.List<KafkaBroker.Builder.Listener> listeners;
  private final Path logDir;
  private final int brokerPort;
  private final int controllerPort;
  private KafkaRaftServer server;
  private boolean formatted;

  EmbeddedKafka(KafkaBroker.Builder builder) {
    this.overrides = Map.copyOf(builder.overrides);
    this.listeners = java.util.List.copyOf(builder.listeners);
    this.brokerPort = builder.port > 0 ? builder.port : FreePorts.next();
    this.controllerPort = FreePorts.next();
    try {
      this.logDir = Files.createTempDirectory("trellara-kafka-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a log directory for Kafka", e);
    }
  }

  @Override
  public String bootstrapServers() {
    return "127.0.0.1:" + brokerPort;
  }

  /** Formats the storage (first time) and starts the node. */
  @Override
  public synchronized void start() {
    if (server != null) {
      return;
    }
    long started = System.nanoTime();
    KafkaJvmGuards.installExitGuards();
    Map<String, String> props = brokerProperties();
    long[] phases = new long[2];
    server =
        withRootLocale(
            () -> {
              if (!formatted) {
                format(props);
                formatted = true;
              }
              phases[0] = System.nanoTime();
              KafkaRaftServer raftServer =
                  new KafkaRaftServer(new KafkaConfig(props, false), Time.SYSTEM);
              raftServer.startup();
              phases[1] = System.nanoTime();
              return raftServer;
            });
    LOG.debug(
        "embedded Kafka at {}: format {} ms, startup {} ms",
        bootstrapServers(),
        (phases[0] - started) / 1_000_000,
        (phases[1] - phases[0]) / 1_000_000);
  }

  /**
   * Kafka 4.4's {@code KafkaConfig} upper-cases {@code group.coordinator.rebalance.protocols} with
   * the JVM's default locale: under a Turkish locale (our tests run with {@code
   * -Duser.language=tr}) "classic" becomes "CLASSİC" and the broker refuses to start. The broker's
   * configuration is therefore parsed under {@link Locale#ROOT}; the JVM's locale is restored right
   * after start-up.
   */
  private static <T> T withRootLocale(Supplier<T> action) {
    Locale display = Locale.getDefault(Locale.Category.DISPLAY);
    Locale format = Locale.getDefault(Locale.Category.FORMAT);
    Locale general = Locale.getDefault();
    synchronized (Locale.class) {
      try {
        Locale.setDefault(Locale.ROOT);
        return action.get();
      } finally {
        Locale.setDefault(general);
        Locale.setDefault(Locale.Category.DISPLAY, display);
        Locale.setDefault(Locale.Category.FORMAT, format);
      }
    }
  }

  private Map<String, String> brokerProperties() {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    StringBuilder listen =
        new StringBuilder(
            "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    StringBuilder advertised = new StringBuilder("PLAINTEXT://127.0.0.1:" + brokerPort);
    StringBuilder protocols = new StringBuilder("PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    for (KafkaBroker.Builder.Listener l : listeners) {
      listen.append(',').append(l.name()).append("://127.0.0.1:").append(l.port());
      advertised
          .append(',')
          .append(l.name())
          .append("://")
          .append(l.advertisedHost())
          .append(':')
          .append(l.advertisedPort());
      protocols.append(',').append(l.name()).append(":PLAINTEXT");
    }
    props.put("listeners", listen.toString());
    props.put("advertised.listeners", advertised.toString());
    props.put("controller.listener.names", "CONTROLLER");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put("listener.security.protocol.map", protocols.toString());
    props.put("log.dirs", logDir.toString());
    props.put("num.partitions", "1");
    props.put("default.replication.factor", "1");
    props.put("min.insync.replicas", "1");
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "5");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("transaction.state.log.num.partitions", "5");
    props.put("share.coordinator.state.topic.replication.factor", "1");
    props.put("share.coordinator.state.topic.min.isr", "1");
    props.put("group.initial.rebalance.delay.ms", "0");
    props.put("broker.heartbeat.interval.ms", "500");
    props.put("auto.create.topics.enable", "false");
    props.put("delete.topic.enable", "true");
    props.put("num.network.threads", "2");
    props.put("num.io.threads", "4");
    props.put("log.flush.interval.messages", Long.toString(Long.MAX_VALUE));
    props.put("message.max.bytes", Integer.toString(16 * 1024 * 1024));
    props.putAll(overrides);
    return props;
  }

  private void format(Map<String, String> props) {
    Path propsFile = propertiesFile();
    Properties properties = new Properties();
    properties.putAll(props);
    try (OutputStream out = Files.newOutputStream(propsFile)) {
      properties.store(out, "trellara test broker");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + propsFile, e);
    }
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    String[] args = {"format", "-t", Uuid.randomUuid().toString(), "-c", propsFile.toString()};
    int rc = StorageTool.execute(args, new PrintStream(output, true, StandardCharsets.UTF_8));
    if (rc != 0) {
      throw new IllegalStateException(
          "kafka-storage format failed (" + rc + "): " + output.toString(StandardCharsets.UTF_8));
    }
  }

  @Override
  public synchronized void stop() {
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
      server = null;
    }
  }

  @Override
  public synchronized void close() {
    stop();
    deleteQuietly(logDir);
    deleteQuietly(propertiesFile());
  }

  private Path propertiesFile() {
    return logDir.resolveSibling(logDir.getFileName() + ".properties");
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("could not delete {}: {}", dir, e.toString());
    }
  }
}
