package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.BarrierApplyTest.ACCOUNTS;
import static io.trellara.sink.postgres.BarrierApplyTest.opens;
import static io.trellara.sink.postgres.Feed.concat;
import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Strict-chunked transactions applied as their chunks arrive, one record per batch as a consumer
 * with small fetches sees them, under what production does to a stream half-way: the target
 * connection cut, the partition revoked, the source publishing the transaction again, a replay of
 * what was applied, chunks out of total order. Each time the transaction becomes visible once and
 * whole, and never in part.
 */
class StreamedBarrierTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  private static final TopicPartitionKey STRICT = new TopicPartitionKey(Feed.STRICT, 0);

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec("CREATE TABLE app.accounts (id int PRIMARY KEY, balance numeric NOT NULL)");
  }

  private static TransactionApplier applier() {
    return new TransactionApplier(
        pg.connections(), RelationMapper.identity(), ApplyOptions.builder("s1").build());
  }

  private static SinkEngine pipeline(TransactionApplier a) {
    SinkEngine.Listener retriesCounted =
        new SinkEngine.Listener() {
          @Override
          public void streamRetried() {
            a.metrics().countRetry();
          }
        };
    return new SinkEngine(a, retriesCounted, 1000, 64 << 20, 0);
  }

  /** 20 new accounts in 10 chunks of two, then the manifest and the marker. */
  private static Barriers twenty() {
    return Barriers.strictChunked(opens(0x100, 1, 20, "100"), 2);
  }

  @Test
  void
      aCutTargetConnectionMidTransactionRollsBackAndTheTransactionIsAppliedOnceFromItsFirstChunk() {
    Barriers b = twenty();
    Feed feed = new Feed();
    List<Long> visibleWhileOpen = new ArrayList<>();
    try (TransactionApplier a = applier();
        SinkEngine p = pipeline(a)) {
      Feed.oneByOne(
          p,
          feed.inputs(b.all()),
          delivered -> {
            if (delivered
                == 5) { // chunk 4 written: cut the stream's connection (idle in transaction)
              visibleWhileOpen.add(pg.count("app.accounts"));
              assertThat(
                      pg.one(
                          "SELECT count(pg_catalog.pg_terminate_backend(pid)) FROM pg_stat_activity"
                              + " WHERE state = 'idle in transaction' AND datname = current_database()"))
                  .isEqualTo("1");
            }
          });
      assertThat(a.metrics().retries()).isEqualTo(1);
      assertThat(a.metrics().barriersApplied()).isEqualTo(1);
      assertThat(a.metrics().chunksStaged()).isZero();
      assertThat(p.durablePositions()).containsEntry(STRICT, 12L);
    }
    assertThat(visibleWhileOpen).containsExactly(0L);
    assertThat(pg.count("app.accounts")).isEqualTo(20);
    assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(1);
    assertThat(pg.one("SELECT next_offset FROM trellara_sink.progress")).isEqualTo("12");
  }

  @Test
  void
      aTargetWithShortStatementIdleAndTransactionTimeoutsTakesATransactionWhoseChunksArriveSlowly() {
    // 25,000 rows in chunks of 5,000: from row 20,000 on a COPY is open, and the stream's
    // transaction stays
    // open between chunks; the pauses outlast the database's timeouts, which the sink's sessions
    // turn off
    pg.exec(
        "ALTER DATABASE postgres SET statement_timeout = '100ms'",
        "ALTER DATABASE postgres SET idle_in_transaction_session_timeout = '100ms'",
        "ALTER DATABASE postgres SET transaction_timeout = '250ms'"); // PostgreSQL 17
    try {
      Barriers b = Barriers.strictChunked(opens(0x100, 1, 25_000, "1"), 5_000);
      try (TransactionApplier a = applier();
          SinkEngine p = pipeline(a)) {
        Feed.oneByOne(p, new Feed().inputs(b.all()), delivered -> outlastTheTimeouts());
        assertThat(a.metrics().retries()).isZero();
      }
      assertThat(pg.count("app.accounts")).isEqualTo(25_000);
    } finally {
      pg.exec(
          "ALTER DATABASE postgres RESET statement_timeout",
          "ALTER DATABASE postgres RESET idle_in_transaction_session_timeout",
          "ALTER DATABASE postgres RESET transaction_timeout");
    }
  }

  /**
   * Until the stream's open transaction (or COPY) has been unchanged for longer than both 100 ms
   * timeouts.
   */
  private static void outlastTheTimeouts() {
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .pollInterval(java.time.Duration.ofMillis(20))
        .ignoreExceptions() // the probe itself runs under the 100 ms statement_timeout: on a busy
        // machine it may be cancelled, and is asked again
        .until(
            () ->
                pg.one(
                        "SELECT coalesce(bool_and(now() - state_change > interval '300 ms'), true)::text"
                            + " FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                            + " AND xact_start IS NOT NULL")
                    .equals("true"));
  }

  @Test
  void aPartitionRevokedMidTransactionRollsBackAndItsNextOwnerAppliesItOnce() {
    Barriers b = twenty();
    try (TransactionApplier a = applier();
        SinkEngine p = pipeline(a)) {
      Feed.oneByOne(p, new Feed().inputs(b.chunkMessages().subList(0, 6)));
      assertThat(
              pg.one(
                  "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'"
                      + " AND datname = current_database()"))
          .isEqualTo("1");
      p.close(List.of(STRICT));
      assertThat(
              pg.one(
                  "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'"
                      + " AND datname = current_database()"))
          .isEqualTo("0");
      assertThat(pg.count("app.accounts")).isZero();
    }
    try (TransactionApplier a = applier();
        SinkEngine p = pipeline(a)) { // the next owner, from offset 0
      p.open(List.of(STRICT));
      Feed.oneByOne(p, new Feed().inputs(b.all()));
    }
    assertThat(pg.count("app.accounts")).isEqualTo(20);
    assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(1);
  }

  @Test
  void aTransactionPublishedAgainFromItsStartReplacesThePartialStream() {
    Barriers b = twenty();
    Barriers again =
        Barriers.strictChunked(opens(0x100, 1, 20, "100"), 3); // chunked otherwise this time
    try (TransactionApplier a = applier();
        SinkEngine p = pipeline(a)) {
      Feed.oneByOne(p, new Feed().inputs(concat(b.chunkMessages().subList(0, 7), again.all())));
      assertThat(a.metrics().barriersApplied()).isEqualTo(1);
    }
    assertThat(pg.count("app.accounts")).isEqualTo(20);
    assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(1);
  }

  @Test
  void aReplayOfAnAppliedTransactionIsCheckedAndSkipped() {
    Barriers b = twenty();
    TransactionEnvelope later =
        tx(0x200)
            .update(ACCOUNTS, null, key("id", "integer", "1"), val("balance", "numeric", "7"))
            .build();
    Barriers next = Barriers.strictChunked(later, 2);
    try (TransactionApplier a = applier();
        SinkEngine p = pipeline(a)) {
      Feed feed = new Feed();
      Feed.oneByOne(p, feed.inputs(b.all()));
      Feed.oneByOne(p, feed.inputs(concat(b.all(), next.all()))); // redelivered, then something new
      assertThat(a.metrics().duplicatesSkipped()).isEqualTo(1);
      assertThat(a.metrics().transactionsApplied()).isEqualTo(2);
    }
    assertThat(pg.count("app.accounts")).isEqualTo(20);
    assertThat(pg.one("SELECT balance FROM app.accounts WHERE id = 1")).isEqualTo("7");
    assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(2);
  }

  /**
   * Chunks whose events are not in total order as published cannot stream: the staged path merges
   * them.
   */
  @Test
  void chunksOutOfTotalOrderAreAppliedTheStagedWay() {
    TransactionEnvelope e =
        tx(0x100)
            .insert(ACCOUNTS, key("id", "integer", "1"), val("balance", "numeric", "10"))
            .update(ACCOUNTS, null, key("id", "integer", "1"), val("balance", "numeric", "11"))
            .insert(ACCOUNTS, key("id", "integer", "2"), val("balance", "numeric", "20"))
            .update(ACCOUNTS, null, key("id", "integer", "2"), val("balance", "numeric", "21"))
            .build();
    List<Object> events = Barriers.events(e);
    ChangeRecord c1 = (ChangeRecord) events.get(0);
    ChangeRecord c2 = (ChangeRecord) events.get(1);
    ChangeRecord c3 = (ChangeRecord) events.get(2);
    ChangeRecord c4 = (ChangeRecord) events.get(3);
    Barriers b =
        Barriers.of(
            e,
            ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER,
            0,
            List.of(
                new Barriers.ChunkSpec(0, 0, List.of(c1, c3), List.of()),
                new Barriers.ChunkSpec(1, 0, List.of(c2, c4), List.of())));
    try (TransactionApplier a = applier();
        SinkEngine p = pipeline(a)) {
      Feed.oneByOne(p, new Feed().inputs(b.all()));
      assertThat(a.metrics().chunksStaged()).isEqualTo(2);
      assertThat(a.metrics().barriersApplied()).isEqualTo(1);
    }
    assertThat(pg.rows("SELECT id, balance FROM app.accounts ORDER BY id"))
        .containsExactly(List.of("1", "11"), List.of("2", "21"));
  }
}
