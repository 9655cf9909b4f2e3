package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.source.capture.Rows;
import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The source connector deployed by POSTing JSON to a real worker, against a real PostgreSQL and
 * broker.
 */
@EitherPlatform
class SourceConnectorIT {
  static final TrellaraStack STACK = TrellaraStack.get();
  static final Duration WAIT = Duration.ofSeconds(90);

  /**
   * The envelopes of the topic: the streamed transactions. A test's seed rows arrive before them as
   * the initial snapshot (chunks, manifest, commit marker), which these helpers pass over.
   */
  static List<TransactionEnvelope> envelopes(String topic) {
    return STACK.broker().readAll(topic).stream()
        .filter(r -> MessageKind.ENVELOPE.wireName().equals(r.headerAsString(MessageKind.HEADER)))
        .map(r -> TrellaraCodec.decodeEnvelope(r.value()))
        .toList();
  }

  static List<TransactionEnvelope> awaitEnvelopes(String topic, int count) {
    await().atMost(WAIT).until(() -> envelopes(topic).size() >= count);
    return envelopes(topic);
  }

  static String deploy(
      TestScope scope,
      PostgresDatabase db,
      String topic,
      String tables,
      Map<String, String> extra) {
    String name =
        scope.createConnector("source", ConnectorConfigs.source(scope, db, topic, tables, extra));
    STACK.rest().awaitRunning(name);
    return name;
  }

  private static String text(TransactionEnvelope e, ChangeRecord c, boolean after, String column) {
    ColumnValue v = Rows.column(e, c, after ? c.getAfter() : c.getBefore(), column);
    return v.getState() == ColumnState.COLUMN_STATE_VALUE ? v.getText() : v.getState().name();
  }

