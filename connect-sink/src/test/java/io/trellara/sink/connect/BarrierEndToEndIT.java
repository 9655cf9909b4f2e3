package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.WAIT;
import static io.trellara.sink.connect.Pipelines.appliedTransactions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.postgres.Barriers;
import io.trellara.sink.postgres.Transfers;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Strict chunked and partitioned transactions, produced as a source publishes them (chunks on the
 * strict topic or on the lanes of a 6-partition topic, then the manifest and the commit marker on
 * the strict topic), applied by the sink deployed over REST with tasks.max=3: the strict partition
 * and the lanes land on different tasks, and the barrier holds across them.
 */
@EitherPlatform
class BarrierEndToEndIT {
  static final int LANES = 6;
  static final int ACCOUNTS = 100;
  static final long TOTAL = ACCOUNTS * 1000L;

  private record Topics(String strict, String lanes) {}

  private static Topics topics(TestScope scope) {
    return new Topics(scope.createTopic("strict", 1), scope.createTopic("lanes", LANES));
  }

  private static PostgresDatabase target(TestScope scope) {
    PostgresDatabase dst = scope.targetDatabase();
    dst.execute(
        "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL)",
        "CREATE TABLE ledger (tx int PRIMARY KEY, moves int NOT NULL)",
        "INSERT INTO account SELECT g, 1000 FROM generate_series(1, " + ACCOUNTS + ") g");
    return dst;
  }

  /** The sink as a user POSTs it: both topics, three tasks, the Trellara converter. */
  private static String deploySink(TestScope scope, PostgresDatabase dst, Topics t) {
    Map<String, String> config =
        ConnectorConfigs.sink(
            dst,
            t.strict() + "," + t.lanes(),
            Map.of(
                "tasks.max",
                "3",
                "value.converter",
                ConnectorConfigs.CONVERTER_CLASS,
                "key.converter",
                "org.apache.kafka.connect.storage.StringConverter"));
    return scope.createConnector("sink", config);
  }

