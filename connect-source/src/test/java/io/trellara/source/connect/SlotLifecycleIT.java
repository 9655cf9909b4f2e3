package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.Lsn;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TestServers;
import io.trellara.testplatform.TrellaraStack;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The slot's life around a source task: how much WAL it retains while only an uncaptured table
 * changes (with and without heartbeats), and slot.drop.on.stop when the connector is deleted. A
 * server of its own, so no other test's writes move pg_current_wal_lsn() while retained WAL is
 * measured.
 */
@EitherPlatform
class SlotLifecycleIT {
  static final TrellaraStack STACK = TrellaraStack.get();
  static final Duration WAIT = Duration.ofSeconds(60);
  static final long ONE_MB = 1L << 20;
  static final Duration BUSY = Duration.ofSeconds(15);
  static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
  static TestServers.Postgres pg;

  @BeforeAll
  static void startOwnServer() {
    pg = TestServers.current().postgres("slot-lifecycle").start();
  }

  @AfterAll
  static void stopOwnServer() {
    if (pg != null) {
      pg.close();
    }
  }

  /**
   * What the slot retained while the uncaptured table took steady writes, and after they stopped.
   */
  private record Retention(
      long maxRetainedBytes,
      long writtenBytes,
      long settledBytes,
      long settledAfterMs,
      long heartbeatsSent,
      long heartbeatsReceived,
      String lastHeartbeatLsn) {}

  @Test
  void withHeartbeatsTheSlotStaysNearTheServersWalWhileOnlyAnUncapturedTableChanges()
      throws Exception {
    try (TestScope scope = STACK.newScope("heartbeat")) {
      Deployed d = deploy(scope, Map.of("heartbeat.interval.ms", "1000"));
      Retention r = busyUncapturedTable(d);
      print("heartbeat.interval.ms=1000", r);
      assertThat(r.settledBytes).isLessThan(ONE_MB);
      assertThat(r.maxRetainedBytes).isLessThan(r.writtenBytes / 4);
      assertThat(r.heartbeatsSent).isGreaterThanOrEqualTo(BUSY.toSeconds() / 2);
      assertThat(r.heartbeatsReceived).isPositive();
      // the slot was confirmed past a heartbeat, and no heartbeat reached Kafka: the topic holds
      // the one row
      await()
          .atMost(WAIT)
          .until(
              () -> Lsn.parse(confirmedFlushLsn(d)).compareTo(Lsn.parse(r.lastHeartbeatLsn)) >= 0);
      assertThat(STACK.broker().readAll(d.topic)).hasSize(1);
    }
  }

  /**
   * The control: no heartbeat is written, and the slot still keeps up, because the task confirms
   * the positions the walsender's keepalives carry whenever nothing it published is unacknowledged
   * (PostgreSQL 17 sends one whenever it waits for WAL past what the client confirmed).
   */
  @Test
  void withoutHeartbeatsTheWalsendersKeepalivesStillAdvanceTheSlot() throws Exception {
    try (TestScope scope = STACK.newScope("noheartbeat")) {
      Deployed d = deploy(scope, Map.of());
      Retention r = busyUncapturedTable(d);
      print("heartbeat.interval.ms=0", r);
      assertThat(r.heartbeatsSent).isZero();
      assertThat(r.heartbeatsReceived).isZero();
      assertThat(r.settledBytes).isLessThan(ONE_MB);
      assertThat(STACK.broker().readAll(d.topic)).hasSize(1);
    }
  }