  @Test
  void oneTransactionAcrossThreeTablesIsExactlyOneEnvelope() {
    try (TestScope scope = STACK.newScope("oneEnvelope")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE customer (id bigint PRIMARY KEY, name text)",
          "CREATE TABLE orders (id bigint PRIMARY KEY, customer bigint, amount numeric(12,2),"
              + " placed timestamptz)",
          "CREATE TABLE audit (id bigserial PRIMARY KEY, note text)",
          "INSERT INTO customer VALUES (1, 'old'), (2, 'gone')",
          "INSERT INTO audit (note) VALUES ('x')");
      String topic = scope.createTopic("strict", 1);
      deploy(scope, db, topic, "public.customer,public.orders,public.audit", Map.of());
      db.executeInTransaction(
          "INSERT INTO orders VALUES (10, 1, 12.50, '2026-11-29 12:00:00+05:45')",
          "UPDATE customer SET name = 'new' WHERE id = 1",
          "DELETE FROM customer WHERE id = 2",
          "INSERT INTO orders VALUES (11, 1, 0.10, '2026-11-29 12:00:01+00')",
          "TRUNCATE audit");

      List<TransactionEnvelope> all = awaitEnvelopes(topic, 1);
      assertThat(all).hasSize(1);
      TransactionEnvelope e = all.get(0);
      assertThat(e.getChangesList())
          .extracting(ChangeRecord::getOperation)
          .containsExactly(
              Operation.OPERATION_INSERT,
              Operation.OPERATION_UPDATE,
              Operation.OPERATION_DELETE,
              Operation.OPERATION_INSERT,
              Operation.OPERATION_TRUNCATE);
      assertThat(e.getChangesList())
          .extracting(ChangeRecord::getTotalOrder)
          .containsExactly(1L, 2L, 3L, 4L, 5L);
      assertThat(e.getChangesList())
          .extracting(ChangeRecord::getTableOrder)
          .containsExactly(1L, 1L, 2L, 2L, 1L);
      assertThat(text(e, e.getChanges(0), true, "amount")).isEqualTo("12.50");
      assertThat(text(e, e.getChanges(0), true, "placed")).isEqualTo("2026-11-29 06:15:00+00");
      assertThat(text(e, e.getChanges(1), true, "name")).isEqualTo("new");
      assertThat(text(e, e.getChanges(2), false, "id")).isEqualTo("2");
      assertThat(e.getChanges(4).getTruncate().getRelations(0).getTable()).isEqualTo("audit");
      assertThat(Lsn.parse(e.getBeginLsn())).isLessThanOrEqualTo(Lsn.parse(e.getCommitLsn()));
      assertThat(e.getSchemaVersionsCount()).isEqualTo(3);
    }
  }

  @Test
  void unchangedToastColumnIsCarriedAsUnchanged() {
    try (TestScope scope = STACK.newScope("toast")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE doc (id int PRIMARY KEY, title text, body text)",
          "ALTER TABLE doc ALTER COLUMN body SET STORAGE EXTERNAL",
          "INSERT INTO doc SELECT 1, 't', string_agg(md5(g::text), '') FROM generate_series(1, 2000) g");
      String topic = scope.createTopic("strict", 1);
      deploy(scope, db, topic, "public.doc", Map.of());
      db.execute("UPDATE doc SET title = 'changed' WHERE id = 1");
      TransactionEnvelope e = awaitEnvelopes(topic, 1).get(0);
      assertThat(text(e, e.getChanges(0), true, "title")).isEqualTo("changed");
      assertThat(text(e, e.getChanges(0), true, "body")).isEqualTo("COLUMN_STATE_UNCHANGED_TOAST");
    }
  }

  @Test
  void ddlInsideATransactionIsAnEventInOrder() throws Exception {
    try (TestScope scope = STACK.newScope("ddl")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute("CREATE TABLE item (id int PRIMARY KEY, name text)");
      db.execute("CREATE TABLE bystander (id int PRIMARY KEY)");
      String topic = scope.createTopic("strict", 1);
      String name = deploy(scope, db, topic, "public.item", Map.of());
      db.executeInTransaction(
          "INSERT INTO item VALUES (1, 'a')",
          "ALTER TABLE item ADD COLUMN qty int",
          "CREATE TEMP TABLE t_tmp (x int)",
          "ALTER TABLE bystander ADD COLUMN note text",
          "INSERT INTO item VALUES (2, 'b', 5)");
      TransactionEnvelope e = awaitEnvelopes(topic, 1).get(0);
      assertThat(e.getDdlEvents(0).getRelation().getTable()).isEqualTo("item");
      // the trigger is database-wide: the temp table's and the uncaptured table's DDL are dropped
      // here
      ObjectName bean =
          new ObjectName("io.trellara:type=source-task,connector=" + name + ",task=0");
      MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
      await().atMost(WAIT).until(() -> (Long) jmx.getAttribute(bean, "DdlEventsDropped") == 2);
      assertThat(e.getDdlEventsCount()).isEqualTo(1);
      assertThat(e.getDdlEvents(0).getTotalOrder()).isEqualTo(2);
      assertThat(e.getDdlEvents(0).getCommandTag()).isEqualTo("ALTER TABLE");
      assertThat(e.getDdlEvents(0).getStatement()).contains("ADD COLUMN qty");
      assertThat(e.getChangesList())
          .extracting(ChangeRecord::getTotalOrder)
          .containsExactly(1L, 3L);
      assertThat(text(e, e.getChanges(1), true, "qty")).isEqualTo("5");
    }
  }

  /**
   * Protocol 2 streams it (64 kB decoding memory); protocol 1 gets it whole; the envelopes agree.
   */
  @Test
  void largeStreamedTransactionYieldsExactlyTheCommittedChangesUnderBothProtocols()
      throws Exception {
    try (TestScope scope = STACK.newScope("streamed")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE big (id int PRIMARY KEY, payload text)",
          "ALTER DATABASE \"" + db.name() + "\" SET logical_decoding_work_mem = '64kB'");
      String v2 = scope.createTopic("v2", 1);
      String v1 = scope.createTopic("v1", 1);
      deploy(scope, db, v2, "public.big", Map.of("slot.name", scope.slotName("v2")));
      String name1 =
          scope.createConnector(
              "source-v1",
              ConnectorConfigs.source(
                  scope,
                  db,
                  v1,
                  "public.big",
                  Map.of(
                      "slot.name",
                      scope.slotName("v1"),
                      "source.pgoutput.protocol_version",
                      "1",
                      "source.pgoutput.streaming",
                      "false",
                      "publication.autocreate.mode",
                      "disabled")));
      STACK.rest().awaitRunning(name1);

      try (var aborted = db.connect();
          var committed = db.connect()) {
        aborted.setAutoCommit(false);
        committed.setAutoCommit(false);
        try (var a = aborted.createStatement();
            var c = committed.createStatement()) {
          a.execute(
              "INSERT INTO big SELECT g, md5(g::text) FROM generate_series(100001, 103000) g");
          c.execute("INSERT INTO big SELECT g, md5(g::text) FROM generate_series(1, 2000) g");
          c.execute("SAVEPOINT s");
          c.execute("INSERT INTO big SELECT g, 'rolled back' FROM generate_series(2001, 2600) g");
          c.execute("ROLLBACK TO SAVEPOINT s");
          c.execute("UPDATE big SET payload = 'updated' WHERE id <= 500");
          a.execute(
              "INSERT INTO big SELECT g, md5(g::text) FROM generate_series(103001, 104000) g");
          aborted.rollback();
          committed.commit();
        }
      }
      TransactionEnvelope streamed = awaitEnvelopes(v2, 1).get(0);
      TransactionEnvelope whole = awaitEnvelopes(v1, 1).get(0);
      assertThat(streamed.getChangesCount()).isEqualTo(2500);
      assertThat(streamed.getChangesList())
          .allSatisfy(
              c -> assertThat(Integer.parseInt(text(streamed, c, true, "id"))).isBetween(1, 2000));
      assertThat(streamed.getChangesList())
          .extracting(c -> c.toBuilder().clearIdempotencyKey().build())
          .isEqualTo(
              whole.getChangesList().stream()
                  .map(c -> c.toBuilder().clearIdempotencyKey().build())
                  .toList());
      assertThat(envelopes(v2)).hasSize(1);
    }
  }

  @Test
  void restartLosesNothingAndTheSlotNeverPassesWhatKafkaHolds() {
    try (TestScope scope = STACK.newScope("restart")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute("CREATE TABLE t (id int PRIMARY KEY, v int)");
      String topic = scope.createTopic("strict", 1);
      String name = deploy(scope, db, topic, "public.t", Map.of());
      for (int i = 1; i <= 20; i++) {
        db.execute("INSERT INTO t VALUES (" + i + ", " + i + ")");
      }
      awaitEnvelopes(topic, 5);
      STACK.rest().restart(name, true, false);
      for (int i = 21; i <= 40; i++) {
        db.execute("INSERT INTO t VALUES (" + i + ", " + i + ")");
      }
      STACK.rest().awaitRunning(name);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  envelopes(topic).stream()
                          .map(e -> text(e, e.getChanges(0), true, "id"))
                          .distinct()
                          .count()
                      == 40);
      List<TransactionEnvelope> all = envelopes(topic);
      Lsn lastHeld =
          all.stream().map(e -> Lsn.parse(e.getCommitLsn())).max(Lsn::compareTo).orElseThrow();
      String slot =
          db.queryString(
              "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '"
                  + scope.slotName()
                  + "'");
      // confirmed flush is a commit record's end: at most just past the last commit Kafka holds
      assertThat(Lsn.parse(slot).value() - lastHeld.value()).isLessThan(4096);
    }
  }

  @Test
  void idleSlotAdvancesWhileOtherTablesAreBusy() throws Exception {
    try (TestScope scope = STACK.newScope("heartbeat")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE captured (id int PRIMARY KEY)", "CREATE TABLE busy (id int PRIMARY KEY)");
      String topic = scope.createTopic("strict", 1);
      String name =
          deploy(
              scope, db, topic, "public.captured", Map.of("replication.status.interval.ms", "200"));
      String query =
          "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '"
              + scope.slotName()
              + "'";
      await().atMost(WAIT).until(() -> db.queryString(query) != null);
      Lsn before = Lsn.parse(db.queryString(query));
      for (int i = 0; i < 50; i++) {
        db.execute("INSERT INTO busy VALUES (" + i + ")");
      }
      Lsn written = Lsn.parse(db.queryString("SELECT pg_current_wal_lsn()::text"));
      await().atMost(WAIT).until(() -> Lsn.parse(db.queryString(query)).compareTo(written) >= 0);
      assertThat(Lsn.parse(db.queryString(query))).isGreaterThan(before);
      assertThat(envelopes(topic)).isEmpty();
      // the slot's WAL status is sampled with the lag (no max_slot_wal_keep_size here: no limit)
      var bean = io.trellara.connect.common.TaskMBeans.name("source-task", name, "0");
      var server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
      await().atMost(WAIT).until(() -> server.getAttribute(bean, "SlotWalStatus") != null);
      assertThat(server.getAttribute(bean, "SlotWalStatus")).isIn("reserved", "extended");
      assertThat(server.getAttribute(bean, "SlotSafeWalBytes")).isEqualTo(-1L);
    }
  }

  @Test
  void validateExplainsWhatIsWrong() {
    try (TestScope scope = STACK.newScope("validate")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE nokey (v int)",
          "CREATE TABLE full_ident (id int PRIMARY KEY)",
          "ALTER TABLE full_ident REPLICA IDENTITY FULL",
          "CREATE TABLE odd (k money PRIMARY KEY)");
      Map<String, String> config =
          ConnectorConfigs.source(
              scope,
              db,
              "t",
              "public.nokey,public.full_ident," + "public.odd",
              Map.of(
                  "tasks.max",
                  "2",
                  "source.pgoutput.protocol_version",
                  "1",
                  "source.pgoutput.streaming",
                  "true"));
      ConnectRestClient.ValidationResult r =
          STACK.rest().validate(ConnectorConfigs.SOURCE_CLASS, config);
      assertThat(String.join("\n", r.messages()))
          .contains("tasks.max=2", "protocol 1 cannot stream");
      Map<String, String> fixed = new java.util.HashMap<>(config);
      fixed.put("tasks.max", "1");
      fixed.put("source.pgoutput.streaming", "false");
      String messages =
          String.join("\n", STACK.rest().validate(ConnectorConfigs.SOURCE_CLASS, fixed).messages());
      assertThat(messages)
          .contains(
              "public.nokey has no primary key",
              "REPLICA IDENTITY FULL",
              "Key column \"k\" of public.odd has type money");
    }
  }

  @Test
  void errorsToleranceAndTransformsAreRefusedByValidationAndByCreation() {
    try (TestScope scope = STACK.newScope("refused")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute("CREATE TABLE t (id int PRIMARY KEY)");
      String topic = scope.createTopic("strict", 1);
      Map<String, String> tolerant =
          ConnectorConfigs.source(scope, db, topic, "public.t", Map.of("errors.tolerance", "all"));
      Map<String, String> transformed =
          ConnectorConfigs.source(
              scope,
              db,
              topic,
              "public.t",
              Map.of(
                  "transforms",
                  "drop",
                  "transforms.drop.type",
                  "org.apache.kafka.connect.transforms.Filter"));

      ConnectRestClient.ValidationResult r1 =
          STACK.rest().validate(ConnectorConfigs.SOURCE_CLASS, tolerant);
      assertThat(r1.errors().get("errors.tolerance"))
          .singleElement()
          .asString()
          .contains("errors.tolerance=all is refused", "data loss");
      ConnectRestClient.ValidationResult r2 =
          STACK.rest().validate(ConnectorConfigs.SOURCE_CLASS, transformed);
      assertThat(r2.errors().get("transforms"))
          .singleElement()
          .asString()
          .contains("transforms=drop is refused");

      for (Map<String, String> config : List.of(tolerant, transformed)) {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> scope.createConnector("source", config))
            .isInstanceOf(ConnectRestClient.ConnectRestException.class)
            .satisfies(
                e ->
                    assertThat(((ConnectRestClient.ConnectRestException) e).status())
                        .isEqualTo(400))
            .hasMessageContaining("is refused");
      }
      assertThat(STACK.rest().connectors()).doesNotContain(scope.connectorName("source"));
      // the same config without them validates clean
      assertThat(
              STACK
                  .rest()
                  .validate(
                      ConnectorConfigs.SOURCE_CLASS,
                      ConnectorConfigs.source(scope, db, topic, "public.t", Map.of()))
                  .messages())
          .isEmpty();
    }
  }

  @Test
  void validationReportsAnExistingStrictTopicWithTwoPartitionsNamingTheCounts() {
    try (TestScope scope = STACK.newScope("twoPartitions")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute("CREATE TABLE t (id int PRIMARY KEY)");
      String topic = scope.createTopic("strict", 2);
      ConnectRestClient.ValidationResult r =
          STACK
              .rest()
              .validate(
                  ConnectorConfigs.SOURCE_CLASS,
                  ConnectorConfigs.source(scope, db, topic, "public.t", Map.of()));
      assertThat(r.errors().get("topic.strict"))
          .singleElement()
          .asString()
          .contains("Topic '" + topic + "' has 2 partition(s)", "requires exactly 1");
    }
  }
}