  /**
   * A producer as a source's: idempotent (per-partition order survives retries), values are the
   * bytes.
   */
  private static KafkaProducer<byte[], byte[]> producer() {
    Map<String, Object> config = new HashMap<>(STACK.broker().clientConfig());
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 2);
    config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 16 * 1024 * 1024);
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static void produce(
      KafkaProducer<byte[], byte[]> producer, Topics t, List<Barriers.Published> records) {
    for (Barriers.Published p : records) {
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(
              p.onStrictTopic() ? t.strict() : t.lanes(),
              p.onStrictTopic() ? 0 : p.lane(),
              p.key().getBytes(StandardCharsets.UTF_8),
              p.bytes());
      r.headers().add(MessageKind.HEADER, p.kind().wireName().getBytes(StandardCharsets.UTF_8));
      producer.send(r);
    }
    producer.flush();
  }

  private static Barriers barrier(TransactionEnvelope e, boolean partitioned) {
    return partitioned
        ? Barriers.partitioned(e, LANES, 4, event -> Transfers.lane(event, LANES))
        : Barriers.strictChunked(e, 3);
  }

  /** Transfers in both modes; a reader polling the target never sees the total change. */
  @Test
  void chunkedAndPartitionedTransfersApplyWholeAndOnceAcrossThreeTasks() throws Exception {
    try (TestScope scope = STACK.newScope("barrierBank")) {
      PostgresDatabase dst = target(scope);
      Topics t = topics(scope);
      String sink = deploySink(scope, dst, t);
      STACK.rest().awaitRunning(sink, 3, Duration.ofSeconds(60));

      Transfers bank = new Transfers("bank-src", ACCOUNTS, 1000, 11);
      int transactions = 40;
      List<Barriers.Published> strictTopic = new ArrayList<>();
      List<Barriers.Published> laneTopic = new ArrayList<>();
      for (int n = 1; n <= transactions; n++) {
        int moves = n % 10 == 0 || n == 25 ? 300 : 1 + n % 4; // some large transfers, in both modes
        Barriers b = barrier(bank.next(n, moves), n % 2 == 1);
        for (Barriers.Published p : b.all()) {
          (p.onStrictTopic() ? strictTopic : laneTopic).add(p);
        }
      }

      AtomicBoolean reading = new AtomicBoolean(true);
      AtomicLong reads = new AtomicLong();
      List<String> wrong = new ArrayList<>();
      Thread reader =
          new Thread(
              () -> {
                while (reading.get()) {
                  // one snapshot: the balances and how many transfers are in
                  List<List<Object>> r =
                      dst.query(
                          "SELECT (SELECT sum(balance) FROM account),"
                              + " (SELECT count(*) FROM ledger)");
                  reads.incrementAndGet();
                  long total = ((Number) r.get(0).get(0)).longValue();
                  if (total != TOTAL) {
                    synchronized (wrong) {
                      wrong.add(total + " after " + r.get(0).get(1) + " transfers");
                    }
                  }
                }
              },
              "bank-reader");
      reader.start();
      // the strict topic races ahead of the lanes: barriers wait for lanes staged by other tasks
      try (KafkaProducer<byte[], byte[]> strictProducer = producer();
          KafkaProducer<byte[], byte[]> laneProducer = producer()) {
        Thread lanes = new Thread(() -> produce(laneProducer, t, laneTopic), "lane-producer");
        lanes.start();
        produce(strictProducer, t, strictTopic);
        lanes.join();
      }

      await().atMost(WAIT).until(() -> appliedTransactions(dst) == transactions);
      reading.set(false);
      reader.join();

      assertThat(reads.get()).isGreaterThan(10);
      assertThat(wrong).as("reads of %d that saw part of a transaction", reads.get()).isEmpty();
      for (int id = 1; id <= ACCOUNTS; id++) {
        assertThat(dst.queryLong("SELECT balance FROM account WHERE id = " + id))
            .as("account %d", id)
            .isEqualTo(bank.balance(id));
      }
      assertThat(dst.queryLong("SELECT count(*) FROM ledger")).isEqualTo(transactions);
      assertThat(dst.queryLong("SELECT count(*) FROM trellara_sink.staged_chunks")).isZero();
      // every transaction applied once, through its barrier, by the task holding the strict
      // partition
      assertThat(sumOverTasks(sink, "BarriersApplied")).isEqualTo(transactions);
      // lane chunks are staged by the tasks that do not hold the strict partition (the one that
      // does holds
      // its lanes' chunks in memory), and a strict-chunked barrier that reached the task whole in
      // one batch is
      // applied from memory: at most every chunk is staged, and none is left
      assertThat(sumOverTasks(sink, "ChunksStaged"))
          .isBetween(0L, laneTopic.size() + strictTopic.size() - 2L * transactions);
      assertThat(sumOverTasks(sink, "TransactionsWaitingAtBarrier")).isZero();
      assertThat(STACK.rest().status(sink).isRunning(3)).isTrue();
      // Kafka offsets: committed up to what the target holds, the strict topic right after the last
      // marker
      String group = "connect-" + sink;
      await()
          .atMost(WAIT)
          .until(
              () ->
                  STACK
                          .broker()
                          .consumerGroupOffsets(group)
                          .getOrDefault(
                              new org.apache.kafka.common.TopicPartition(t.strict(), 0), -1L)
                      == strictTopic.size());
    }
  }

  /**
   * A cross-task barrier completes without an offset commit or a poll interval: on a worker that
   * commits offsets once an hour, partitioned transactions over 4 lanes, their chunks spread over
   * two sink tasks, all apply; the task holding the strict partition is woken by the other's
   * staging (JMX StagingWakeups), and no consumer offset was committed meanwhile.
   */
  @Test
  void crossTaskBarriersApplyWithoutAnOffsetCommitWokenByTheStaging() throws Exception {
    try (TestScope scope = STACK.newScope("barrierWake");
        io.trellara.testplatform.ConnectWorker worker =
            io.trellara.testplatform.ConnectWorker.builder(STACK.broker())
                .groupId(scope.prefix() + "-hourly")
                .set("offset.flush.interval.ms", "3600000")
                .start()) {
      PostgresDatabase dst = target(scope);
      Topics t = new Topics(scope.createTopic("strict", 1), scope.createTopic("lanes", 4));
      String sink = scope.prefix() + "-sink";
      worker
          .rest()
          .createConnector(
              sink,
              ConnectorConfigs.sink(
                  dst,
                  t.strict() + "," + t.lanes(),
                  Map.of(
                      "tasks.max",
                      "2",
                      "value.converter",
                      ConnectorConfigs.CONVERTER_CLASS,
                      "key.converter",
                      "org.apache.kafka.connect.storage.StringConverter")));
      worker.rest().awaitRunning(sink, 2, Duration.ofSeconds(60));
      String group = "connect-" + sink;
      // both consumers hold partitions before anything is produced: the chunks are spread
      await()
          .atMost(WAIT)
          .until(
              () ->
                  STACK
                          .broker()
                          .admin()
                          .describeConsumerGroups(List.of(group))
                          .all()
                          .get()
                          .get(group)
                          .members()
                          .stream()
                          .filter(m -> !m.assignment().topicPartitions().isEmpty())
                          .count()
                      == 2);

      var committedBefore = STACK.broker().consumerGroupOffsets(group); // the joins' commits
      Transfers bank = new Transfers("wake-src", ACCOUNTS, 1000, 7);
      int transactions = 30;
      List<Barriers.Published> records = new ArrayList<>();
      for (int n = 1; n <= transactions; n++) {
        records.addAll(
            Barriers.partitioned(bank.next(n, 8), 4, 4, event -> Transfers.lane(event, 4)).all());
      }
      try (KafkaProducer<byte[], byte[]> producer = producer()) {
        // the manifests and markers first: the barriers wait until the lanes are staged
        produce(producer, t, records.stream().filter(Barriers.Published::onStrictTopic).toList());
        await().atMost(WAIT).until(() -> sumOverTasks(sink, "TransactionsWaitingAtBarrier", 2) > 0);
        // and the waiting task listens: chunks staged before its LISTEN are found by the one look
        // its listening's start owes, not by a wake-up (a race this test lost once)
        await()
            .atMost(WAIT)
            .until(
                () ->
                    dst.queryLong(
                            "SELECT count(*) FROM pg_stat_activity WHERE datname ="
                                + " current_database() AND query = 'LISTEN trellara_sink_staged'")
                        > 0);
        produce(producer, t, records.stream().filter(p -> !p.onStrictTopic()).toList());
      }

      await().atMost(WAIT).until(() -> appliedTransactions(dst) == transactions);
      for (int id = 1; id <= ACCOUNTS; id++) {
        assertThat(dst.queryLong("SELECT balance FROM account WHERE id = " + id))
            .as("account %d", id)
            .isEqualTo(bank.balance(id));
      }
      assertThat(dst.queryLong("SELECT count(*) FROM trellara_sink.staged_chunks")).isZero();
      assertThat(sumOverTasks(sink, "ChunksStaged", 2))
          .as("chunks the other task staged")
          .isPositive();
      assertThat(sumOverTasks(sink, "StagingWakeups", 2)).as("woken by the staging").isPositive();
      assertThat(STACK.broker().consumerGroupOffsets(group))
          .as("no offset commit was needed")
          .isEqualTo(committedBefore);
    }
  }

  private static long sumOverTasks(String connector, String attribute) throws Exception {
    return sumOverTasks(connector, attribute, 3);
  }

  private static long sumOverTasks(String connector, String attribute, int tasks) throws Exception {
    long sum = 0;
    for (int task = 0; task < tasks; task++) {
      var name =
          io.trellara.connect.common.TaskMBeans.name(
              "sink-task", connector, Integer.toString(task));
      sum +=
          ((Number)
                  java.lang.management.ManagementFactory.getPlatformMBeanServer()
                      .getAttribute(name, attribute))
              .longValue();
    }
    return sum;
  }

  /**
   * A crafted bad transaction T2 between good T1 and T3: the task stops naming the rule in its
   * trace; the target holds exactly T1.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "MISSING_CHUNK",
        "CHECKSUM_MISMATCH",
        "MARKER_MANIFEST_CHECKSUM_MISMATCH",
        "DUPLICATE_TOTAL_ORDER"
      })
  void aBadBarrierStopsTheSinkAndLeavesExactlyTheTransactionsBeforeIt(String rule) {
    try (TestScope scope = STACK.newScope("barrierBad")) {
      PostgresDatabase dst = target(scope);
      Topics t = topics(scope);
      Transfers bank = new Transfers("bank-src", ACCOUNTS, 1000, 5);
      TransactionEnvelope t1 = bank.next(1, 5);
      long[] afterT1 = new long[ACCOUNTS + 1];
      for (int id = 1; id <= ACCOUNTS; id++) {
        afterT1[id] = bank.balance(id);
      }
      Barriers b2 = barrier(bank.next(2, 12), true);
      Barriers b3 = barrier(bank.next(3, 12), true);
      Function<Barriers, List<Barriers.Published>> bad =
          switch (rule) {
            case "MISSING_CHUNK" ->
                b -> {
                  // a lane chunk of T2 never arrives; T3 then moves that lane past T2
                  int lane = b3.chunks().get(0).getPartitionId();
                  int i = 0;
                  while (b.chunks().get(i).getPartitionId() != lane) {
                    i++;
                  }
                  return b.allWithout(i);
                };
            case "CHECKSUM_MISMATCH" -> b -> b.flipChunkByte(0, "bank-src").all();
            case "MARKER_MANIFEST_CHECKSUM_MISMATCH" ->
                b -> b.withMarker(k -> k.setManifestChecksum(7)).all();
            case "DUPLICATE_TOTAL_ORDER" ->
                b -> {
                  // another chunk repeats the first event's total_order (and its key)
                  var first = b.chunks().get(0);
                  var second = b.chunks().get(1);
                  var c = second.getChanges(0);
                  long order = first.getChanges(0).getTotalOrder();
                  var dup =
                      second.toBuilder()
                          .setChanges(
                              0,
                              c.toBuilder()
                                  .setTotalOrder(order)
                                  .setIdempotencyKey(first.getChanges(0).getIdempotencyKey()))
                          .build();
                  return b.withChunk(1, dup).all();
                };
            default -> throw new IllegalArgumentException(rule);
          };
      String sink = deploySink(scope, dst, t);
      STACK.rest().awaitRunning(sink, 3, Duration.ofSeconds(60));
      ConnectorStatus status;
      try (KafkaProducer<byte[], byte[]> producer = producer()) {
        produce(producer, t, barrier(t1, false).all());
        await().atMost(WAIT).ignoreExceptions().until(() -> appliedTransactions(dst) == 1);
        produce(producer, t, bad.apply(b2));
        produce(producer, t, b3.all());
        status = STACK.rest().awaitFailed(sink, WAIT);
      }
      assertThat(status.toString()).contains(rule);
      assertThat(appliedTransactions(dst)).isEqualTo(1);
      assertThat(dst.queryLong("SELECT count(*) FROM ledger")).isEqualTo(1);
      for (int id = 1; id <= ACCOUNTS; id++) {
        assertThat(dst.queryLong("SELECT balance FROM account WHERE id = " + id))
            .isEqualTo(afterT1[id]);
      }
    }
  }
}
