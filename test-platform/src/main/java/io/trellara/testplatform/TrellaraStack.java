package io.trellara.testplatform;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared platform of one test JVM: a source PostgreSQL, a Kafka broker and a Connect worker,
 * started lazily on first use and stopped by a JVM shutdown hook. The servers come from {@link
 * TestServers#current()} (embedded unless {@code -Dtrellara.platform=testcontainers}); the worker
 * always runs in this JVM. A target PostgreSQL (for sink tests) starts only when asked for. Tests
 * isolate themselves with {@link #newScope(String)}: own database, topics, slot, publication and
 * connector names.
 *
 * <p>Servers are shared: a test that stops one (outage simulation) must start it again before it
 * ends ({@code try/finally}); a test that stops the worker must {@link ConnectWorker#start()} it
 * again. Tests that need private servers build their own with the builders of {@link
 * PostgresServer}, {@link KafkaBroker} and {@link ConnectWorker}.
 */
public final class TrellaraStack {

  private static final Logger LOG = LoggerFactory.getLogger(TrellaraStack.class);
  private static volatile TrellaraStack instance;
  private static RuntimeException startFailure;

  private final TestServers servers;
  private final TestServers.Postgres sourcePostgres;
  private final KafkaBroker broker;
  private final ConnectWorker worker;
  private final Map<String, Long> startupMillis;
  private volatile TestServers.Postgres targetPostgres;

  private TrellaraStack(
      TestServers servers,
      TestServers.Postgres sourcePostgres,
      KafkaBroker broker,
      ConnectWorker worker,
      Map<String, Long> startupMillis) {
    this.servers = servers;
    this.sourcePostgres = sourcePostgres;
    this.broker = broker;
    this.worker = worker;
    this.startupMillis = startupMillis;
  }

  /** The JVM's stack, started on first call (≈ 6–10 s), then returned at once. */
  public static TrellaraStack get() {
    TrellaraStack stack = instance;
    if (stack == null) {
      synchronized (TrellaraStack.class) {
        stack = instance;
        if (stack == null) {
          if (startFailure != null) {
            throw new IllegalStateException(
                "the test stack failed to start earlier in this JVM", startFailure);
          }
          try {
            stack = startStack();
          } catch (RuntimeException e) {
            startFailure = e;
            throw e;
          }
          instance = stack;
        }
      }
    }
    return stack;
  }

  private static TrellaraStack startStack() {
    Map<String, Long> millis = new LinkedHashMap<>();
    long t0 = System.nanoTime();
    TestServers servers = TestServers.current();
    TestServers.Postgres pg = closeAtExit(servers.postgres("source"));
    KafkaBroker broker = closeAtExit(servers.kafka(KafkaBroker.builder()));
    Runtime.getRuntime()
        .addShutdownHook(new Thread(TrellaraStack::shutdown, "trellara-stack-shutdown"));
    // PostgreSQL runs as a separate process: start it while the broker boots in this thread
    Thread pgStarter = new Thread(pg::start, "trellara-pg-start");
    pgStarter.start();
    ConnectWorker worker;
    try {
      broker.start();
      millis.put("kafka", (System.nanoTime() - t0) / 1_000_000);
      long t1 = System.nanoTime();
      worker = closeAtExit(ConnectWorker.builder(broker).groupId("trellara-test-connect").build());
      worker.start();
      millis.put("connect", (System.nanoTime() - t1) / 1_000_000);
    } finally {
      joinQuietly(pgStarter); // never leave a half-started postmaster behind
    }
    if (!pg.isRunning()) {
      throw new IllegalStateException("the source PostgreSQL did not start; see the log above");
    }
    millis.put("total", (System.nanoTime() - t0) / 1_000_000);
    LOG.info(
        "Trellara test stack started on {} servers: {} ms (kafka {} ms, then connect {} ms; PostgreSQL in"
            + " parallel)",
        servers.name(),
        millis.get("total"),
        millis.get("kafka"),
        millis.get("connect"));
    return new TrellaraStack(servers, pg, broker, worker, millis);
  }

  private static void joinQuietly(Thread thread) {
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Everything the stack started, closed in reverse order by the shutdown hook. */
  private static final Deque<AutoCloseable> STARTED = new ArrayDeque<>();

  private static <T extends AutoCloseable> T closeAtExit(T resource) {
    synchronized (STARTED) {
      STARTED.push(resource);
    }
    return resource;
  }

  private static void shutdown() {
    synchronized (STARTED) {
      while (!STARTED.isEmpty()) {
        AutoCloseable resource = STARTED.pop();
        try {
          resource.close();
        } catch (Exception e) {
          LOG.warn("could not stop {}: {}", resource, e.toString());
        }
      }
    }
  }

  /** The platform the stack's servers come from. */
  public TestServers servers() {
    return servers;
  }

  public TestServers.Postgres sourcePostgres() {
    return sourcePostgres;
  }

  /** A second PostgreSQL server, started on first call (sink targets, outage tests). */
  public TestServers.Postgres targetPostgres() {
    TestServers.Postgres target = targetPostgres;
    if (target == null) {
      synchronized (this) {
        target = targetPostgres;
        if (target == null) {
          target = closeAtExit(servers.postgres("target")).start();
          targetPostgres = target;
        }
      }
    }
    return target;
  }

  public KafkaBroker broker() {
    return broker;
  }

  public ConnectWorker worker() {
    return worker;
  }

  /** REST client of the shared worker. */
  public ConnectRestClient rest() {
    return worker.rest();
  }

  /** Measured start-up times in ms: kafka, connect, total (PostgreSQL starts in parallel). */
  public Map<String, Long> startupMillis() {
    return Map.copyOf(startupMillis);
  }

  /**
   * A fresh isolation scope; close it at the end of the test to remove its connectors, slots and
   * databases.
   */
  public TestScope newScope(String testName) {
    return new TestScope(this, testName);
  }
}
