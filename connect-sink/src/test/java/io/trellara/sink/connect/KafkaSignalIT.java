package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.WAIT;
import static io.trellara.sink.connect.Pipelines.awaitEqual;
import static io.trellara.sink.connect.Pipelines.deploySink;
import static io.trellara.sink.connect.Pipelines.deploySource;
import static io.trellara.sink.connect.Pipelines.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Signals through {@code signal.kafka.topic} (issue 30, requirements 1 and 5): a record keyed with
 * the connector's name re-snapshots a table whose target copy was damaged by hand, while transfers
 * stream; the sink replaces it in one target transaction. Records for another connector and
 * malformed ones change nothing. The signal consumer's offsets are committed once the snapshot is
 * published and acknowledged. A source role that cannot write (no signal table, no EXECUTE on
 * pg_logical_emit_message) snapshots too: the snapshot waits for the source's next commit, and a
 * task restarted meanwhile reads the signal again.
 */
@EitherPlatform
class KafkaSignalIT {

  @Test
  void aSignalOnTheTopicReloadsADamagedTableAtomicallyWhileTheStreamGoesOn() throws Exception {
    try (TestScope scope = STACK.newScope("kafka_signal")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, SnapshotIT.SCHEMA);
      src.execute(
          "INSERT INTO account SELECT g, 1000 FROM generate_series(1, "
              + SnapshotIT.ACCOUNTS
              + ") g",
          "INSERT INTO moved VALUES (1, 0)",
          "INSERT INTO ledger (from_id, to_id, amount, note) SELECT g % 100 + 1, g % 100 + 1,"
              + " 1 + g % 50, 'n' || g FROM generate_series(1, 20000) g",
          "UPDATE moved SET total = (SELECT sum(amount) FROM ledger)");
      String strict = scope.createTopic("strict", 1);
      String signals = scope.createTopic("signals", 1);
      String source =
          deploySource(
              scope,
              src,
              strict,
              "public.account,public.ledger,public.moved",
              Map.of("signal.kafka.topic", signals));
      String sink = deploySink(scope, "sink", dst, strict, Map.of());
      awaitEqual(src, dst, "ledger", "id");
      awaitEqual(src, dst, "moved", "id");

      long deleted = dst.queryLong("SELECT sum(amount) FROM ledger WHERE id <= 2000");
      dst.execute(
          "DELETE FROM ledger WHERE id <= 2000",
          "UPDATE ledger SET note = 'damaged' WHERE id BETWEEN 5000 AND 6000");
      String gap = "(SELECT max(total) FROM moved) - (SELECT coalesce(sum(amount), 0) FROM ledger)";
      BankReader reader =
          new BankReader(
              dst,
              "SELECT CASE WHEN "
                  + gap
                  + " IN (0, "
                  + deleted
                  + ") AND (SELECT sum(balance) FROM account) = "
                  + SnapshotIT.TOTAL
                  + " THEN 0 ELSE 1 END",
              0);
      SnapshotIT.Transfers transfers = new SnapshotIT.Transfers(src, 11);
      transfers.start();
      try (KafkaProducer<String, String> producer = producer()) {
        // another connector's signal, and malformed ones: skipped or logged, nothing stops
        send(producer, signals, "some-other-connector", snapshot("theirs", "public.ledger"));
        send(producer, signals, source, "{\"id\": \"bad-1\", \"type\": \"snapshot\"");
        send(producer, signals, source, "{\"id\":\"bad-2\",\"type\":\"explode\",\"data\":\"x\"}");
        send(producer, signals, source, snapshot("refused-1", "public.nope"));
        long movedBefore = src.queryLong("SELECT total FROM moved");
        await().atMost(WAIT).until(() -> dst.queryLong("SELECT total FROM moved") > movedBefore);
        await()
            .atMost(WAIT)
            .until(() -> committed(signals, source) == 4); // each settled once taken
        assertThat(dst.queryLong("SELECT " + gap))
            .as("the damage is still there")
            .isEqualTo(deleted);

        send(producer, signals, source, snapshot("reload-1", "public.ledger"));
      }
      await()
          .atMost(WAIT)
          .until(
              () ->
                  dst.queryLong("SELECT " + gap) == 0
                      && dst.queryLong("SELECT count(*) FROM ledger WHERE note = 'damaged'") == 0);
      long movedAfter = src.queryLong("SELECT total FROM moved");
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT total FROM moved") > movedAfter);
      int committed = transfers.stop();
      transfers.batch(30);
      awaitEqual(src, dst, "account", "id");
      awaitEqual(src, dst, "ledger", "id");
      awaitEqual(src, dst, "moved", "id");
      List<Long> broken = reader.stop();
      await()
          .atMost(WAIT)
          .alias("the signal's offset, committed once its snapshot is acknowledged")
          .until(() -> committed(signals, source) == 5);

      assertThat(committed).as("transfers committed around the signal").isGreaterThan(10);
      assertThat(reader.reads()).isGreaterThan(10);
      assertThat(broken)
          .as("reads of %d that saw the ledger half re-loaded", reader.reads())
          .isEmpty();
      assertThat(
              dst.queryLong(
                  "SELECT count(*) FROM trellara_sink.applied_transactions"
                      + " WHERE transaction_id = 'snapshot'"))
          .as("the initial snapshot and the one signalled")
          .isEqualTo(2);
      assertThat(
              src.queryLong(
                  "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE '%resnap'"))
          .isZero();
      assertThat(STACK.rest().status(source).isFailed()).isFalse();
      assertThat(STACK.rest().status(sink).isFailed()).isFalse();
    }
  }

  @Test
  void aSourceRoleThatCannotWriteSnapshotsThroughTheTopicAtTheNextCommit() throws Exception {
    try (TestScope scope = STACK.newScope("kafka_signal_ro")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(
          src,
          dst,
          "CREATE TABLE item (id int PRIMARY KEY, name text)",
          "CREATE TABLE other (id int PRIMARY KEY)");
      String role = scope.prefix().toLowerCase().replaceAll("[^a-z0-9_]", "_") + "_reader";
      src.execute(
          "INSERT INTO item SELECT g, 'i' || g FROM generate_series(1, 3000) g",
          "CREATE ROLE " + role + " LOGIN REPLICATION PASSWORD 'reader'",
          "GRANT SELECT ON item, other TO " + role,
          "CREATE PUBLICATION " + scope.publicationName() + " FOR TABLE item, other",
          "DO $$ DECLARE f regprocedure; BEGIN FOR f IN SELECT oid::regprocedure FROM pg_proc"
              + " WHERE proname = 'pg_logical_emit_message' LOOP EXECUTE format('REVOKE EXECUTE ON"
              + " FUNCTION %s FROM PUBLIC', f); END LOOP; END $$");
      assertThat(
              src.queryLong(
                  "SELECT count(*) FROM pg_proc WHERE proname = 'pg_logical_emit_message' AND"
                      + " has_function_privilege('"
                      + role
                      + "', oid, 'EXECUTE')"))
          .as("the source role cannot write a logical message")
          .isZero();
      assertThat(
              src.queryLong(
                  "SELECT count(*) FROM information_schema.table_privileges WHERE grantee = '"
                      + role
                      + "' AND privilege_type <> 'SELECT'"))
          .as("nor any table")
          .isZero();
      String strict = scope.createTopic("strict", 1);
      String signals = scope.createTopic("signals", 1);
      Map<String, String> extra = new HashMap<>();
      extra.put("database.user", role);
      extra.put("database.password", "reader");
      extra.put("publication.autocreate.mode", "disabled");
      extra.put("ddl.capture.enabled", "false");
      extra.put("signal.kafka.topic", signals);
      String source = deploySource(scope, src, strict, "public.item,public.other", extra);
      deploySink(scope, "sink", dst, strict, Map.of());
      awaitEqual(src, dst, "item", "id");

      dst.execute(
          "DELETE FROM item WHERE id <= 500", "UPDATE item SET name = 'damaged' WHERE id > 2900");
      try (KafkaProducer<String, String> producer = producer()) {
        send(producer, signals, source, snapshot("ro-1", "public.item"));
      }
      // taken, its slot created, no watermark written: it waits for a commit on the source
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10))
          .until(() -> dst.queryLong("SELECT count(*) FROM item") == 2500);
      assertThat(committed(signals, source)).as("not settled while it waits").isZero();
      // at least once: a task stopped meanwhile leaves the signal uncommitted; the new task reads
      // it again and snapshots (the old task's waiting snapshot was cancelled with it)
      STACK.rest().restartTask(source, 0);
      STACK.rest().awaitRunning(source);
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(10))
          .until(() -> dst.queryLong("SELECT count(*) FROM item") == 2500);
      assertThat(committed(signals, source)).isZero();

      src.execute("INSERT INTO other VALUES (1)");
      awaitEqual(src, dst, "item", "id");
      awaitEqual(src, dst, "other", "id");
      await().atMost(WAIT).until(() -> committed(signals, source) == 1);
      assertThat(STACK.rest().status(source).isFailed()).isFalse();
    }
  }

  private static KafkaProducer<String, String> producer() {
    Map<String, Object> c = new HashMap<>(STACK.broker().clientConfig());
    c.put("key.serializer", StringSerializer.class);
    c.put("value.serializer", StringSerializer.class);
    return new KafkaProducer<>(c);
  }

  private static void send(KafkaProducer<String, String> p, String topic, String key, String value)
      throws Exception {
    p.send(new ProducerRecord<>(topic, key, value)).get();
  }

  private static String snapshot(String id, String table) {
    return "{\"id\": \"" + id + "\", \"type\": \"snapshot\", \"data\": \"" + table + "\"}";
  }

  /** The signal consumer group's committed offset on partition 0 (0: none). */
  private static long committed(String topic, String connector) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> offsets =
        STACK
            .broker()
            .admin()
            .listConsumerGroupOffsets("trellara-signal-" + connector)
            .partitionsToOffsetAndMetadata()
            .get();
    OffsetAndMetadata o = offsets.get(new TopicPartition(topic, 0));
    return o == null ? 0 : o.offset();
  }
}
