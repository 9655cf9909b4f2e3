package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.WAIT;
import static io.trellara.sink.connect.Pipelines.appliedTransactions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.postgres.Barriers;
import io.trellara.sink.postgres.CraftedRecords;
import io.trellara.sink.postgres.Transfers;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Someone who can write to the strict topic of a running sink, deployed over REST at its defaults:
 * valid checksums and fresh identities, but records the sink must not obey. Each is refused by name
 * (or, for DDL text, never run) and nothing of its transaction reaches the target.
 */
@EitherPlatform
class TopicWriterIT {
  static final int ACCOUNTS = 10;

  private static PostgresDatabase target(TestScope scope) {
    PostgresDatabase dst = scope.targetDatabase();
    dst.execute(
        "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL)",
        "CREATE TABLE ledger (tx int PRIMARY KEY, moves int NOT NULL)",
        "INSERT INTO account SELECT g, 1000 FROM generate_series(1, " + ACCOUNTS + ") g");
    return dst;
  }

  private static String deploySink(TestScope scope, PostgresDatabase dst, String topics) {
    String sink =
        scope.createConnector(
            "sink",
            ConnectorConfigs.sink(
                dst, topics, Map.of("relation.allowlist", "public.account,public.ledger")));
    STACK.rest().awaitRunning(sink);
    return sink;
  }

  private static KafkaProducer<byte[], byte[]> producer() {
    Map<String, Object> config = new HashMap<>(STACK.broker().clientConfig());
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static void send(
      KafkaProducer<byte[], byte[]> p,
      String topic,
      int partition,
      MessageKind kind,
      String key,
      byte[] bytes) {
    ProducerRecord<byte[], byte[]> r =
        new ProducerRecord<>(topic, partition, key.getBytes(StandardCharsets.UTF_8), bytes);
    r.headers().add(MessageKind.HEADER, kind.wireName().getBytes(StandardCharsets.UTF_8));
    p.send(r);
    p.flush();
  }

  private static void send(KafkaProducer<byte[], byte[]> p, String topic, TransactionEnvelope e) {
    send(
        p,
        topic,
        0,
        MessageKind.ENVELOPE,
        e.getSourceId() + ':' + e.getCommitLsn(),
        TrellaraCodec.encode(e).bytes());
  }

  private static void send(
      KafkaProducer<byte[], byte[]> p, String topic, List<Barriers.Published> records) {
    for (Barriers.Published r : records) {
      send(p, topic, 0, r.kind(), r.key(), r.bytes());
    }
  }

  @Test
  void runsNoDdlTextAndRefusesAnUpdateKeyedByAColumnOfItsChoosing() {
    try (TestScope scope = STACK.newScope("writer");
        KafkaProducer<byte[], byte[]> producer = producer()) {
      PostgresDatabase dst = target(scope);
      String topic = scope.createTopic("strict", 1);
      String sink = deploySink(scope, dst, topic);
      Transfers bank = new Transfers("writer-src", ACCOUNTS, 1000, 7);

      send(producer, topic, bank.next(1, 2));
      send(
          producer,
          topic,
          CraftedRecords.ddl(
              "writer-src",
              0x200,
              "2",
              "CREATE TABLE public.pwned (x int); DROP TABLE public.ledger; COPY account TO PROGRAM 'id'",
              "public.ledger"));
      await().atMost(WAIT).until(() -> appliedTransactions(dst) == 2);
      assertThat(dst.queryLong("SELECT count(*) FROM pg_class WHERE relname = 'pwned'")).isZero();
      assertThat(dst.queryLong("SELECT count(*) FROM ledger")).isEqualTo(1);
      assertThat(STACK.rest().status(sink).isRunning(1)).isTrue();

      long before = dst.queryLong("SELECT sum(balance) FROM account");
      send(
          producer,
          topic,
          CraftedRecords.updateKeyedBy(
              "writer-src",
              0x300,
              "3",
              Transfers.ACCOUNT,
              "balance",
              "bigint",
              Long.toString(bank.balance(1)),
              "0"));
      ConnectorStatus status = STACK.rest().awaitFailed(sink, WAIT);
      // its schema version claims the key changed (refused by evolution), its row the same (refused
      // by the
      // key check): whichever rule sees it first names it
      assertThat(status.toString())
          .containsAnyOf("SCHEMA_CHANGE_REFUSED", "KEY_COLUMNS_MISMATCH")
          .contains("balance")
          .contains("writer-src:0/300:3:1");
      assertThat(dst.queryLong("SELECT sum(balance) FROM account")).isEqualTo(before);
      assertThat(appliedTransactions(dst)).isEqualTo(2);
    }
  }

  /**
   * A source that stopped between a manifest and its commit marker re-publishes from an earlier
   * transaction: the lone manifest is discarded, every transaction is applied once.
   */
  @Test
  void discardsAManifestWhoseMarkerNeverCameAndAppliesTheRepublishedTransactionsOnce() {
    try (TestScope scope = STACK.newScope("orphan");
        KafkaProducer<byte[], byte[]> producer = producer()) {
      PostgresDatabase dst = target(scope);
      String topic = scope.createTopic("strict", 1);
      String sink = deploySink(scope, dst, topic);
      Transfers bank = new Transfers("orphan-src", ACCOUNTS, 1000, 9);
      Barriers t1 = Barriers.strictChunked(bank.next(1, 3), 2);
      Barriers t2 = Barriers.strictChunked(bank.next(2, 5), 2);
      Barriers t3 = Barriers.strictChunked(bank.next(3, 1), 2);

      send(producer, topic, t1.all());
      List<Barriers.Published> t2WithoutMarker = t2.all().subList(0, t2.all().size() - 1);
      send(producer, topic, t2WithoutMarker); // the crash: no marker
      send(producer, topic, t1.all()); // re-published from the last acknowledged transaction
      send(producer, topic, t2.all());
      send(producer, topic, t3.all());

      await().atMost(WAIT).until(() -> appliedTransactions(dst) == 3);
      assertThat(dst.queryLong("SELECT count(*) FROM ledger")).isEqualTo(3);
      for (int id = 1; id <= ACCOUNTS; id++) {
        assertThat(dst.queryLong("SELECT balance FROM account WHERE id = " + id))
            .isEqualTo(bank.balance(id));
      }
      assertThat(STACK.rest().status(sink).isRunning(1)).isTrue();
    }
  }

  @Test
  void refusesAStrictTopicWithMoreThanOnePartition() {
    try (TestScope scope = STACK.newScope("twoParts");
        KafkaProducer<byte[], byte[]> producer = producer()) {
      PostgresDatabase dst = target(scope);
      String topic = scope.createTopic("strict", 2);
      String sink = deploySink(scope, dst, topic);
      TransactionEnvelope e = new Transfers("two-src", ACCOUNTS, 1000, 3).next(1, 1);
      send(producer, topic, 1, MessageKind.ENVELOPE, "k", TrellaraCodec.encode(e).bytes());
      ConnectorStatus status = STACK.rest().awaitFailed(sink, WAIT);
      assertThat(status.toString()).contains("exactly one partition");
      assertThat(appliedTransactions(dst)).isZero();
    }
  }
}
