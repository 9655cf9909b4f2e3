package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.PostgresDatabase;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL's own logical replication between the run's two servers, the reference the Trellara
 * legs are measured against: a publication of the benchmark's tables on a fresh source database, a
 * subscription on a fresh target database (no Trellara sink writes it) connecting over TCP to the
 * source server, at PostgreSQL's defaults except {@code copy_data=false} (both sides start with the
 * same seeded tables).
 */
final class NativeReplicationLeg implements Leg {
  private static final Logger LOG = LoggerFactory.getLogger(NativeReplicationLeg.class);
  private static final Duration READY_WITHIN = Duration.ofSeconds(60);

  private final Platform platform;
  private PostgresDatabase source;
  private PostgresDatabase target;
  private String subscription;

  /** The worker runs, idle, beside native replication: what it costs without connectors. */
  @Override
  public WorkerThreads workerThreads() {
    return platform.workerThreads();
  }

  @Override
  public long workerCpuNanos() {
    return platform.workerCpuNanos().getAsLong();
  }

  NativeReplicationLeg(Platform platform) {
    this.platform = platform;
  }

  @Override
  public String mode() {
    return "native";
  }

  @Override
  public void start() throws Exception {
    source = platform.sourceServer().createDatabase("native");
    target = platform.targetServer().createDatabase("native");
    Workloads.createTables(source);
    Workloads.createTables(target);
    // slots are per server: the subscription (and so its slot) is named after this run's unique
    // database
    subscription = source.name() + "_sub";
    source.execute("CREATE PUBLICATION " + subscription + "_pub FOR TABLE " + Workloads.TABLES);
    target.execute(
        "CREATE SUBSCRIPTION "
            + subscription
            + " CONNECTION '"
            + connectionString()
            + "' PUBLICATION "
            + subscription
            + "_pub WITH (copy_data = false)");
    awaitReady();
    LOG.info("native: subscription {} on {} replicating from {}", subscription, target, source);
  }

  private String connectionString() {
    return "host="
        + source.host()
        + " port="
        + source.port()
        + " dbname="
        + source.name()
        + " user="
        + source.user()
        + " password="
        + source.password();
  }

  /**
   * Every table in state ready and the apply worker running; its walsender then streams on the
   * source.
   */
  private void awaitReady() throws InterruptedException {
    String notReady =
        "SELECT count(*) FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid"
            + " WHERE s.subname = '"
            + subscription
            + "' AND r.srsubstate <> 'r'";
    String tables =
        "SELECT count(*) FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid"
            + " WHERE s.subname = '"
            + subscription
            + "'";
    String applyWorker =
        "SELECT count(*) FROM pg_stat_subscription WHERE subname = '"
            + subscription
            + "'"
            + " AND relid IS NULL AND pid IS NOT NULL";
    String streaming =
        "SELECT count(*) FROM pg_stat_replication WHERE application_name = '"
            + subscription
            + "' AND state = 'streaming'";
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    while (target.queryLong(tables) != 3
        || target.queryLong(notReady) != 0
        || target.queryLong(applyWorker) != 1
        || source.queryLong(streaming) != 1) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "subscription " + subscription + " not ready within " + READY_WITHIN);
      }
      Thread.sleep(50);
    }
  }

  @Override
  public PostgresDatabase source() {
    return source;
  }

  @Override
  public PostgresDatabase target() {
    return target;
  }

  /** DROP SUBSCRIPTION also drops its slot on the source; then neither database is needed. */
  @Override
  public void close() {
    try {
      if (subscription != null) {
        target.execute("DROP SUBSCRIPTION " + subscription);
      }
      if (target != null) {
        target.drop();
      }
      if (source != null) {
        source.drop();
      }
      LOG.info("native: subscription, slot and databases removed");
    } catch (RuntimeException e) {
      LOG.warn("native: teardown incomplete: {}", e.getMessage());
    }
  }
}
