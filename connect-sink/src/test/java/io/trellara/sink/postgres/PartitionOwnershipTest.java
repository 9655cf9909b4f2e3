package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.apply.ChangeWriter;
import io.trellara.sink.postgres.checkpoint.AppliedRecords;
import io.trellara.sink.postgres.checkpoint.AppliedTransaction;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fencing (issue 14): a task claims its partitions in the target when Kafka assigns them; a task
 * that lost a partition to another (a zombie past {@code max.poll.interval.ms}, a second
 * deployment) cannot commit into it, and a claim waits for the previous owner's commit in progress,
 * so the new owner resumes after it.
 */
class PartitionOwnershipTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId ACCOUNTS = rel("app", "accounts");
  static final TopicPartitionKey T0 = new TopicPartitionKey("t", 0);

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec("CREATE TABLE app.accounts (id int PRIMARY KEY, balance numeric NOT NULL)");
  }

  private static TransactionApplier task(int id) {
    return new TransactionApplier(
            pg.connections(), RelationMapper.identity(), ApplyOptions.builder("s").build())
        .ownedBy("s task " + id);
  }

  private static SourceTransaction opens(long lsn, int id) {
    return tx(lsn)
        .insert(
            ACCOUNTS, key("id", "integer", Integer.toString(id)), val("balance", "numeric", "1"))
        .at("t", 0, id);
  }

  @Test
  void aTaskWhosePartitionAnotherTaskClaimedCannotCommitIntoIt() {
    try (TransactionApplier zombie = task(0);
        TransactionApplier newcomer = task(1)) {
      assertThat(zombie.claim(List.of(T0))).isEmpty();
      zombie.apply(opens(0x10, 1));
      assertThat(newcomer.claim(List.of(T0))).isEqualTo(Map.of(T0, 1L));

      assertThatThrownBy(() -> zombie.apply(opens(0x20, 2)))
          .isInstanceOfSatisfying(
              ApplyException.class,
              e -> assertThat(e.reason()).isEqualTo(ApplyException.Reason.FENCED))
          .hasMessageContaining("s task 0")
          .hasMessageContaining("t-0 claimed by s task 1")
          .hasMessageContaining("nothing of this target transaction was committed");
      assertThat(pg.rows("SELECT id FROM app.accounts ORDER BY id")).containsExactly(List.of("1"));
      assertThat(pg.rows("SELECT next_offset FROM trellara_sink.progress"))
          .containsExactly(List.of("1"));

      ApplyResult r = newcomer.apply(opens(0x20, 2));
      assertThat(r.applied()).hasSize(1);
      assertThat(pg.rows("SELECT id FROM app.accounts ORDER BY id"))
          .containsExactly(List.of("1"), List.of("2"));
      assertThat(pg.rows("SELECT owner FROM trellara_sink.partition_owners").get(0).get(0))
          .startsWith("s task 1 on ");
    }
  }

  @Test
  void aClaimWaitsForThePreviousOwnersCommitAndTheNewOwnerResumesAfterIt() throws Exception {
    try (TransactionApplier zombie = task(0);
        TransactionApplier newcomer = task(1)) {
      zombie.claim(List.of(T0));
      SourceTransaction t = opens(0x10, 1);
      // the zombie's transaction has written its rows and progress, and has not committed yet
      TargetSession s = TargetSession.open(pg.connections());
      try {
        new ChangeWriter(s, RelationMapper.identity(), zombie.options()).write(t.envelope());
        AppliedRecords.record(
            s,
            "s",
            zombie.owner(),
            List.of(AppliedTransaction.of(t.envelope(), false)),
            Map.of(T0, 1L),
            false);
        CompletableFuture<Map<TopicPartitionKey, Long>> claim =
            CompletableFuture.supplyAsync(() -> newcomer.claim(List.of(T0)));
        awaitLockWait();
        assertThat(claim).isNotDone();
        s.commit();
        assertThat(claim.get(30, TimeUnit.SECONDS))
            .isEqualTo(Map.of(T0, 1L)); // after the zombie's commit
      } finally {
        s.close();
      }
      // without the wait, the newcomer would apply the same transaction again: its insert would
      // meet the
      // zombie's row (23505) before the dedup record could tell it was a duplicate
      ApplyResult again = newcomer.apply(t);
      assertThat(again.duplicates()).hasSize(1);
      assertThatThrownBy(() -> zombie.apply(opens(0x20, 2)))
          .isInstanceOf(ApplyException.class)
          .hasMessageContaining("FENCED");
    }
  }

  @Test
  void aZombieThatMeetsTheNewOwnersRowsIsFencedNotFailed() {
    TopicPartitionKey strict = new TopicPartitionKey(Feed.STRICT, 0);
    List<TopicPartitionKey> paused = new java.util.ArrayList<>();
    try (TransactionApplier zombie = task(0);
        TransactionApplier newcomer = task(1)) {
      SinkEngine engine =
          new SinkEngine(zombie, null)
              .attach(
                  "s",
                  new SinkEngine.Consumer() {
                    @Override
                    public void seek(TopicPartitionKey partition, long offset) {}

                    @Override
                    public void pause(List<TopicPartitionKey> partitions) {
                      paused.addAll(partitions);
                    }

                    @Override
                    public void resume(List<TopicPartitionKey> partitions) {
                      paused.removeAll(partitions);
                    }

                    @Override
                    public void callAgainWithin(long millis) {}

                    @Override
                    public java.util.Collection<TopicPartitionKey> assignment() {
                      return List.of(strict);
                    }
                  });
      engine.open(List.of(strict));
      newcomer.claim(List.of(strict)); // and applies the zombie's next transaction before it does
      newcomer.apply(
          tx(0x20)
              .insert(ACCOUNTS, key("id", "integer", "5"), val("balance", "numeric", "9"))
              .at(Feed.STRICT, 0, 1));

      io.trellara.protocol.v1.TransactionEnvelope same =
          tx(0x21)
              .insert(ACCOUNTS, key("id", "integer", "5"), val("balance", "numeric", "1"))
              .build();
      byte[] bytes = io.trellara.protocol.codec.TrellaraCodec.encode(same).bytes();
      engine.put(
          new Feed()
              .inputs(List.of(Feed.envelope(bytes, same.getCommitLsn())))); // 23505: not thrown
      assertThat(paused).containsExactly(strict);
      assertThat(pg.rows("SELECT balance FROM app.accounts")).containsExactly(List.of("9"));
    }
  }

  private static void awaitLockWait() {
    org.awaitility.Awaitility.await("the claim waits for the previous owner's transaction")
        .atMost(java.time.Duration.ofSeconds(6))
        .pollInterval(java.time.Duration.ofMillis(20))
        .until(
            () ->
                !pg.rows("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                    .isEmpty());
  }
}
