package io.trellara.testplatform;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The names one test owns on the shared {@link TrellaraStack}, all starting with a unique prefix
 * ({@code <test>_<n>_<random>}), so tests never see each other's databases, slots, publications,
 * topics or connectors. {@link #close()} deletes the scope's connectors, then drops its replication
 * slots and databases (a logical slot blocks {@code DROP DATABASE}, and each slot holds WAL and one
 * of the 40 slots).
 */
public final class TestScope implements AutoCloseable {

  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  private final TrellaraStack stack;
  private final String prefix;
  private final List<PostgresDatabase> databases = new ArrayList<>();

  TestScope(TrellaraStack stack, String testName) {
    this.stack = stack;
    String base = Names.identifier(testName);
    if (base.length() > 24) {
      base = base.substring(0, 24);
    }
    this.prefix = base + "_" + SEQUENCE.incrementAndGet() + "_" + Names.randomSuffix();
  }

  public TrellaraStack stack() {
    return stack;
  }

  /** The unique prefix of every name in this scope (a valid SQL identifier). */
  public String prefix() {
    return prefix;
  }

  /** A new database on the source server, dropped by {@link #close()}. */
  public PostgresDatabase sourceDatabase() {
    return track(stack.sourcePostgres().createDatabase(prefix));
  }

  /** A new database on the target server (started on first use), dropped by {@link #close()}. */
  public PostgresDatabase targetDatabase() {
    return track(stack.targetPostgres().createDatabase(prefix));
  }

  private synchronized PostgresDatabase track(PostgresDatabase database) {
    databases.add(database);
    return database;
  }

  /** {@code <prefix>.<name>}, a topic name of this scope. */
  public String topic(String name) {
    return prefix + "." + name;
  }

  /** {@code <prefix>_slot} (or with a suffix when a test needs several). */
  public String slotName(String... suffix) {
    return Names.identifier(prefix + "_slot" + join(suffix));
  }

  public String publicationName(String... suffix) {
    return Names.identifier(prefix + "_pub" + join(suffix));
  }

  /** {@code <prefix>-<name>}, a connector name of this scope. */
  public String connectorName(String name) {
    return prefix + "-" + name;
  }

  /** Creates a topic of this scope on the shared broker and returns its name. */
  public String createTopic(String name, int partitions) {
    String topic = topic(name);
    stack.broker().createTopic(topic, partitions, ConnectorConfigs.topicConfigs());
    return topic;
  }

  /** Posts a connector named {@code connectorName(name)} and returns the full name. */
  public String createConnector(String name, Map<String, String> config) {
    String connector = connectorName(name);
    stack.rest().createConnector(connector, config);
    return connector;
  }

  private static String join(String[] suffix) {
    return suffix.length == 0 ? "" : "_" + String.join("_", suffix);
  }

  /**
   * Deletes this scope's connectors, waits for its slots to be released, drops slots and databases.
   */
  @Override
  public void close() {
    ConnectRestClient rest = stack.rest();
    if (stack.worker().isRunning()) {
      for (String connector : rest.connectors()) {
        if (connector.startsWith(prefix + "-")) {
          rest.deleteAndAwait(connector);
        }
      }
    }
    List<PostgresDatabase> owned;
    synchronized (this) {
      owned = List.copyOf(databases);
    }
    for (PostgresDatabase database : owned) {
      if (!database.server().isRunning()) {
        continue;
      }
      await("replication slots of " + database.name() + " released")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> database.activeReplicationSlots("") == 0);
      database.dropReplicationSlots("");
      database.drop();
    }
  }

  @Override
  public String toString() {
    return "TestScope[" + prefix + "]";
  }
}
