package io.trellara.testplatform;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The servers a test runs against, chosen once per JVM with {@code -Dtrellara.platform}: {@code
 * embedded} (the default: zonky PostgreSQL processes and a Kafka broker inside the test JVM) or
 * {@code testcontainers} (stock {@code postgres:17} and {@code apache/kafka} containers; needs a
 * Docker engine). The Connect worker is not a server of the platform: it always runs in, or is
 * forked from, the test JVM and loads the plugin as before.
 *
 * <p>Tests that run on either platform carry {@link EitherPlatform}, which skips them when the
 * selected platform cannot start here ({@link #unavailable()}).
 */
public interface TestServers {

  String PROPERTY = "trellara.platform";

  /** The platform this JVM was started with ({@value #PROPERTY}, default {@code embedded}). */
  static TestServers current() {
    String name = System.getProperty(PROPERTY, "embedded").trim();
    switch (name) {
      case "embedded":
        return EmbeddedServers.INSTANCE;
      case "testcontainers":
        return ContainerServers.INSTANCE;
      default:
        throw new IllegalArgumentException(
            "-D" + PROPERTY + "=" + name + ": expected embedded or testcontainers");
    }
  }

  String name();

  /** Empty when this platform's servers can start here, else the one-line reason they cannot. */
  Optional<String> unavailable();

  /**
   * A new PostgreSQL 17 server set up for logical replication, not started yet; {@code close()}
   * deletes it.
   */
  Postgres postgres(String name);

  /**
   * A new single-node Kafka broker, not started yet. Embedded: the in-JVM broker of this builder's
   * settings; testcontainers: the stock {@code apache/kafka} image at its stock settings (the
   * builder is not used).
   */
  KafkaBroker kafka(KafkaBroker.Builder embedded);

  /**
   * One PostgreSQL server: its address and superuser, SQL helpers, and stop/start for fault tests.
   */
  interface Postgres extends AutoCloseable {

    String name();

    String host();

    /** The same across {@link #stop()} and {@link #start()}: connectors keep one address. */
    int port();

    /** A superuser with REPLICATION. */
    String user();

    String password();

    /** Starts the server; after {@link #stop()} on the same data, address and port. */
    Postgres start();

    /** Shuts the server down (fast: sessions are cut), keeping its data. */
    void stop();

    boolean isRunning();

    /** Stops and deletes the server and its data. */
    @Override
    void close();

    default Postgres restart() {
      stop();
      return start();
    }

    default String jdbcUrl(String database) {
      return "jdbc:postgresql://" + host() + ":" + port() + "/" + database;
    }

    default DataSource dataSource(String database) {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setServerNames(new String[] {host()});
      ds.setPortNumbers(new int[] {port()});
      ds.setDatabaseName(database);
      ds.setUser(user());
      ds.setPassword(password());
      ds.setConnectTimeout(10);
      return ds;
    }

    /** A new connection (auto-commit) to the database; the caller closes it. */
    default Connection connect(String database) {
      try {
        return dataSource(database).getConnection();
      } catch (SQLException e) {
        throw new IllegalStateException("cannot connect to " + jdbcUrl(database), e);
      }
    }

    /** Runs each statement in its own auto-committed statement. */
    default void execute(String database, String... statements) {
      try (Connection connection = connect(database);
          Statement statement = connection.createStatement()) {
        for (String sql : statements) {
          statement.execute(sql);
        }
      } catch (SQLException e) {
        throw new IllegalStateException(
            "SQL failed on " + jdbcUrl(database) + ": " + e.getMessage(), e);
      }
    }

    /**
     * Creates a database with a unique name starting with the prefix and returns a handle on it.
     */
    default PostgresDatabase createDatabase(String prefix) {
      return createDatabaseNamed(Names.uniqueIdentifier(prefix));
    }

    /** Creates a database of exactly this name (e.g. the name a database has on another server). */
    default PostgresDatabase createDatabaseNamed(String database) {
      execute("postgres", "CREATE DATABASE " + database);
      return new PostgresDatabase(this, database);
    }

    /**
     * Drops the database, disconnecting its sessions; replication slots on it must be dropped
     * first.
     */
    default void dropDatabase(String database) {
      execute("postgres", "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }
  }

  /**
   * A Kafka broker's address and lifecycle; {@link KafkaBroker} puts the admin client and helpers
   * on top.
   */
  interface Kafka extends AutoCloseable {

    /** The same across {@link #stop()} and {@link #start()}. */
    String bootstrapServers();

    /** Starts the broker; after {@link #stop()} at the same address with everything it held. */
    void start();

    /** Stops the broker as a restart does, keeping its logs. */
    void stop();

    /** Stops the broker and deletes its logs. */
    @Override
    void close();
  }
}
