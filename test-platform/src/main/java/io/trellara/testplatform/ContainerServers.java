package io.trellara.testplatform;

import com.github.dockerjava.api.DockerClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.awaitility.Awaitility;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The {@code testcontainers} platform: stock images at stock settings, one container per server.
 *
 * <ul>
 *   <li>PostgreSQL: {@value #POSTGRES_IMAGE} with only what logical replication needs ({@code
 *       wal_level=logical} and 40 replication slots and WAL senders, as the embedded servers have;
 *       everything else, fsync included, as the image ships it). Superuser {@code postgres} (it has
 *       REPLICATION), password authentication.
 *   <li>Kafka: {@code apache/kafka} of the root pom's {@code kafka.version} ({@code
 *       images.properties}), at the settings of Testcontainers' {@link KafkaContainer}: Kafka's
 *       defaults (topic auto-creation on, 1 MB records) plus what one node needs (internal topics
 *       at replication factor 1).
 * </ul>
 *
 * <p>Fault tests stop and start a server and expect it back at the same address, with its data:
 * {@code stop()} is {@code docker stop} (PostgreSQL's image stops with SIGINT, a fast shutdown;
 * Kafka's with SIGTERM, a controlled one) and {@code start()} is {@code docker start} of the same
 * container. Docker gives a restarted container new random host ports, so each container is
 * published on a fixed host port picked free at build time (not a {@link TcpProxy}: Kafka
 * advertises its host port to clients, and a proxy would have to be advertised instead).
 */
final class ContainerServers implements TestServers {

  static final ContainerServers INSTANCE = new ContainerServers();
  static final String POSTGRES_IMAGE = "postgres:17";
  static final String REASON =
      "-D" + PROPERTY + "=testcontainers needs a Docker engine and Testcontainers found none";
  private static final Duration READY = Duration.ofSeconds(120);

  private volatile Optional<String> unavailable;

  private ContainerServers() {}

  @Override
  public String name() {
    return "testcontainers";
  }

  @Override
  public Optional<String> unavailable() {
    Optional<String> reason = unavailable;
    if (reason == null) {
      reason =
          DockerClientFactory.instance().isDockerAvailable()
              ? Optional.empty()
              : Optional.of(REASON);
      unavailable = reason;
    }
    return reason;
  }

  @Override
  public Postgres postgres(String name) {
    return new ContainerPostgres(name);
  }

  @Override
  public KafkaBroker kafka(KafkaBroker.Builder embedded) {
    return KafkaBroker.on(new ContainerKafka());
  }

  static String kafkaImage() {
    Properties images = new Properties();
    try (InputStream in = ContainerServers.class.getResourceAsStream("images.properties")) {
      images.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read images.properties", e);
    }
    return images.getProperty("kafka.image");
  }

  private static void requireDocker() {
    INSTANCE
        .unavailable()
        .ifPresent(
            reason -> {
              throw new IllegalStateException(reason);
            });
  }

  /** {@code docker stop}: the container, its file system and its port bindings stay. */
  private static void dockerStop(GenericContainer<?> container) {
    DockerClient docker = DockerClientFactory.instance().client();
    docker.stopContainerCmd(container.getContainerId()).withTimeout(60).exec();
  }

  private static void dockerStart(GenericContainer<?> container) {
    DockerClientFactory.instance().client().startContainerCmd(container.getContainerId()).exec();
  }

  /** A {@code postgres:17} container. */
  static final class ContainerPostgres implements Postgres {
    private final String name;
    private final int hostPort = FreePorts.next();
    private final PostgreSQLContainer container;
    private boolean created;
    private volatile boolean running;

    ContainerPostgres(String name) {
      this.name = name;
      this.container =
          new PostgreSQLContainer(POSTGRES_IMAGE)
              .withUsername("postgres")
              .withPassword("trellara")
              .withDatabaseName("postgres")
              // replaces Testcontainers' own "-c fsync=off": stock settings but for logical
              // replication
              .withCommand(
                  "postgres",
                  "-c",
                  "wal_level=logical",
                  "-c",
                  "max_replication_slots=40",
                  "-c",
                  "max_wal_senders=40");
      container.setPortBindings(List.of(hostPort + ":" + PostgreSQLContainer.POSTGRESQL_PORT));
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String host() {
      return container.getHost();
    }

    @Override
    public int port() {
      return hostPort;
    }

    @Override
    public String user() {
      return container.getUsername();
    }

    @Override
    public String password() {
      return container.getPassword();
    }

    @Override
    public synchronized Postgres start() {
      if (running) {
        return this;
      }
      requireDocker();
      if (!created) {
        container.start(); // waits for "ready to accept connections" after initdb
        created = true;
      } else {
        dockerStart(container);
        Awaitility.await("PostgreSQL " + name + " accepting connections again")
            .atMost(READY)
            .pollInterval(Duration.ofMillis(200))
            .ignoreExceptions()
            .until(
                () -> {
                  try (Connection c = connect("postgres")) {
                    return c.isValid(5);
                  }
                });
      }
      running = true;
      return this;
    }

    @Override
    public synchronized void stop() {
      if (running) {
        running = false;
        dockerStop(container);
      }
    }

    @Override
    public boolean isRunning() {
      return running;
    }

    @Override
    public synchronized void close() {
      running = false;
      container.stop(); // removes the container and its data volume
    }

    @Override
    public String toString() {
      return "ContainerPostgres["
          + name
          + " "
          + POSTGRES_IMAGE
          + " @ "
          + hostPort
          + (running ? "" : ", stopped")
          + "]";
    }
  }

  /**
   * An {@code apache/kafka} container; {@link KafkaBroker#start()} waits until it answers admin
   * requests.
   */
  static final class ContainerKafka implements Kafka {
    private final int hostPort = FreePorts.next();
    private final KafkaContainer container = new KafkaContainer(kafkaImage());
    private boolean created;
    private boolean running;

    ContainerKafka() {
      // the advertised listener is written once, at the first start, with this port: it must not
      // change
      container.setPortBindings(List.of(hostPort + ":9092"));
    }

    @Override
    public String bootstrapServers() {
      return container.getHost() + ":" + hostPort;
    }

    @Override
    public synchronized void start() {
      if (running) {
        return;
      }
      requireDocker();
      if (!created) {
        container.start();
        created = true;
      } else {
        dockerStart(container);
      }
      running = true;
    }

    @Override
    public synchronized void stop() {
      if (running) {
        running = false;
        dockerStop(container);
      }
    }

    @Override
    public synchronized void close() {
      running = false;
      container.stop();
    }

    @Override
    public String toString() {
      return "ContainerKafka[" + kafkaImage() + " @ " + hostPort + "]";
    }
  }
}
