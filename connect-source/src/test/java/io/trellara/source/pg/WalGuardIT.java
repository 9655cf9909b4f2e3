package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The slot's retained WAL watched on a real server: the lag in bytes and in seconds of a slot that
 * does not advance while WAL is written, the slot.lag.warn.bytes warning, the limit report; and the
 * heartbeat's action query, run at each beat.
 */
@EitherPlatform
class WalGuardIT {
  private static TestServers.Postgres pg;
  private static PostgresDatabase db;
  private static PgEndpoint endpoint;

  @BeforeAll
  static void start() {
    pg = TestServers.current().postgres("wal-guard").start();
    db = pg.createDatabase("walguard");
    db.execute(
        "CREATE TABLE filler (id int PRIMARY KEY, pad text)",
        "CREATE TABLE beats (at timestamptz NOT NULL)",
        "SELECT pg_create_logical_replication_slot('walguard', 'pgoutput')");
    endpoint =
        new PgEndpoint(
            pg.host(), pg.port(), db.name(), pg.user(), pg.password(), "disable", "", "", "", "");
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void aSlotThatDoesNotAdvanceLagsInBytesAndSecondsAndIsWarnedAbout() throws Exception {
    long warnBytes = 1L << 20;
    try (SlotLagSampler sampler = new SlotLagSampler(endpoint, "walguard", warnBytes)) {
      SlotLagSampler.Sample first = sampler.sample();
      assertThat(first).isNotNull();
      assertThat(first.maxSlotWalKeepSize()).isEqualTo("-1");
      assertThat(SlotLagSampler.limitReport("walguard", first, warnBytes))
          .contains("max_slot_wal_keep_size is -1")
          .contains("bounded only by the source's disk");
      db.execute("INSERT INTO filler SELECT i, repeat('x', 200) FROM generate_series(1, 20000) i");
      // the lag in seconds is the age of the last sample the slot has reached: sample until it is 1
      // s
      SlotLagSampler.Sample later =
          await()
              .atMost(Duration.ofSeconds(30))
              .pollInterval(Duration.ofMillis(200))
              .until(sampler::sample, x -> x != null && x.lagSeconds() >= 1);
      assertThat(later.lagBytes()).isGreaterThan(warnBytes);
      assertThat(later.lagSeconds()).isGreaterThanOrEqualTo(1);
      assertThat(SlotLagSampler.warning("walguard", later, warnBytes))
          .contains("above slot.lag.warn.bytes (1 MiB; max_slot_wal_keep_size -1)");
      assertThat(SlotLagSampler.warning("walguard", later, 0)).isNull();
    }
  }

  @Test
  void theHeartbeatRunsItsActionQueryBeforeEachMessage() {
    List<Long> sent = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    Heartbeat.Listener metrics =
        new Heartbeat.Listener() {
          @Override
          public void heartbeatSent(long lsn) {
            sent.add(lsn);
          }

          @Override
          public void heartbeatFailed(String cause) {
            failed.add(cause);
          }
        };
    Heartbeat beat =
        new Heartbeat(endpoint, "walguard", 60_000, "INSERT INTO beats VALUES (now())", metrics);
    try {
      beat.beat();
      beat.beat();
    } finally {
      beat.close();
    }
    assertThat(failed).isEmpty();
    assertThat(sent).hasSize(2);
    assertThat(db.queryLong("SELECT count(*) FROM beats")).isEqualTo(2);
    Heartbeat broken =
        new Heartbeat(endpoint, "walguard", 60_000, "INSERT INTO nowhere VALUES (1)", metrics);
    broken.beat(); // a failing action query is recorded, never thrown
    broken.close();
    assertThat(failed).singleElement().asString().contains("nowhere");
    assertThat(sent).hasSize(2);
  }
}