  @Test
  void slotDropOnStopDropsTheSlotAndTheConnectorsPublicationWhenTheConnectorIsDeleted()
      throws Exception {
    try (TestScope scope = STACK.newScope("dropslot")) {
      Deployed kept = deploy(scope, "kept", Map.of());
      Deployed dropped = deploy(scope, "dropped", Map.of("slot.drop.on.stop", "true"));
      STACK.rest().deleteAndAwait(kept.connector);
      STACK.rest().deleteAndAwait(dropped.connector);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  count(dropped, "pg_replication_slots WHERE slot_name = '" + dropped.slot + "'")
                      == 0);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  count(dropped, "pg_publication WHERE pubname = '" + dropped.publication + "'")
                      == 0);
      // the default keeps both: the slot inactive, retaining WAL until someone drops it
      await()
          .atMost(WAIT)
          .until(
              () ->
                  count(
                          kept,
                          "pg_replication_slots WHERE slot_name = '"
                              + kept.slot
                              + "' AND NOT active")
                      == 1);
      assertThat(count(kept, "pg_publication WHERE pubname = '" + kept.publication + "'"))
          .isEqualTo(1);
    }
  }

  private record Deployed(
      PostgresDatabase db,
      String topic,
      String connector,
      String slot,
      String publication,
      ObjectName bean) {}

  private static Deployed deploy(TestScope scope, Map<String, String> extra) throws Exception {
    return deploy(scope, "source", extra);
  }

  /** A source on table t (one row published, so the task is past its start), u left uncaptured. */
  private static Deployed deploy(TestScope scope, String name, Map<String, String> extra)
      throws Exception {
    PostgresDatabase db = pg.createDatabase(scope.prefix() + "_" + name);
    db.execute(
        "CREATE TABLE t (id int PRIMARY KEY, v text)",
        "CREATE TABLE u (id bigserial PRIMARY KEY, v text)");
    String topic = scope.createTopic(name, 1);
    String slot = scope.slotName(name);
    String publication = scope.publicationName(name);
    Map<String, String> config =
        new java.util.HashMap<>(
            ConnectorConfigs.source(
                scope,
                db,
                topic,
                "public.t",
                Map.of(
                    "replication.status.interval.ms",
                    "200",
                    "slot.name",
                    slot,
                    "publication.name",
                    publication)));
    config.putAll(extra);
    String connector = scope.createConnector(name, config);
    STACK.rest().awaitRunning(connector);
    db.execute("INSERT INTO t VALUES (1, 'captured')");
    await().atMost(WAIT).until(() -> STACK.broker().readAll(topic).size() == 1);
    return new Deployed(
        db,
        topic,
        connector,
        slot,
        publication,
        new ObjectName("io.trellara:type=source-task,connector=" + connector + ",task=0"));
  }

  /**
   * 20 rows of 1 kB into u every 10 ms for {@link #BUSY}, sampling retained WAL; then waits for it
   * to settle.
   */
  private static Retention busyUncapturedTable(Deployed d) throws Exception {
    long startLsn = Lsn.parse(d.db.queryString("SELECT pg_current_wal_lsn()::text")).value();
    long max = 0;
    long end = System.nanoTime() + BUSY.toNanos();
    int statements = 0;
    while (System.nanoTime() < end) {
      d.db.execute("INSERT INTO u (v) SELECT repeat('x', 1000) FROM generate_series(1, 20)");
      if (++statements % 20 == 0) {
        max = Math.max(max, retained(d));
      }
      Thread.sleep(10); // paces the workload (a steady write rate), not a wait for a condition
    }
    long written =
        Lsn.parse(d.db.queryString("SELECT pg_current_wal_lsn()::text")).value() - startLsn;
    long stopped = System.nanoTime();
    long[] settled = {retained(d)};
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> (settled[0] = retained(d)) < ONE_MB);
    long settledAfterMs = (System.nanoTime() - stopped) / 1_000_000;
    assertThat(STACK.rest().status(d.connector).isRunning(1)).isTrue();
    return new Retention(
        max,
        written,
        settled[0],
        settledAfterMs,
        (Long) JMX.getAttribute(d.bean, "HeartbeatsSent"),
        (Long) JMX.getAttribute(d.bean, "HeartbeatsReceived"),
        (String) JMX.getAttribute(d.bean, "LastHeartbeatLsn"));
  }

  private static long retained(Deployed d) {
    return d.db.queryLong(
        "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint"
            + " FROM pg_replication_slots WHERE slot_name = '"
            + d.slot
            + "'");
  }

  private static String confirmedFlushLsn(Deployed d) {
    return d.db.queryString(
        "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '"
            + d.slot
            + "'");
  }

  private static long count(Deployed d, String fromWhere) {
    return d.db.queryLong("SELECT count(*) FROM " + fromWhere);
  }

  private static void print(String setting, Retention r) {
    System.out.printf(
        "SlotLifecycleIT %s: %d kB of WAL written in %d s of uncaptured writes; retained WAL at"
            + " most %d kB while writing, %d kB %d ms after the last write; heartbeats sent %d, received"
            + " %d%n",
        setting,
        r.writtenBytes / 1024,
        BUSY.toSeconds(),
        r.maxRetainedBytes / 1024,
        r.settledBytes / 1024,
        r.settledAfterMs,
        r.heartbeatsSent,
        r.heartbeatsReceived);
  }
}
