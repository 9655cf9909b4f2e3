package io.trellara.source.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.trellara.connect.common.liveness.StalledException;
import io.trellara.connect.common.liveness.Watchdog;
import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.pg.PgEndpoint;
import io.trellara.source.snapshot.SnapshotPlan;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TcpProxy;
import io.trellara.testplatform.TestServers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication stream's stage against a real walsender, behind a proxy that can stop forwarding
 * bytes without closing the connection, with the watchdog on a manual clock: an idle but live
 * stream answers the probes and never stalls; a server that stops answering fails the engine with
 * STALLED naming the slot and the last LSN, instead of a task RUNNING while nothing moves.
 */
@EitherPlatform
class StreamStallIT {
  static TestServers.Postgres pg;
  static PostgresDatabase db;
  @TempDir Path spill;
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final Watchdog dog = Watchdog.manual("stall-it", now::get, Duration.ofSeconds(30));

  @BeforeAll
  static void start() {
    pg = TestServers.current().postgres("stream-stall").start();
    db = pg.createDatabase("stall");
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

  private CaptureEngine started(SourceSettings s) {
    CaptureEngine engine =
        new CaptureEngine(
            s, 0, StrictPipeline.factory(s), SnapshotPlan.STREAM, null, dog, now::get);
    engine.start();
    return engine;
  }

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

  @Test
  void anIdleStreamAnswersItsProbesAndNeverStalls() throws Exception {
    db.execute("SELECT pg_create_logical_replication_slot('idle', 'pgoutput')");
    CaptureEngine engine = started(settings("idle", pg.port()));
    try {
      streams(engine, 1);
      var stage = engine.stage(CaptureEngine.STREAM_STAGE);
      for (int round = 0; round < 6; round++) { // 48 s of a manual clock, past the 30 s bound
        now.addAndGet(8_000_000_000L); // past the probe interval (a quarter of the bound)
        await("a keepalive answers the probe")
            .atMost(Duration.ofSeconds(30))
            .until(() -> stage.secondsSinceProgress() == 0);
        dog.check();
      }
      assertThat(engine.poll(10)).isEmpty(); // no failure
      streams(engine, 2);
    } finally {
      engine.close();
      db.execute("SELECT pg_drop_replication_slot('idle')");
    }
  }

  @Test
  void aServerThatStopsAnsweringFailsTheEngineWithStalledNamingTheSlotAndTheLastLsn()
      throws Exception {
    db.execute("SELECT pg_create_logical_replication_slot('frozen', 'pgoutput')");
    try (TcpProxy proxy = TcpProxy.to("pg", pg.host(), pg.port())) {
      CaptureEngine engine = started(settings("frozen", proxy.port()));
      try {
        streams(engine, 11);
        proxy.freeze(true);
        now.addAndGet(31_000_000_000L);
        dog.check();
        await("the capture thread fails")
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  try {
                    engine.poll(10);
                    return false;
                  } catch (StalledException e) {
                    return true;
                  }
                });
        assertThatThrownBy(() -> engine.poll(10))
            .isInstanceOf(StalledException.class)
            .hasMessageStartingWith(
                "STALLED: stage 'replication stream' made no progress for 31000 ms")
            .hasMessageContaining("slot frozen")
            .hasMessageContaining("last LSN received 0/");
        assertThat(engine.metrics().reconnects()).as("a stall is not reconnected").isZero();
      } finally {
        engine.close();
        proxy.freeze(false);
      }
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> db.activeReplicationSlots("frozen") == 0);
    db.execute("SELECT pg_drop_replication_slot('frozen')");
  }
}
