package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Feed.concat;
import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.session.ConnectionFactory;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.DdlPolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Chunked and partitioned transactions through the engine, against a real PostgreSQL: staged
 * chunks, the barrier, apply in total order, waiting for lanes staged elsewhere, replays, progress
 * and the memory bound. The fail-closed cases are in {@link BarrierFailClosedTest}.
 */
class BarrierApplyTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId ACCOUNTS = rel("app", "accounts");
  static final RelationId ITEMS = rel("app", "items");
  static final TopicPartitionKey STRICT = new TopicPartitionKey(Feed.STRICT, 0);

  private final List<BarrierResult> barriers = new ArrayList<>();
  private final SinkEngine.Listener listener =
      new SinkEngine.Listener() {
        @Override
        public void barrierApplied(
            io.trellara.protocol.v1.TransactionManifest m, BarrierResult result) {
          barriers.add(result);
        }
      };

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec(
        "CREATE TABLE app.accounts (id int PRIMARY KEY, balance numeric NOT NULL)",
        "CREATE TABLE app.items (id int PRIMARY KEY, qty int)");
  }

  private TransactionApplier applier(ApplyOptions.Builder options) {
    return new TransactionApplier(pg.connections(), RelationMapper.identity(), options.build());
  }

  private SinkEngine pipeline(TransactionApplier a) {
    return new SinkEngine(
        a, listener, 1000, 64 << 20, 0); // look at a waiting barrier on every call
  }

  /** A pipeline that stages every lane chunk, as a task holding no strict partition does. */
  private SinkEngine staging(TransactionApplier a) {
    return pipeline(a).holdLanes(java.time.Duration.ZERO, 0);
  }

  static TransactionEnvelope opens(long lsn, int from, int to, String balance) {
    Tx t = tx(lsn);
    for (int id = from; id <= to; id++) {
      t.insert(
          ACCOUNTS, key("id", "integer", Integer.toString(id)), val("balance", "numeric", balance));
    }
    return t.build();
  }

  static TransactionEnvelope sets(long lsn, int id, String balance) {
    return tx(lsn)
        .update(
            ACCOUNTS,
            null,
            key("id", "integer", Integer.toString(id)),
            val("balance", "numeric", balance))
        .build();
  }

  private List<List<String>> accounts() {
    return pg.rows("SELECT id, balance FROM app.accounts ORDER BY id");
  }

  /**
   * Strict chunked order across batches: the transaction is applied as its chunks arrive, in one
   * target transaction that commits at the marker; nothing is staged, nothing visible before the
   * commit, and Kafka may commit no further than the first chunk until then.
   */
  @Test
  void aStrictChunkedTransactionSpanningBatchesIsAppliedAsItsChunksArriveAndCommitsAtItsMarker() {
    TransactionEnvelope e =
        tx(0x100)
            .insert(ACCOUNTS, key("id", "integer", "1"), val("balance", "numeric", "10"))
            .insert(ACCOUNTS, key("id", "integer", "2"), val("balance", "numeric", "20"))
            .insert(ACCOUNTS, key("id", "integer", "3"), val("balance", "numeric", "30"))
            .insert(ACCOUNTS, key("id", "integer", "4"), val("balance", "numeric", "40"))
            .update(ACCOUNTS, null, key("id", "integer", "2"), val("balance", "numeric", "21"))
            .delete(ACCOUNTS, key("id", "integer", "4"))
            .insert(ACCOUNTS, key("id", "integer", "5"), val("balance", "numeric", "50"))
            .build();
    Barriers b = Barriers.strictChunked(e, 2); // 4 chunks, then the manifest and the marker
    assertThat(b.chunks()).hasSize(4);
    Feed feed = new Feed();
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"));
        SinkEngine p = pipeline(a)) {
      p.accept(feed.inputs(b.chunkMessages().subList(0, 2)));
      p.accept(feed.inputs(concat(b.chunkMessages().subList(2, 4), b.closing().subList(0, 1))));
      // written in the open target transaction, not staged, not visible
      assertThat(pg.count("trellara_sink.staged_chunks")).isZero();
      assertThat(pg.count("app.accounts")).isZero();
      assertThat(pg.count("trellara_sink.progress")).isZero();
      assertThat(p.transactionsWaitingAtBarrier()).isEqualTo(1);
      assertThat(p.durablePositions()).containsEntry(STRICT, 0L);

      p.accept(feed.inputs(b.closing().subList(1, 2)));
      assertThat(accounts())
          .containsExactly(
              List.of("1", "10"), List.of("2", "21"), List.of("3", "30"), List.of("5", "50"));
      assertThat(
              pg.rows(
                  "SELECT commit_lsn::text, transaction_id, event_count, change_count, ddl_count"
                      + " FROM trellara_sink.applied_transactions"))
          .containsExactly(List.of("0/100", "256", "7", "7", "0"));
      assertThat(pg.count("trellara_sink.staged_chunks")).isZero();
      assertThat(pg.one("SELECT next_offset FROM trellara_sink.progress WHERE topic = 'strict'"))
          .isEqualTo("6");
      assertThat(p.durablePositions()).containsEntry(STRICT, 6L);
      assertThat(p.transactionsWaitingAtBarrier()).isZero();
      assertThat(p.boundaryMode()).isEqualTo("strict_chunked_transaction_order");
      assertThat(a.metrics().chunksStaged()).isZero();
      assertThat(a.metrics().barriersApplied()).isEqualTo(1);
      assertThat(a.metrics().transactionsApplied()).isEqualTo(1);
      assertThat(barriers)
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.duplicate()).isFalse();
                assertThat(r.chunks()).isEqualTo(4);
                assertThat(r.peakOpenChunks()).isEqualTo(1); // one chunk in memory at a time
              });
    }
  }

  /** Lane of an event: items by id modulo 3, DDL on lane 0. */
  private static int lane(Object event) {
    if (!(event instanceof ChangeRecord c)) {
      return 0;
    }
    var image = c.hasAfter() ? c.getAfter() : c.getBefore();
    return Integer.parseInt(image.getColumns(0).getText()) % 3;
  }

  @Test
  void aPartitionedTransactionOverThreeLanesIsAppliedInTotalOrder() {
    TransactionEnvelope e =
        tx(0x200)
            .insert(ITEMS, key("id", "integer", "1"), val("qty", "integer", "1")) // 1 lane 1
            .insert(ITEMS, key("id", "integer", "2"), val("qty", "integer", "1")) // 2 lane 2
            .insert(ITEMS, key("id", "integer", "3"), val("qty", "integer", "1")) // 3 lane 0
            .update(ITEMS, null, key("id", "integer", "1"), val("qty", "integer", "2")) // 4 lane 1
            .ddl("ALTER TABLE app.items ADD COLUMN note text", "app.items") // 5 lane 0
            .update(
                ITEMS,
                null,
                key("id", "integer", "2"),
                val("qty", "integer", "5"),
                val("note", "text", "after ddl")) // 6 lane 2
            .insert(
                ITEMS,
                key("id", "integer", "4"),
                val("qty", "integer", "4"),
                val("note", "text", "new")) // 7 lane 1
            .update(
                ITEMS,
                null,
                key("id", "integer", "1"),
                val("qty", "integer", "3"),
                val("note", "text", "third")) // 8 lane 1
            .delete(ITEMS, key("id", "integer", "3")) // 9 lane 0
            .build();
    // one event per chunk: lane 1 carries chunk_sequence 0..3, the insert and updates of id 1 in
    // different chunks
    Barriers b = Barriers.partitioned(e, 3, 1, BarrierApplyTest::lane);
    assertThat(b.manifest().getPartitionsList()).filteredOn(p -> p.getId() == 1).hasSize(4);
    Feed feed = new Feed();
    try (TransactionApplier a = applier(ApplyOptions.builder("s1").ddlPolicy(DdlPolicy.REPLAY));
        SinkEngine p = staging(a)) {
      // the barrier first, then the lanes in reverse: it waits until the last lane is staged
      p.accept(feed.inputs(b.closing()));
      assertThat(p.waiting()).isTrue();
      assertThat(p.waitingLanes()).isEqualTo(3);
      for (int lane = 2; lane >= 0; lane--) {
        int l = lane;
        assertThat(pg.count("app.items")).isZero();
        p.accept(feed.inputs(b.chunkMessages().stream().filter(m -> m.lane() == l).toList()));
      }
      assertThat(p.waiting()).isFalse();
      assertThat(pg.rows("SELECT id, qty, note FROM app.items ORDER BY id"))
          .containsExactly(
              List.of("1", "3", "third"),
              java.util.Arrays.asList("2", "5", "after ddl"),
              List.of("4", "4", "new"));
      assertThat(
              pg.one(
                  "SELECT event_count || '/' || change_count || '/' || ddl_count"
                      + " FROM trellara_sink.applied_transactions"))
          .isEqualTo("9/8/1");
      assertThat(pg.count("trellara_sink.staged_chunks")).isZero();
      assertThat(
              pg.rows(
                  "SELECT partition_id, commit_lsn::text FROM trellara_sink.lane_watermarks"
                      + " ORDER BY partition_id"))
          .containsExactly(List.of("0", "0/200"), List.of("1", "0/200"), List.of("2", "0/200"));
      // lane progress moved with the staging; the strict partition's with the apply
      assertThat(
              pg.rows(
                  "SELECT topic, kafka_partition, next_offset FROM trellara_sink.progress"
                      + " ORDER BY topic, kafka_partition"))
          .containsExactly(
              List.of("lanes", "0", "3"),
              List.of("lanes", "1", "4"),
              List.of("lanes", "2", "2"),
              List.of("strict", "0", "2"));
      assertThat(p.boundaryMode()).isEqualTo("partitioned_scale_mode");
      assertThat(barriers)
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.chunks()).isEqualTo(9);
                assertThat(r.peakOpenChunks()).isLessThanOrEqualTo(3); // at most one chunk per lane
              });
    }
  }

  /** tasks.max > 1: one task holds the strict partition and applies, another stages the lanes. */
  @Test
  void aBarrierWaitsForLanesStagedByAnotherTaskAndAppliesWhenTheLastArrives() {
    TransactionEnvelope e = opens(0x300, 1, 9, "100");
    Barriers b = Barriers.partitioned(e, 3, 2, event -> lane(event));
    Feed feed = new Feed();
    try (TransactionApplier strictApplier = applier(ApplyOptions.builder("s1"));
        SinkEngine strictTask = pipeline(strictApplier);
        TransactionApplier laneApplier = applier(ApplyOptions.builder("s1"));
        SinkEngine laneTask = pipeline(laneApplier)) {
      strictTask.accept(feed.inputs(b.closing()));
      assertThat(strictTask.waiting()).isTrue();
      assertThat(strictTask.transactionsWaitingAtBarrier()).isEqualTo(1);
      assertThat(strictTask.durablePositions()).containsEntry(STRICT, 0L);

      laneTask.accept(feed.inputs(b.chunkMessages().stream().filter(m -> m.lane() != 1).toList()));
      strictTask.poll();
      assertThat(strictTask.waiting()).isTrue();
      assertThat(strictTask.waitingLanes()).isEqualTo(1);
      assertThat(pg.count("app.accounts")).isZero();
      assertThat(laneTask.durablePositions())
          .containsEntry(new TopicPartitionKey(Feed.LANES, 0), 2L)
          .containsEntry(new TopicPartitionKey(Feed.LANES, 2), 2L);

      laneTask.accept(feed.inputs(b.chunkMessages().stream().filter(m -> m.lane() == 1).toList()));
      assertThat(pg.count("app.accounts")).isZero(); // staging never applies
      strictTask.poll();
      assertThat(strictTask.waiting()).isFalse();
      assertThat(pg.count("app.accounts")).isEqualTo(9);
      assertThat(strictTask.durablePositions()).containsEntry(STRICT, 2L);
      assertThat(laneApplier.metrics().chunksStaged()).isEqualTo(b.chunks().size());
      assertThat(strictApplier.metrics().barriersApplied()).isEqualTo(1);
    }
  }

  /**
   * Twenty partitioned transactions wait at the strict task for lanes the other task stages: the
   * staging's NOTIFY wakes the strict task, one look reads every barrier's chunks back, and all
   * twenty apply in one target transaction, swept from staging with it.
   */
  @Test
  void manyBarriersWaitingForLanesAnotherTaskStagesApplyInOneLookWokenByTheStaging() {
    List<Barriers> txs = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      txs.add(
          Barriers.partitioned(
              opens(0x1000 + 0x100L * i, 10 * i + 1, 10 * i + 9, "1"), 3, 2, event -> lane(event)));
    }
    List<Barriers.Published> closings = new ArrayList<>();
    List<Barriers.Published> chunks = new ArrayList<>();
    txs.forEach(
        b -> {
          closings.addAll(b.closing());
          chunks.addAll(b.chunkMessages());
        });
    Feed feed = new Feed();
    try (TransactionApplier strictApplier = applier(ApplyOptions.builder("s1"));
        SinkEngine strictTask =
            new SinkEngine(strictApplier, listener, 1000, 64 << 20, 60_000)
                .wakeOn(
                    new io.trellara.sink.postgres.session.StagingWakeups(
                        pg.connections(), "s1", strictApplier.metrics().stagingWakeups));
        TransactionApplier laneApplier = applier(ApplyOptions.builder("s1"));
        SinkEngine laneTask = staging(laneApplier)) {
      strictTask.accept(feed.inputs(closings));
      assertThat(strictTask.transactionsWaitingAtBarrier()).isPositive();
      assertThat(strictTask.recheckWithinMillis()).as("listening: put again at once").isEqualTo(1);
      long looks = strictApplier.metrics().barrierLooks.get();
      long commits = strictApplier.metrics().targetCommits.get();

      laneTask.accept(feed.inputs(chunks)); // one staging transaction, one NOTIFY
      assertThat(pg.count("trellara_sink.staged_chunks")).isEqualTo(chunks.size());
      strictTask.poll();

      assertThat(strictApplier.metrics().stagingWakeups.get()).isPositive();
      assertThat(strictApplier.metrics().barrierLooks.get() - looks).isEqualTo(1);
      assertThat(strictApplier.metrics().targetCommits.get() - commits).isEqualTo(1);
      assertThat(pg.count("app.accounts")).isEqualTo(180);
      assertThat(pg.count("trellara_sink.staged_chunks")).isZero();
      assertThat(strictTask.waiting()).isFalse();
      assertThat(strictTask.durablePositions()).containsEntry(STRICT, (long) closings.size());
    }
  }

  /** A staged chunk damaged in the target stops apply when read back, naming the rule. */
  @Test
  void aDamagedStagedChunkReadBackStopsApplyNamingTheRule() {
    Barriers b = Barriers.partitioned(opens(0x300, 1, 9, "100"), 3, 2, event -> lane(event));
    Feed feed = new Feed();
    try (TransactionApplier strictApplier = applier(ApplyOptions.builder("s1"));
        SinkEngine strictTask = pipeline(strictApplier);
        TransactionApplier laneApplier = applier(ApplyOptions.builder("s1"));
        SinkEngine laneTask = staging(laneApplier)) {
      strictTask.accept(feed.inputs(b.closing()));
      laneTask.accept(feed.inputs(b.chunkMessages()));
      pg.exec(
          "UPDATE trellara_sink.staged_chunks SET payload = overlay(payload placing '\\x00ff'::bytea"
              + " from 12)");
      Throwable t = catchThrowable(strictTask::poll);
      assertThat(t).isInstanceOf(ProtocolViolationException.class);
      assertThat(t.getMessage()).contains("0/300");
      assertThat(pg.count("app.accounts")).isZero();
    }
  }

  /**
   * Both tasks die while the lanes are partly staged; the restarted task resumes from the target's
   * progress.
   */
  @Test
  void aRestartWhileLanesArePartlyStagedAppliesTheTransactionOnce() throws Exception {
    Barriers b = Barriers.partitioned(opens(0x300, 1, 9, "100"), 3, 2, BarrierApplyTest::lane);
    Feed feed = new Feed();
    List<Input> log = feed.inputs(b.all()); // what Kafka holds
    try (TransactionApplier strictApplier = applier(ApplyOptions.builder("s1"));
        TransactionApplier laneApplier = applier(ApplyOptions.builder("s1"))) {
      SinkEngine strictTask = pipeline(strictApplier);
      SinkEngine laneTask = pipeline(laneApplier);
      strictTask.accept(log.stream().filter(i -> i.partition().equals(STRICT)).toList());
      laneTask.accept(
          log.stream()
              .filter(
                  i -> i.partition().topic().equals(Feed.LANES) && i.partition().partition() != 2)
              .toList());
      assertThat(strictTask.waiting()).isTrue();
      // killed: nothing closed, nothing committed to Kafka
    }
    var progress = new CheckpointStore(pg.connections()).positions("s1");
    assertThat(progress)
        .doesNotContainKey(STRICT) // the barrier was not applied: its manifest is re-read
        .containsEntry(new TopicPartitionKey(Feed.LANES, 0), 2L)
        .containsEntry(new TopicPartitionKey(Feed.LANES, 1), 2L);
    assertThat(pg.count("trellara_sink.staged_chunks")).isEqualTo(4);
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"));
        SinkEngine restarted = pipeline(a)) {
      restarted.accept(
          log.stream()
              .filter(i -> i.offset() >= progress.getOrDefault(i.partition(), 0L))
              .toList());
      // lane 2 is new: held in memory and read from there, lanes 0 and 1 from what was staged
      // before
      assertThat(a.metrics().chunksStaged()).isZero();
      assertThat(restarted.waiting()).isFalse();
    }
    assertThat(pg.count("app.accounts")).isEqualTo(9);
    assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(1);
    assertThat(pg.count("trellara_sink.staged_chunks")).isZero();
  }

  /**
   * Another task stages a lane (this transaction's chunk and a later one) between the statements of
   * a barrier check: the check must not take the lane for past this transaction while missing its
   * chunk.
   */
  @Test
  void aLaneStagedWhileTheBarrierIsCheckedIsNeverTakenForMissing() {
    Barriers t1 = Barriers.partitioned(opens(0x100, 1, 6, "1"), 3, 10, BarrierApplyTest::lane);
    Barriers t3 = Barriers.partitioned(opens(0x300, 7, 12, "3"), 3, 10, BarrierApplyTest::lane);
    Feed feed = new Feed();
    List<Input> closing = feed.inputs(t1.closing());
    List<Input> lanes = feed.inputs(concat(t1.chunkMessages(), t3.chunkMessages()));
    try (TransactionApplier laneApplier = applier(ApplyOptions.builder("s1"));
        SinkEngine laneTask = pipeline(laneApplier)) {
      boolean[] fired = new boolean[1];
      ConnectionFactory hooked =
          () ->
              afterFirstRead(
                  pg.connections().open(),
                  () -> {
                    if (!fired[0]) {
                      fired[0] = true;
                      laneTask.accept(lanes); // commits between the check's reads
                    }
                  });
      try (TransactionApplier strictApplier =
              new TransactionApplier(
                  hooked, RelationMapper.identity(), ApplyOptions.builder("s1").build());
          SinkEngine strictTask = pipeline(strictApplier)) {
        strictTask.accept(closing);
        assertThat(fired[0]).isTrue();
        assertThat(strictTask.waiting()).isFalse();
      }
    }
    assertThat(pg.count("app.accounts")).isEqualTo(6);
  }

  /** A connection that runs {@code hook} right after its first read of the staging tables. */
  private static java.sql.Connection afterFirstRead(java.sql.Connection c, Runnable hook) {
    return (java.sql.Connection)
        java.lang.reflect.Proxy.newProxyInstance(
            getLoader(),
            new Class<?>[] {java.sql.Connection.class},
            (proxy, method, args) -> {
              Object result = invoke(c, method, args);
              if (method.getName().equals("prepareStatement")
                  && args[0] instanceof String sql
                  && sql.trim().startsWith("SELECT")
                  && (sql.contains("trellara_sink.lane_watermarks")
                      || sql.contains("trellara_sink.staged_chunks"))) {
                java.sql.PreparedStatement ps = (java.sql.PreparedStatement) result;
                return java.lang.reflect.Proxy.newProxyInstance(
                    getLoader(),
                    new Class<?>[] {java.sql.PreparedStatement.class},
                    (p, m, a) -> {
                      Object r = invoke(ps, m, a);
                      if (m.getName().equals("executeQuery")) {
                        hook.run();
                      }
                      return r;
                    });
              }
              return result;
            });
  }

  private static ClassLoader getLoader() {
    return BarrierApplyTest.class.getClassLoader();
  }

  private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (java.lang.reflect.InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void envelopesBehindAWaitingBarrierWaitAndApplyInSourceOrder() {
    pg.exec("INSERT INTO app.accounts VALUES (1, 0)");
    Barriers first = Barriers.partitioned(sets(0x400, 1, "5"), 3, 10, event -> 1);
    byte[] second = io.trellara.protocol.codec.TrellaraCodec.encode(sets(0x500, 1, "6")).bytes();
    Feed feed = new Feed();
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"));
        SinkEngine p = pipeline(a)) {
      p.accept(feed.inputs(concat(first.closing(), List.of(Feed.envelope(second, "second")))));
      assertThat(accounts()).containsExactly(List.of("1", "0"));
      assertThat(p.durablePositions()).containsEntry(STRICT, 0L);
      assertThat(p.queuedBytes()).isPositive();
      p.accept(feed.inputs(first.chunkMessages()));
      assertThat(accounts()).containsExactly(List.of("1", "6"));
      assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(2);
      assertThat(p.durablePositions()).containsEntry(STRICT, 3L);
      assertThat(p.queuedBytes()).isZero();
      assertThat(p.boundaryMode()).isEqualTo("strict_transaction_order");
    }
  }

  @Test
  void replayedChunksAndBarriersAreAppliedOnce() {
    Barriers t1 = Barriers.strictChunked(opens(0x100, 1, 5, "1"), 2);
    Barriers t2 = Barriers.partitioned(opens(0x200, 6, 12, "2"), 3, 2, BarrierApplyTest::lane);
    Feed feed = new Feed();
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"));
        SinkEngine p = pipeline(a)) {
      p.accept(feed.inputs(concat(t1.all(), t2.all())));
      assertThat(pg.count("app.accounts")).isEqualTo(12);
      long staged = a.metrics().chunksStaged();
      // the source published both again (a restart): nothing applied twice, nothing staged again
      p.accept(feed.inputs(concat(t1.all(), t2.all())));
      assertThat(a.metrics().duplicatesSkipped()).isEqualTo(2);
      assertThat(a.metrics().chunksStaged()).isEqualTo(staged);
      assertThat(pg.count("trellara_sink.staged_chunks")).isZero();
    }
    // a restarted task reading everything again
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"));
        SinkEngine p = pipeline(a)) {
      p.accept(new Feed().inputs(concat(t1.all(), t2.all())));
      assertThat(a.metrics().duplicatesSkipped()).isEqualTo(2);
      assertThat(a.metrics().transactionsApplied()).isZero();
    }
    assertThat(pg.count("app.accounts")).isEqualTo(12);
    assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(2);
  }

  /**
   * The source crashed after publishing part of a transaction and published it again, chunked
   * differently.
   */
  @Test
  void aTransactionPublishedAgainWithOtherChunksAppliesFromTheCompletePublication() {
    TransactionEnvelope e = opens(0x100, 1, 7, "3");
    Barriers before = Barriers.strictChunked(e, 2);
    Barriers again = Barriers.strictChunked(e, 3);
    Feed feed = new Feed();
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"));
        SinkEngine p = pipeline(a)) {
      p.accept(
          feed.inputs(
              concat(before.chunkMessages().subList(0, 3), before.closing().subList(0, 1))));
      p.accept(feed.inputs(again.all()));
      assertThat(pg.count("app.accounts")).isEqualTo(7);
      assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(1);
      assertThat(pg.count("trellara_sink.staged_chunks")).isZero();
    }
  }

  /**
   * The task holding the strict partition holds every lane: nothing staged, lanes' progress with
   * the apply.
   */
  @Test
  void aPartitionedTransactionWhoseLanesAreAllHereIsAppliedFromMemory() throws Exception {
    Barriers b = Barriers.partitioned(opens(0x300, 1, 9, "100"), 3, 2, BarrierApplyTest::lane);
    Feed feed = new Feed();
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"));
        SinkEngine p = pipeline(a)) {
      p.accept(feed.inputs(b.all()));
      assertThat(a.metrics().chunksStaged()).isZero();
      assertThat(p.boundaryMode()).isEqualTo("partitioned_scale_mode");
    }
    assertThat(pg.count("app.accounts")).isEqualTo(9);
    assertThat(pg.one("SELECT event_count FROM trellara_sink.applied_transactions")).isEqualTo("9");
    assertThat(pg.count("trellara_sink.staged_chunks")).isZero();
    var progress = new CheckpointStore(pg.connections()).positions("s1");
    for (int lane = 0; lane < 3; lane++) {
      TopicPartitionKey tp = new TopicPartitionKey(Feed.LANES, lane);
      assertThat(progress).containsEntry(tp, feed.next(tp));
    }
    assertThat(progress).containsEntry(STRICT, feed.next(STRICT));
  }

  /**
   * A source that crashed mid-publication left two lanes' chunks staged (by a task without the
   * strict partition); it published the transaction again whole, and the owner of every partition
   * applies that from memory: the staged leftovers go with the apply instead of staying until some
   * later staged barrier of the flow.
   */
  @Test
  void chunksStagedFromAPartialPublicationAreSweptWhenTheWholeRepublicationAppliesFromMemory() {
    Barriers b = Barriers.partitioned(opens(0x300, 1, 9, "100"), 3, 2, BarrierApplyTest::lane);
    Feed feed = new Feed();
    List<Input> partial =
        feed.inputs(b.chunkMessages()).stream()
            .filter(i -> i.partition().topic().equals(Feed.LANES) && i.partition().partition() != 2)
            .toList();
    List<Input> republished = feed.inputs(b.all());
    try (TransactionApplier laneApplier = applier(ApplyOptions.builder("s1"));
        SinkEngine laneTask = staging(laneApplier)) {
      laneTask.accept(partial);
    }
    assertThat(pg.count("trellara_sink.staged_chunks")).isEqualTo(4);
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"));
        SinkEngine owner = pipeline(a)) {
      owner.accept(republished);
      assertThat(a.metrics().chunksStaged()).isZero();
      assertThat(owner.boundaryMode()).isEqualTo("partitioned_scale_mode");
    }
    assertThat(pg.count("app.accounts")).isEqualTo(9);
    assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(1);
    assertThat(pg.count("trellara_sink.staged_chunks")).isZero();
  }

  /**
   * The memory bound: one chunk per lane in memory during the merge, runs flushed at a bounded
   * size.
   */
  @Test
  void aLargeTransactionHoldsOneChunkPerLaneAtATime() {
    int rows = 45_000;
    Barriers strict = Barriers.strictChunked(opens(0x100, 1, rows, "1"), 2_500);
    Barriers lanes =
        Barriers.partitioned(
            opens(0x200, rows + 1, 2 * rows, "2"), 3, 2_500, BarrierApplyTest::lane);
    Feed feed = new Feed();
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"));
        SinkEngine p = staging(a)) {
      // chunks in one batch, the closing pair in the next: the staged path (a whole barrier in one
      // batch
      // takes the in-memory path, see below)
      p.accept(feed.inputs(strict.chunkMessages()));
      p.accept(feed.inputs(strict.closing()));
      p.accept(feed.inputs(lanes.all()));
    }
    assertThat(pg.count("app.accounts")).isEqualTo(2L * rows);
    assertThat(pg.one("SELECT sum(balance) FROM app.accounts"))
        .isEqualTo(Integer.toString(3 * rows));
    assertThat(barriers).hasSize(2);
    assertThat(barriers.get(0).chunks()).isEqualTo(18);
    assertThat(barriers.get(0).peakOpenChunks()).isEqualTo(1);
    assertThat(barriers.get(1).chunks()).isEqualTo(18);
    assertThat(barriers.get(1).peakOpenChunks()).isLessThanOrEqualTo(3);
    assertThat(lanes.manifest().getBoundaryMode())
        .isEqualTo(ManifestBoundaryMode.PARTITIONED_SCALE_MODE);
  }

  /**
   * A strict-chunked barrier that arrives whole in one batch is verified in memory and applied as
   * its envelope, grouped with the envelopes and barriers around it in one target transaction:
   * nothing is staged.
   */
  @Test
  void aWholeStrictChunkedBarrierInOneBatchAppliesWithoutStaging() {
    Barriers first = Barriers.strictChunked(opens(0x100, 1, 7, "1"), 2);
    Barriers second = Barriers.strictChunked(opens(0x200, 8, 9, "2"), 2);
    Feed feed = new Feed();
    try (TransactionApplier a = applier(ApplyOptions.builder("s1").groupMaxTransactions(10));
        SinkEngine p = pipeline(a)) {
      p.accept(feed.inputs(concat(first.all(), second.all())));
      assertThat(a.metrics().chunksStaged()).isZero();
      assertThat(a.metrics().targetCommits()).isEqualTo(1);
      assertThat(p.boundaryMode()).isEqualTo("strict_chunked_transaction_order");
      // progress is recorded after the second marker, where the partition resumes
      assertThat(p.durablePositions())
          .containsValue((long) first.all().size() + second.all().size());
    }
    assertThat(barriers).isEmpty();
    assertThat(pg.count("app.accounts")).isEqualTo(9);
    assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(2);
    assertThat(pg.count("trellara_sink.staged_chunks")).isZero();
  }
}
