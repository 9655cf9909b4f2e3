package io.trellara.source.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.pg.PgEndpoint;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestServers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * close() releases the slot, so an engine started next on the same slot streams at once (no
 * "replication slot is active" retry): after a clean stop, and after a stop whose replication
 * connection lost every packet (a dropped flow: the walsender would otherwise hold the slot until
 * wal_sender_timeout, 60 s here).
 */
@EitherPlatform
class SlotReleaseIT {
  static TestServers.Postgres pg;
  static PostgresDatabase db;
  @TempDir Path spill;

  @BeforeAll
  static void start() {
    pg = TestServers.current().postgres("slot-release").start();
    db = pg.createDatabase("release");
    db.execute("CREATE TABLE t (id int PRIMARY KEY, v text)", "CREATE PUBLICATION pub FOR TABLE t");
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  private SourceSettings settings(String slot, int port) {
    PgEndpoint endpoint =
        new PgEndpoint(
            pg.host(), port, db.name(), pg.user(), pg.password(), "disable", "", "", "", "");
    return new SourceSettings(
        endpoint,
        "src",
        "db",
        "flow",
        slot,
        "pub",
        false,
        List.of(),
        2,
        true,
        200,
        60_000,
        0,
        false,
        false,
        spill,
        1 << 20,
        1 << 20,
        16,
        1 << 20,
        BoundarySettings.strict(),
        CapturedTables.NONE);
  }

  @Test
  void aCleanStopLeavesTheSlotInactiveAndTheNextEngineStreamsAtOnce() throws Exception {
    db.execute("SELECT pg_create_logical_replication_slot('clean', 'pgoutput')");
    CaptureEngine first = started(settings("clean", pg.port()));
    streams(first, 1);
    long closing = System.nanoTime();
    first.close();
    long closeMs = (System.nanoTime() - closing) / 1_000_000;
    long inactiveMs = awaitInactive("clean", closing);
    System.out.printf(
        "SlotReleaseIT clean stop: close() took %d ms, slot inactive %d ms after close() began%n",
        closeMs, inactiveMs);
    assertNextEngineStreamsAtOnce("clean", pg.port(), 2);
  }

  @Test
  void aStopWhoseConnectionLostEveryPacketStillReleasesTheSlot() throws Exception {
    db.execute("SELECT pg_create_logical_replication_slot('lost', 'pgoutput')");
    try (BlackholeProxy proxy = new BlackholeProxy(pg.host(), pg.port())) {
      CaptureEngine first = started(settings("lost", proxy.port()));
      streams(first, 11);
      proxy.blackholeExisting();
      long closing = System.nanoTime();
      first.close();
      long closeMs = (System.nanoTime() - closing) / 1_000_000;
      long inactiveMs = awaitInactive("lost", closing);
      System.out.printf(
          "SlotReleaseIT stop over a blackholed connection: close() took %d ms, slot inactive"
              + " %d ms after close() began (wal_sender_timeout %s)%n",
          closeMs, inactiveMs, db.queryString("SHOW wal_sender_timeout"));
      assertThat(first.capturing()).isFalse();
    }
    assertNextEngineStreamsAtOnce("lost", pg.port(), 12);
  }

  private CaptureEngine started(SourceSettings s) {
    CaptureEngine engine = new CaptureEngine(s, 0, StrictPipeline.factory(s));
    engine.start();
    return engine;
  }

  /** Inserts row {@code id}; the engine hands its transaction over, which is acknowledged. */
  private static void streams(CaptureEngine engine, int id) throws InterruptedException {
    db.execute("INSERT INTO t VALUES (" + id + ", 'x')");
    List<Outbound> out = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (out.stream().noneMatch(Outbound::closesTransaction) && System.nanoTime() < deadline) {
      out.addAll(engine.poll(200));
    }
    assertThat(out).anyMatch(Outbound::closesTransaction);
    out.stream().filter(Outbound::closesTransaction).forEach(o -> engine.acknowledge(o.endLsn()));
  }

  private static long awaitInactive(String slot, long sinceNanos) {
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () ->
                "false"
                    .equals(
                        db.queryString(
                            "SELECT active::text FROM pg_replication_slots WHERE slot_name = '"
                                + slot
                                + "'")));
    return (System.nanoTime() - sinceNanos) / 1_000_000;
  }

  private void assertNextEngineStreamsAtOnce(String slot, int port, int id) throws Exception {
    CaptureEngine next = started(settings(slot, port));
    try {
      streams(next, id);
      assertThat(next.metrics().lastReplicationError())
          .isNull(); // never met "replication slot is active"
      assertThat(next.metrics().reconnects()).isZero();
    } finally {
      next.close();
    }
  }
}
