package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A forged chunk 0 of a streamed barrier (a TRUNCATE, so its target transaction holds an ACCESS
 * EXCLUSIVE lock) with no chunk after it: the stream is rolled back within apply.stall.timeout.ms,
 * a reader of the table waits no longer than that, and the next real transaction applies. Without
 * the bound the lock is held for as long as no record follows.
 */
class LoneChunkZeroTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  private static final RelationId ACCOUNTS = rel("app", "accounts");
  private static final TopicPartitionKey STRICT = new TopicPartitionKey(Feed.STRICT, 0);
  private static final Duration BOUND = Duration.ofSeconds(2);

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec(
        "CREATE TABLE app.accounts (id int PRIMARY KEY, balance int NOT NULL)",
        "INSERT INTO app.accounts SELECT g, 100 FROM generate_series(1, 10) g");
  }

  private static String lockMode() {
    return pg.one(
        "SELECT string_agg(mode, ',') FROM pg_locks WHERE relation = 'app.accounts'::regclass"
            + " AND pid <> pg_backend_pid()");
  }

  @Test
  void aLoneChunkZeroIsRolledBackWithinTheBoundAndReleasesItsLocks() throws Exception {
    Tx forged = tx(0x100).truncate(false, false, ACCOUNTS);
    for (int id = 100; id < 104; id++) {
      forged.insert(ACCOUNTS, key("id", "integer", "" + id), val("balance", "integer", "0"));
    }
    Barriers b = Barriers.strictChunked(forged.build(), 2);
    Feed feed = new Feed();
    List<Input> chunk0 = feed.inputs(b.chunkMessages().subList(0, 1));
    try (TransactionApplier a =
            new TransactionApplier(
                pg.connections(),
                RelationMapper.builder().allow(List.of("app.*")).build(),
                ApplyOptions.builder("s").stallTimeout(BOUND).build());
        SinkEngine p =
            new SinkEngine(a, null, 1000, 64 << 20, 0).maxStreamIdle(a.options().stallTimeout())) {
      p.accept(chunk0);
      assertThat(lockMode())
          .as("chunk 0 opened a target transaction")
          .contains("AccessExclusiveLock");
      long start = System.nanoTime();
      CompletableFuture<Long> reader =
          CompletableFuture.supplyAsync(
              () -> {
                try (Connection c = pg.connections().open();
                    Statement s = c.createStatement()) {
                  s.execute("SET lock_timeout = '30s'");
                  try (ResultSet rs = s.executeQuery("SELECT count(*) FROM app.accounts")) {
                    rs.next();
                    return rs.getLong(1);
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      while (!reader.isDone() && System.nanoTime() - start < 20_000_000_000L) {
        p.poll(); // the task's poll loop: nothing more arrives
        try {
          reader.get(
              50, TimeUnit.MILLISECONDS); // Connect's poll cadence, ended by the reader's answer
        } catch (java.util.concurrent.TimeoutException stillWaiting) {
          // the reader still waits behind the lock: poll again
        }
      }
      long waitedMs = (System.nanoTime() - start) / 1_000_000L;
      assertThat(reader.get(1, TimeUnit.SECONDS)).as("the TRUNCATE was rolled back").isEqualTo(10);
      assertThat(waitedMs).as("the reader waited at most the bound and a poll").isLessThan(6_000);
      assertThat(lockMode()).isNull();
      assertThat(
              pg.one(
                  "SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'"
                      + " AND datname = current_database()"))
          .isEqualTo("0");
      assertThat(p.takeRewinds()).containsEntry(STRICT, 0L);

      // delivered again from chunk 0, then the next real transaction: applied
      byte[] real =
          TrellaraCodec.encode(
                  tx(0x200)
                      .insert(ACCOUNTS, key("id", "integer", "11"), val("balance", "integer", "1"))
                      .build())
              .bytes();
      Feed again = new Feed();
      List<Input> redelivered = again.inputs(b.chunkMessages().subList(0, 1));
      Input next = again.input(STRICT, MessageKind.ENVELOPE, real, "pg-test/db:0/200:512");
      Feed.oneByOne(p, List.of(redelivered.get(0), next));
    }
    assertThat(pg.one("SELECT count(*) FROM app.accounts WHERE id = 11")).isEqualTo("1");
    assertThat(pg.count("app.accounts")).isEqualTo(11);
    assertThat(pg.one("SELECT max(commit_lsn)::text FROM trellara_sink.applied_transactions"))
        .isEqualTo("0/200");
  }
}
