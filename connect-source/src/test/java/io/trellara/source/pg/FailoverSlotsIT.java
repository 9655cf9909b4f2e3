package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestServers;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * slot.failover on a real PostgreSQL 17 primary: what the preflight refuses about
 * synchronized_standby_slots, the slot created with failover, an existing slot altered to one. The
 * standby itself and the promotion: connect-sink's FailoverSlotIT.
 */
@EitherPlatform
class FailoverSlotsIT {
  private static TestServers.Postgres pg;
  private static PostgresDatabase db;

  @BeforeAll
  static void start() {
    pg = TestServers.current().postgres("failover-slots").start();
    db = pg.createDatabase("fslots");
    db.execute("CREATE TABLE t (id int PRIMARY KEY)");
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  private static SourceDatabase source(String slot, boolean failover) {
    PgEndpoint endpoint =
        new PgEndpoint(
            pg.host(),
            pg.port(),
            db.name(),
            pg.user(),
            pg.password(),
            "disable",
            "",
            "",
            "",
            "",
            failover);
    return new SourceDatabase(
        endpoint, slot, "fslots_pub", true, List.of("public.t"), false, false, null, Set.of());
  }

  private static List<String> failoverProblems() {
    return SourcePreflight.check(source("unused", true)).stream()
        .filter(p -> p.property().equals("slot.failover"))
        .map(SourceProblem::message)
        .toList();
  }

  private static void standbySlots(String value) {
    pg.execute(
        "postgres",
        "ALTER SYSTEM SET synchronized_standby_slots = '" + value + "'",
        "SELECT pg_reload_conf()");
  }

  @Test
  void thePreflightNamesWhatTheSynchronisedStandbySlotsLack() {
    standbySlots("");
    try {
      assertThat(failoverProblems())
          .singleElement()
          .asString()
          .contains("synchronized_standby_slots is empty");
      assertThat(SourcePreflight.check(source("unused", false))).isEmpty();

      standbySlots("nosuchstandby");
      assertThat(failoverProblems())
          .singleElement()
          .asString()
          .contains("names slot 'nosuchstandby', which does not exist");

      db.execute("SELECT pg_create_logical_replication_slot('fslots_logical', 'pgoutput')");
      standbySlots("fslots_logical");
      assertThat(failoverProblems())
          .singleElement()
          .asString()
          .contains("names slot 'fslots_logical', a logical slot");

      db.execute("SELECT pg_create_physical_replication_slot('fslots_standby')");
      standbySlots("fslots_standby");
      assertThat(failoverProblems()).isEmpty();
    } finally {
      standbySlots("");
    }
  }

  @Test
  void theSlotIsCreatedAsAFailoverSlotAndAnExistingOneIsAltered() throws Exception {
    assertThat(SourceSetup.ensure(source("fslots_new", true))).isTrue();
    assertThat(failover("fslots_new")).isEqualTo("true");

    db.execute("SELECT pg_create_logical_replication_slot('fslots_old', 'pgoutput')");
    assertThat(failover("fslots_old")).isEqualTo("false");
    assertThat(SourceSetup.ensure(source("fslots_old", true))).isFalse();
    assertThat(failover("fslots_old")).isEqualTo("true");

    assertThat(SourceSetup.ensure(source("fslots_plain", false))).isTrue();
    assertThat(failover("fslots_plain")).isEqualTo("false");
  }

  private static String failover(String slot) {
    return db.queryString(
        "SELECT failover::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
  }
}
