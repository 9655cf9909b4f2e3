package io.trellara.testplatform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Private servers built with the builders, next to the shared stack in the same JVM. */
class StandaloneServersIT {

  private static final Logger LOG = LoggerFactory.getLogger(StandaloneServersIT.class);

  @Test
  void privatePostgresTakesItsOwnDecodingMemoryAndDecodesWithPgoutput() {
    long t0 = System.nanoTime();
    try (PostgresServer pg =
        PostgresServer.builder().name("private").logicalDecodingWorkMem("64kB").start()) {
      LOG.info("private PostgreSQL (initdb + start): {} ms", (System.nanoTime() - t0) / 1_000_000);
      PostgresDatabase db = pg.createDatabase("standalone");
      assertThat(db.queryString("SHOW logical_decoding_work_mem")).isEqualTo("64kB");
      assertThat(pg.port()).isNotEqualTo(TrellaraStack.get().sourcePostgres().port());

      db.execute(
          "CREATE TABLE item (id int PRIMARY KEY, payload text)",
          "CREATE PUBLICATION pub FOR TABLE item",
          "SELECT pg_create_logical_replication_slot('slot', 'pgoutput')",
          "INSERT INTO item SELECT g, repeat('x', 100) FROM generate_series(1, 1000) g");
      long changes =
          db.queryLong(
              "SELECT count(*) FROM pg_logical_slot_peek_binary_changes('slot', NULL, NULL,"
                  + " 'proto_version', '2', 'publication_names', 'pub')");
      assertThat(changes).isEqualTo(1000 + 3); // B, R, 1000 x I, C
      db.dropReplicationSlots("slot");
    }
  }

  @Test
  void workerProcessSurvivesKillMinus9AndResumesFromCommittedOffsets() {
    TrellaraStack stack = TrellaraStack.get();
    String topic = "process-" + Names.randomSuffix();
    stack.broker().createTopic(topic, 1);
    long t0 = System.nanoTime();
    try (ConnectWorkerProcess worker =
        ConnectWorker.builder(stack.broker())
            .groupId("process-" + Names.randomSuffix())
            .jvmArg("-Xmx256m")
            .buildProcess()
            .start()) {
      LOG.info("worker process (-Xmx256m) start: {} ms", (System.nanoTime() - t0) / 1_000_000);
      ConnectRestClient rest = worker.rest();
      rest.createConnector(
          "counting",
          Map.of(
              "connector.class",
              CountingSourceConnector.class.getName(),
              "topic",
              topic,
              "count",
              "100"));
      rest.awaitRunning("counting");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> stack.broker().readAll(topic).size() >= 100);

      long t1 = System.nanoTime();
      worker.kill();
      worker.start();
      rest.awaitRunning("counting", 1, Duration.ofSeconds(90));
      LOG.info(
          "kill -9 -> new worker process -> connector RUNNING: {} ms",
          (System.nanoTime() - t1) / 1_000_000);

      rest.putConnectorConfig(
          "counting",
          Map.of(
              "connector.class",
              CountingSourceConnector.class.getName(),
              "topic",
              topic,
              "count",
              "150"));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  stack.broker().readAll(topic).stream()
                          .map(KafkaRecord::valueAsString)
                          .distinct()
                          .count()
                      == 150);
    }
  }
}
