package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TestServers;
import io.trellara.testplatform.TrellaraStack;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A stopped source pointed at another PostgreSQL server (same database, table, slot and publication
 * names, as after restoring a backup or failing over to a server that is not a standby of the old
 * one) refuses to resume at its offset's LSN, naming both system identifiers and the setting; with
 * offsets.accept.new.history=true it starts at the slot's position on the new server and captures
 * its transactions. Both servers are this test's own (the worker and broker are the shared ones).
 */
@EitherPlatform
class SourceNewServerIT {
  static final TrellaraStack STACK = TrellaraStack.get();
  static final Duration WAIT = Duration.ofSeconds(120);
  static TestServers.Postgres first;
  static TestServers.Postgres second;

  @BeforeAll
  static void startOwnServers() {
    first = TestServers.current().postgres("history-a").start();
    second = TestServers.current().postgres("history-b").start();
  }

  @AfterAll
  static void stopOwnServers() {
    if (first != null) {
      first.close();
    }
    if (second != null) {
      second.close();
    }
  }

  @Test
  void offsetsOfAnotherServerStopTheTaskUntilTheNewHistoryIsAccepted() {
    try (TestScope scope = STACK.newScope("newserver")) {
      PostgresDatabase a = first.createDatabase(scope.prefix());
      a.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
      String topic = scope.createTopic("strict", 1);
      Map<String, String> config =
          ConnectorConfigs.source(
              scope, a, topic, "public.t", Map.of("replication.status.interval.ms", "200"));
      String name = scope.createConnector("source", config);
      STACK.rest().awaitRunning(name);
      String idA = systemId(a);
      commit(a, 1, 3);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  STACK.broker().readAll(topic).size() >= 3
                      && idA.equals(offset(name).path("system_id").asText()));
      assertThat(offset(name).path("timeline").asLong()).isEqualTo(1);
      STACK.rest().stop(name);
      STACK.rest().awaitState(name, "STOPPED");

      PostgresDatabase b = second.createDatabaseNamed(a.name());
      b.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
      String idB = systemId(b);
      assertThat(idB).isNotEqualTo(idA);
      Map<String, String> onB = new HashMap<>(config);
      onB.put("database.hostname", b.host());
      onB.put("database.port", Integer.toString(b.port()));
      STACK.rest().putConnectorConfig(name, onB);
      STACK.rest().resume(name);
      ConnectorStatus failed = STACK.rest().awaitFailed(name, WAIT);
      assertThat(failed.firstTrace())
          .contains(
              "system identifier " + idA,
              "system identifier " + idB,
              "offsets.accept.new.history=true",
              "skip or duplicate transactions silently");
      assertThat(b.queryLong("SELECT count(*) FROM pg_replication_slots"))
          .isZero(); // refused before setup

      onB.put("offsets.accept.new.history", "true");
      STACK.rest().putConnectorConfig(name, onB);
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> STACK.rest().status(name).isRunning(1));
      commit(b, 100, 2);
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(200))
          .failFast("the source task failed", () -> STACK.rest().status(name).isFailed())
          .until(
              () ->
                  idB.equals(offset(name).path("system_id").asText())
                      && STACK.broker().readAll(topic).size() >= 5);
      assertThat(STACK.broker().readAll(topic))
          .hasSize(5); // 3 from the first server, 2 from the second
      assertThat(STACK.rest().status(name).isRunning(1)).isTrue();
    }
  }

  private static String systemId(PostgresDatabase db) {
    return db.queryString("SELECT system_identifier::text FROM pg_control_system()");
  }

  private static JsonNode offset(String connector) {
    JsonNode offsets = STACK.rest().offsets(connector).path("offsets");
    return offsets.isEmpty() ? offsets : offsets.get(0).path("offset");
  }

  private static void commit(PostgresDatabase db, int first, int count) {
    for (int i = first; i < first + count; i++) {
      db.execute("INSERT INTO t VALUES (" + i + ", 'row')");
    }
  }
}
