package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Source connector, Kafka and sink connector between two real PostgreSQL servers, deployed over
 * REST.
 */
@EitherPlatform
class SinkEndToEndIT {

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"strict", "strict_chunked", "partitioned"})
  void mixedWorkloadLeavesEveryTargetTableEqualToItsSource(String mode) {
    try (TestScope scope = STACK.newScope("mixed_" + mode)) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(
          src,
          dst,
          "CREATE TABLE product (id int PRIMARY KEY, name text, price numeric(10,2), tags text[],"
              + " attrs jsonb, uid uuid, created timestamptz, raw bytea)",
          "CREATE TABLE stock (sku text PRIMARY KEY, qty int)",
          "CREATE TABLE event_log (id bigint PRIMARY KEY, note text)");
      // the column added below gets a DEFAULT that fills existing rows: only replayed DDL can carry
      // that
      deployPair(
          scope,
          mode,
          src,
          dst,
          "public.product,public.stock,public.event_log",
          Map.of("ddl.apply", "replay", "ddl.replay.trust.topic.writers", "true"));

      src.executeInTransaction(
          "INSERT INTO product SELECT g, 'p' || g, g * 1.25, ARRAY['a', 'b''q'], '{\"k\": [1, 2.50]}',"
              + " md5(g::text)::uuid, '2026-03-29 02:30:00+01', decode(lpad(to_hex(g), 4, '0'), 'hex')"
              + " FROM generate_series(1, 200) g",
          "INSERT INTO stock SELECT 'sku-' || g, g FROM generate_series(1, 50) g",
          "INSERT INTO event_log VALUES (1, ''), (2, NULL), (3, 'line\nbreak \\ tab\t')");
      src.executeInTransaction(
          "UPDATE product SET price = price * 2 WHERE id % 3 = 0",
          "UPDATE product SET id = id + 1000 WHERE id <= 10",
          "DELETE FROM product WHERE id BETWEEN 50 AND 60",
          "UPDATE stock SET qty = qty - 1 WHERE sku = 'sku-7'");
      src.executeInTransaction(
          "TRUNCATE event_log", "INSERT INTO event_log VALUES (9, 'after truncate')");
      src.executeInTransaction(
          "ALTER TABLE stock ADD COLUMN warehouse text DEFAULT 'main'",
          "UPDATE stock SET warehouse = 'north' WHERE sku = 'sku-1'",
          "INSERT INTO stock VALUES ('sku-new', 5, 'south')");

      awaitEqual(src, dst, "product", "id");
      awaitEqual(src, dst, "stock", "sku");
      awaitEqual(src, dst, "event_log", "id");
      assertThat(appliedTransactions(dst)).isEqualTo(4);
    }
  }

  /**
   * bug 4 (docs/benchmarks.md, "Crash sequences"): under the default ddl.apply=structured an ADD
   * COLUMN in a transaction that changes no row of its table reaches the target in that transaction
   * (the DDL event carries the table's new schema version), for a table the source has streamed
   * rows of and for one it only knows from the publication; the table's next row, of the same
   * schema, evolves nothing more.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"strict", "strict_chunked"})
  void anAddColumnWithoutRowsReachesTheTargetInItsOwnTransaction(String mode) {
    try (TestScope scope = STACK.newScope("ddlcols_" + mode)) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(
          src,
          dst,
          "CREATE TABLE bulk (id int PRIMARY KEY, note text)",
          "CREATE TABLE quiet (id int PRIMARY KEY)",
          "CREATE TABLE other (id int PRIMARY KEY)");
      src.execute("INSERT INTO quiet VALUES (1)"); // reaches the target by the initial snapshot
      deployPair(scope, mode, src, dst, "public.bulk,public.quiet,public.other", Map.of());
      src.executeInTransaction("INSERT INTO bulk VALUES (1, 'a'), (2, 'b')");
      awaitEqual(src, dst, "bulk", "id");
      awaitEqual(src, dst, "quiet", "id");

      src.executeInTransaction(
          "ALTER TABLE bulk ADD COLUMN x int",
          "ALTER TABLE quiet ADD COLUMN y numeric(8,2)",
          "INSERT INTO other VALUES (1)");
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT count(*) FROM other") == 1);
      // the row of other and the columns were committed in one target transaction
      assertThat(dst.query(columns("bulk")))
          .containsExactly(
              List.of("id", "integer"), List.of("note", "text"), List.of("x", "integer"));
      assertThat(dst.query(columns("quiet")))
          .containsExactly(List.of("id", "integer"), List.of("y", "numeric"));
      List<List<Object>> recorded = dst.query(RECORDED);
      assertThat(recorded).hasSize(2);

      src.executeInTransaction(
          "INSERT INTO bulk VALUES (3, 'c', 7)", "INSERT INTO quiet VALUES (2, 1.50)");
      awaitEqual(src, dst, "bulk", "id");
      awaitEqual(src, dst, "quiet", "id");
      assertThat(dst.query(RECORDED))
          .as("rows of the same schema version: no second evolution")
          .isEqualTo(recorded);
    }
  }

  private static String columns(String table) {
    return "SELECT column_name::text, data_type::text FROM information_schema.columns"
        + " WHERE table_schema = 'public' AND table_name = '"
        + table
        + "' ORDER BY ordinal_position";
  }

  private static final String RECORDED =
      "SELECT source_table, fingerprint, updated_at::text FROM trellara_sink.relation_schemas"
          + " WHERE source_table IN ('bulk', 'quiet') ORDER BY source_table";

  /**
   * Money moves between accounts; a reader polling the target must never see the total change: at
   * the defaults (buffered transactions grouped, synchronous_commit off) and with one synchronous
   * commit per transaction.
   */
  @ParameterizedTest(name = "{0} group={1} synchronous_commit={2}")
  @org.junit.jupiter.params.provider.CsvSource({
    "strict,default,default",
    "strict_chunked,default,default",
    "partitioned,default,default",
    "strict,1,on"
  })
  void readersNeverSeeAHalfAppliedTransaction(String mode, String group, String synchronousCommit)
      throws Exception {
    Map<String, String> apply =
        group.equals("default")
            ? Map.of()
            : Map.of(
                "apply.group.max.transactions",
                group,
                "apply.synchronous_commit",
                synchronousCommit);
    try (TestScope scope = STACK.newScope("bank_" + mode + (apply.isEmpty() ? "" : "_g" + group))) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL)");
      src.execute("INSERT INTO account SELECT g, 1000 FROM generate_series(1, 100) g");
      // the initial snapshot loads the accounts: a reader sees none or all of them
      BankReader reader =
          new BankReader(
              dst,
              "SELECT CASE WHEN count(*) = 0 THEN 100000 ELSE sum(balance) END" + " FROM account",
              100_000);
      deployPair(scope, mode, src, dst, "public.account", apply);

      Random random = new Random(7);
      for (int t = 0; t < 60; t++) {
        int moves = t % 10 == 0 ? 400 : 2; // some large transfers
        String[] statements = new String[moves * 2];
        for (int m = 0; m < moves; m++) {
          int from = 1 + random.nextInt(100);
          int to = 1 + random.nextInt(100);
          int amount = 1 + random.nextInt(50);
          statements[2 * m] =
              "UPDATE account SET balance = balance - " + amount + " WHERE id = " + from;
          statements[2 * m + 1] =
              "UPDATE account SET balance = balance + " + amount + " WHERE id = " + to;
        }
        src.executeInTransaction(statements);
      }
      awaitEqual(src, dst, "account", "id");
      List<Long> wrongTotals = reader.stop();
      assertThat(reader.reads()).isGreaterThan(10);
      assertThat(wrongTotals)
          .as("reads of %d that saw a partial transaction", reader.reads())
          .isEmpty();
    }
  }

  @Test
  void redeliveredTransactionsAreNeverAppliedTwice() throws Exception {
    try (TestScope scope = STACK.newScope("redelivery")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE counter (id int PRIMARY KEY, hits int)");
      src.execute("INSERT INTO counter VALUES (1, 0)");
      dst.execute(
          "INSERT INTO counter VALUES (1, 0)"); // loaded by hand: no snapshot, the topic holds 16
      // updates
      String topic = scope.createTopic("strict", 1);
      deploySource(scope, src, topic, "public.counter", Map.of("snapshot.mode", "never"));
      String sink = deploySink(scope, "sink", dst, topic, Map.of());
      for (int i = 0; i < 15; i++) {
        src.execute("UPDATE counter SET hits = hits + 1");
      }
      awaitEqual(src, dst, "counter", "id");

      // the same sink from offset 0 (Kafka offsets reset): the target checkpoint wins
      STACK.rest().stop(sink);
      STACK.rest().awaitState(sink, "STOPPED");
      STACK.rest().resetOffsets(sink);
      STACK.rest().resume(sink);
      // a second sink over the same topic and target: every transaction is a duplicate
      deploySink(scope, "sink-again", dst, topic, Map.of());
      src.execute("UPDATE counter SET hits = hits + 1");
      awaitEqual(src, dst, "counter", "id");
      await()
          .atMost(WAIT)
          .ignoreExceptions()
          .until(
              () ->
                  dst.queryLong(
                          "SELECT count(*) FROM trellara_sink.progress WHERE next_offset = 16")
                      == 2);
      assertThat(dst.queryLong("SELECT hits FROM counter")).isEqualTo(16);
      assertThat(appliedTransactions(dst)).isEqualTo(16);
      // the second sink read all 16 transactions; those the first sink had applied count as
      // duplicates
      String again = scope.connectorName("sink-again");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  sinkMetric(again, "DuplicatesSkipped") + sinkMetric(again, "TransactionsApplied")
                      == 16);
      assertThat(sinkMetric(again, "DuplicatesSkipped")).isGreaterThanOrEqualTo(15L);
    }
  }

  @Test
  void updatingASmallColumnLeavesTheLargeToastedColumnIntact() {
    try (TestScope scope = STACK.newScope("toast")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE doc (id int PRIMARY KEY, title text, body text)");
      String topic = scope.createTopic("strict", 1);
      deploySource(scope, src, topic, "public.doc", Map.of());
      deploySink(scope, "sink", dst, topic, Map.of());
      src.execute(
          "INSERT INTO doc SELECT 1, 't', string_agg(md5(g::text), '') FROM generate_series(1, 5000) g");
      src.execute("UPDATE doc SET title = 'changed' WHERE id = 1");
      awaitEqual(src, dst, "doc", "id");
      assertThat(dst.queryLong("SELECT length(body) FROM doc")).isEqualTo(160_000);
    }
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "group={0} synchronous_commit={1}")
  @org.junit.jupiter.params.provider.CsvSource({"1,on", "50,off"})
  void targetOutageIsRiddenOutAndTheResultIsExact(String group, String synchronousCommit) {
    try (TestScope scope = STACK.newScope("outage")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE t (id int PRIMARY KEY, v int)");
      String topic = scope.createTopic("strict", 1);
      deploySource(scope, src, topic, "public.t", Map.of());
      deploySink(
          scope,
          "sink",
          dst,
          topic,
          Map.of(
              "retry.backoff.max.ms",
              "500",
              "apply.group.max.transactions",
              group,
              "apply.synchronous_commit",
              synchronousCommit));
      for (int i = 1; i <= 20; i++) {
        src.execute("INSERT INTO t VALUES (" + i + ", 0)");
      }
      awaitEqual(src, dst, "t", "id");
      try {
        dst.server().stop();
        for (int i = 21; i <= 60; i++) {
          src.executeInTransaction(
              "INSERT INTO t VALUES (" + i + ", 0)",
              "UPDATE t SET v = v + 1 WHERE id = " + (i - 20));
        }
      } finally {
        dst.server().start();
      }
      awaitEqual(src, dst, "t", "id");
      assertThat(appliedTransactions(dst)).isEqualTo(60);
    }
  }

  /**
   * The target down for over a minute at the sink's default retry settings: retries are bounded by
   * time (10 minutes), not by attempts, so the sink rides it out; nothing is lost or applied twice.
   * The outage lasts until the sink has retried 12 times, which its default backoff (200 ms
   * doubling to 10 s) spreads over more than 60 s (under the old limit of 10 attempts the task
   * failed after about 40 s).
   */
  @Test
  void aMinuteLongTargetOutageIsRiddenOutAtTheDefaults() throws Exception {
    try (TestScope scope = STACK.newScope("longOutage")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE t (id int PRIMARY KEY, v int)");
      String topic = scope.createTopic("strict", 1);
      deploySource(scope, src, topic, "public.t", Map.of());
      String sink = deploySink(scope, "sink", dst, topic, Map.of());
      src.execute("INSERT INTO t VALUES (1, 0)");
      awaitEqual(src, dst, "t", "id");
      long down;
      try {
        dst.server().stop();
        down = System.nanoTime();
        for (int i = 2; i <= 30; i++) {
          src.executeInTransaction(
              "INSERT INTO t VALUES (" + i + ", 0)", "UPDATE t SET v = v + 1 WHERE id = 1");
        }
        await().atMost(Duration.ofSeconds(180)).until(() -> sinkMetric(sink, "Retries") >= 12);
      } finally {
        dst.server().start();
      }
      System.out.printf("target down for %.1f s%n", (System.nanoTime() - down) / 1e9);
      awaitEqual(src, dst, "t", "id");
      assertThat(appliedTransactions(dst)).isEqualTo(30);
      assertThat(STACK.rest().status(sink).isRunning(1)).isTrue();
    }
  }

  @Test
  void validateRefusesSettingsThatWouldLoseDataSilently() {
    try (TestScope scope = STACK.newScope("sinkValidate")) {
      Map<String, String> config =
          new java.util.HashMap<>(
              io.trellara.testplatform.ConnectorConfigs.sink(
                  scope.targetDatabase(), "t", Map.of()));
      config.put("errors.tolerance", "all");
      config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
      String messages =
          String.join(
              "\n",
              STACK
                  .rest()
                  .validate(io.trellara.testplatform.ConnectorConfigs.SINK_CLASS, config)
                  .messages());
      assertThat(messages)
          .contains(
              "errors.tolerance=all would let a transaction", "cannot verify Trellara checksums");
    }
  }

  @Test
  void aTargetRecordedUnderAnotherRowIdentityVersionIsRefusedBeforeConsuming() {
    try (TestScope scope = STACK.newScope("identityVersion")) {
      PostgresDatabase dst = scope.targetDatabase();
      String topic = scope.createTopic("strict", 1);
      String first =
          deploySink(scope, "sink", dst, topic, Map.of()); // creates the checkpoint schema
      STACK.rest().deleteAndAwait(first);
      dst.execute(
          "INSERT INTO trellara_sink.applied_transactions (source_id, commit_lsn, commit_lsn_value,"
              + " transaction_id, database_id, dataset_id, protocol_version, row_identity_version,"
              + " commit_timestamp, event_count, change_count, ddl_count, sink_name)"
              + " VALUES ('s', '0/10', 16, '1', 'd', 'x', 1, 3, now(), 1, 1, 0, 'old')");
      String sink =
          scope.createConnector(
              "sink-v3", io.trellara.testplatform.ConnectorConfigs.sink(dst, topic, Map.of()));
      assertThat(STACK.rest().awaitFailed(sink).toString()).contains("row identity version 3");
    }
  }

  /**
   * With ByteArrayConverter the task verifies each record itself and applies what precedes a bad
   * one.
   */
  @Test
  void byteArrayConverterPathVerifiesInTheTaskAndAppliesTheValidPrefix() {
    try (TestScope scope = STACK.newScope("byteArray")) {
      PostgresDatabase dst = scope.targetDatabase();
      dst.execute(
          "CREATE TABLE orders (id bigint PRIMARY KEY, customer text, amount numeric(12,2),"
              + " placed_at timestamptz, note text)");
      String topic = scope.createTopic("strict", 1);
      Map<String, byte[]> headers =
          Map.of(MessageKind.HEADER, "envelope".getBytes(StandardCharsets.UTF_8));
      byte[] poison = TrellaraCodec.encode(sample("101", "0/2000")).bytes();
      poison[poison.length / 2] ^= 0x08;
      STACK
          .broker()
          .produce(
              topic,
              (Integer) 0,
              "good".getBytes(StandardCharsets.UTF_8),
              TrellaraCodec.encode(sample("100", "0/1000")).bytes(),
              headers);
      STACK
          .broker()
          .produce(topic, (Integer) 0, "poison".getBytes(StandardCharsets.UTF_8), poison, headers);
      String sink =
          scope.createConnector(
              "sink",
              io.trellara.testplatform.ConnectorConfigs.sink(
                  dst,
                  topic,
                  Map.of(
                      "value.converter",
                      "org.apache.kafka.connect.converters.ByteArrayConverter")));
      assertThat(STACK.rest().awaitFailed(sink).toString()).contains("Trellara message rejected");
      assertThat(appliedTransactions(dst)).isEqualTo(1);
      assertThat(dst.query("SELECT id FROM orders ORDER BY id"))
          .containsExactly(List.of(1L), List.of(3L));
    }
  }

  private static long sinkMetric(String connector, String attribute) throws Exception {
    var name = io.trellara.connect.common.TaskMBeans.name("sink-task", connector, "0");
    return ((Number)
            java.lang.management.ManagementFactory.getPlatformMBeanServer()
                .getAttribute(name, attribute))
        .longValue();
  }

  // ---- poison input: the task stops naming the rule; the target holds exactly what came before
  // ----------

  private static TransactionEnvelope sample(String txId, String commitLsn) {
    TransactionEnvelope e = SampleTransactions.envelope(3, false);
    TransactionEnvelope.Builder b =
        e.toBuilder().setTransactionId(txId).setCommitLsn(commitLsn).setBeginLsn("");
    for (int i = 0; i < b.getChangesCount(); i++) {
      ChangeRecord c = b.getChanges(i);
      b.setChanges(
          i,
          c.toBuilder()
              .setTransactionId(txId)
              .setIdempotencyKey(EventKey.of(e.getSourceId(), commitLsn, txId, c.getTotalOrder())));
    }
    return b.build();
  }

  private void poisonStopsTheSink(String scopeName, byte[] poison, String rule) {
    try (TestScope scope = STACK.newScope(scopeName)) {
      PostgresDatabase dst = scope.targetDatabase();
      dst.execute(
          "CREATE TABLE orders (id bigint PRIMARY KEY, customer text, amount numeric(12,2),"
              + " placed_at timestamptz, note text)");
      String topic = scope.createTopic("strict", 1);
      Map<String, byte[]> headers =
          Map.of(MessageKind.HEADER, "envelope".getBytes(StandardCharsets.UTF_8));
      STACK
          .broker()
          .produce(
              topic,
              (Integer) 0,
              "good".getBytes(StandardCharsets.UTF_8),
              TrellaraCodec.encode(sample("100", "0/1000")).bytes(),
              headers);
      String sink =
          scope.createConnector(
              "sink", io.trellara.testplatform.ConnectorConfigs.sink(dst, topic, Map.of()));
      await().atMost(WAIT).ignoreExceptions().until(() -> appliedTransactions(dst) == 1);
      STACK
          .broker()
          .produce(topic, (Integer) 0, "poison".getBytes(StandardCharsets.UTF_8), poison, headers);
      ConnectorStatus status = STACK.rest().awaitFailed(sink);
      assertThat(status.toString()).contains(rule);
      assertThat(appliedTransactions(dst)).isEqualTo(1);
      assertThat(dst.query("SELECT id FROM orders ORDER BY id"))
          .containsExactly(List.of(1L), List.of(3L));
    }
  }

  @Test
  void aFlippedByteStopsTheSinkNamingTheRule() {
    byte[] bytes = TrellaraCodec.encode(sample("101", "0/2000")).bytes();
    int i = new String(bytes, StandardCharsets.ISO_8859_1).indexOf("customer-2");
    bytes[i + 9] ^= 1;
    poisonStopsTheSink("poisonFlip", bytes, "CHECKSUM_MISMATCH");
  }

  @Test
  void anUnknownProtocolVersionStopsTheSink() {
    poisonStopsTheSink(
        "poisonVersion",
        TrellaraCodec.encodeWithoutValidation(
                sample("101", "0/2000").toBuilder().setProtocolVersion(2).build())
            .bytes(),
        "UNKNOWN_PROTOCOL_VERSION");
  }

  @Test
  void aDuplicateTotalOrderStopsTheSink() {
    TransactionEnvelope e = sample("101", "0/2000");
    // the second change takes the first one's total_order, and its idempotency key with it: only
    // the duplicate
    // is wrong (docs/protocol.md judges IDEMPOTENCY_KEY_MISMATCH first otherwise)
    TransactionEnvelope dup =
        e.toBuilder()
            .setChanges(
                1,
                e.getChanges(1).toBuilder()
                    .setTotalOrder(1)
                    .setIdempotencyKey(e.getChanges(0).getIdempotencyKey()))
            .build();
    poisonStopsTheSink(
        "poisonDuplicate",
        TrellaraCodec.encodeWithoutValidation(dup).bytes(),
        "DUPLICATE_TOTAL_ORDER");
  }
}
