package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.session.ConnectionFactory;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.DdlPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TransactionApplierTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId ACCOUNTS = rel("app", "accounts");

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec("CREATE TABLE app.accounts (id int PRIMARY KEY, balance numeric NOT NULL)");
  }

  private TransactionApplier applier(ApplyOptions.Builder options) {
    return new TransactionApplier(pg.connections(), RelationMapper.identity(), options.build());
  }

  private static Tx open(long lsn, int id, String balance) {
    return tx(lsn)
        .insert(
            ACCOUNTS,
            key("id", "integer", Integer.toString(id)),
            val("balance", "numeric", balance));
  }

  @Test
  void appliesWholeTransactionOrNothing() {
    pg.exec("INSERT INTO app.accounts VALUES (3, 0)");
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"))) {
      SourceTransaction t =
          tx(0x100)
              .insert(ACCOUNTS, key("id", "integer", "1"), val("balance", "numeric", "10"))
              .insert(ACCOUNTS, key("id", "integer", "2"), val("balance", "numeric", "20"))
              .insert(
                  ACCOUNTS, key("id", "integer", "3"), val("balance", "numeric", "30")) // conflicts
              .insert(ACCOUNTS, key("id", "integer", "4"), val("balance", "numeric", "40"))
              .at("strict", 0, 8);
      assertThatThrownBy(() -> a.apply(t))
          .isInstanceOf(ApplyException.class)
          .hasMessageContaining("\"app\".\"accounts\"")
          .hasMessageContaining("23505")
          .hasMessageContaining("pg-test:0/100:256:");
      assertThat(pg.rows("SELECT id FROM app.accounts")).containsExactly(List.of("3"));
      assertThat(pg.count("trellara_sink.applied_transactions")).isZero();
      assertThat(pg.count("trellara_sink.progress")).isZero();
      assertThat(a.metrics().transactionsApplied()).isZero();
    }
  }

  @Test
  void aRejectedCopyRunLeavesEarlierRunsOfTheTransactionUnapplied() {
    Tx t = tx(0x100);
    for (int i = 1; i <= 200; i++) {
      t.insert(ACCOUNTS, key("id", "integer", Integer.toString(i)), val("balance", "numeric", "1"));
    }
    t.ddl("SELECT 1", "app.accounts");
    for (int i = 201; i <= 400; i++) {
      t.insert(
          ACCOUNTS,
          key("id", "integer", Integer.toString(i)),
          val("balance", "numeric", i == 300 ? "not-a-number" : "1"));
    }
    try (TransactionApplier a = applier(ApplyOptions.builder("s1").ddlPolicy(DdlPolicy.SKIP))) {
      assertThatThrownBy(() -> a.apply(t.at("strict", 0, 1)))
          .isInstanceOf(ApplyException.class)
          .hasMessageContaining("22P02")
          .hasMessageContaining("\"app\".\"accounts\"")
          .hasMessageContaining("pg-test:0/100:256:202 .. pg-test:0/100:256:401 (200 rows)");
      assertThat(pg.count("app.accounts")).isZero();
      assertThat(pg.count("trellara_sink.progress")).isZero();
      // the applier is still usable after the rollback
      a.apply(open(0x200, 1, "5").at("strict", 0, 2));
    }
    assertThat(pg.rows("SELECT id, balance FROM app.accounts")).containsExactly(List.of("1", "5"));
  }

  @Test
  @org.junit.jupiter.api.Timeout(
      value = 60,
      threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aCopyLeftOpenByALargeTransactionEndsBeforeTheNextTransactionOfTheGroupIsAdmitted() {
    // 25,000 inserts fill a run (20,000 rows) mid-transaction: its COPY stays open; the next
    // transaction is of
    // another flow, whose admission reads the target's newest applied LSN on the same session
    Tx large = Tx.tx("pg-a", 0x10, "1");
    for (int i = 1; i <= 25_000; i++) {
      large.insert(
          ACCOUNTS, key("id", "integer", Integer.toString(i)), val("balance", "numeric", "1"));
    }
    Tx other =
        Tx.tx("pg-b", 0x20, "2")
            .insert(ACCOUNTS, key("id", "integer", "0"), val("balance", "numeric", "2"));
    try (TransactionApplier a = applier(ApplyOptions.builder("s1").groupMaxChanges(100_000))) {
      var result = a.apply(List.of(large.at("t", 0, 1), other.at("t", 0, 2)));
      assertThat(result.applied()).hasSize(2);
      assertThat(result.targetCommits()).isEqualTo(1);
      assertThat(a.metrics().rowsInserted()).isEqualTo(25_001);
    }
    assertThat(pg.count("app.accounts")).isEqualTo(25_001);
  }

  /**
   * Another task (a zombie, or a second sink on the same target) holds the dedup record of a
   * transaction in a target transaction of its own: this applier's claim waits for it, and then
   * either skips the transaction as a duplicate (the other committed) or applies it (the other
   * rolled back). Exactly once either way, and the waiting applier writes none of the transaction's
   * rows before it knows.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
  @org.junit.jupiter.api.Timeout(
      value = 60,
      threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aTransactionAnotherTaskIsApplyingIsAppliedExactlyOnce(boolean otherCommits)
      throws Exception {
    SourceTransaction first = open(0x10, 1, "1").at("t", 0, 1);
    SourceTransaction second = open(0x20, 2, "2").at("t", 0, 2);
    try (TransactionApplier a = applier(ApplyOptions.builder("s1").groupMaxTransactions(10));
        java.sql.Connection other = pg.connections().open()) {
      a.apply(first); // creates the sink's tables
      other.setAutoCommit(false);
      try (java.sql.Statement st = other.createStatement()) {
        st.execute("INSERT INTO app.accounts VALUES (2, 20)");
        st.execute(
            """
                        INSERT INTO trellara_sink.applied_transactions (source_id, commit_lsn, commit_lsn_value,
                            transaction_id, database_id, dataset_id, protocol_version, row_identity_version,
                            commit_timestamp, event_count, change_count, ddl_count, sink_name)
                        SELECT source_id, '0/20', 32, '%s', database_id, dataset_id, protocol_version,
                            row_identity_version, commit_timestamp, 1, 1, 0, 'other'
                          FROM trellara_sink.applied_transactions"""
                .formatted(second.key().transactionId()));
      }
      var applying =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> a.apply(List.of(second)));
      // the claim waits on the other transaction's dedup record
      pg.await("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'", "1");
      assertThat(applying).isNotDone();
      if (otherCommits) {
        other.commit();
      } else {
        other.rollback();
      }
      ApplyResult r = applying.get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(r.duplicates()).hasSize(otherCommits ? 1 : 0);
      assertThat(r.applied()).hasSize(otherCommits ? 0 : 1);
    }
    assertThat(pg.rows("SELECT id, balance FROM app.accounts ORDER BY id"))
        .containsExactly(List.of("1", "1"), List.of("2", otherCommits ? "20" : "2"));
    assertThat(
            pg.rows("SELECT sink_name FROM trellara_sink.applied_transactions ORDER BY commit_lsn"))
        .containsExactly(List.of("s1"), List.of(otherCommits ? "other" : "s1"));
  }

  @Test
  void aRefusedGroupIsAppliedOneTransactionAtATimeUpToTheOneTheTargetRefuses() {
    pg.exec("INSERT INTO app.accounts VALUES (2, 0)");
    try (TransactionApplier a = applier(ApplyOptions.builder("s1").groupMaxTransactions(10))) {
      List<SourceTransaction> group =
          List.of(
              open(0x10, 1, "1").at("t", 0, 1),
              open(0x20, 2, "2").at("t", 0, 2),
              open(0x30, 3, "3").at("t", 0, 3));
      // as if applied one by one: the first commits, the second (a duplicate key) stops apply,
      // naming itself
      assertThatThrownBy(() -> a.apply(group))
          .isInstanceOf(ApplyException.class)
          .hasMessageContaining("23505")
          .hasMessageContaining("pg-test:0/20:");
      assertThat(a.metrics().groupsSplit()).isEqualTo(1);
      assertThat(pg.rows("SELECT id FROM app.accounts ORDER BY id"))
          .containsExactly(List.of("1"), List.of("2"));
      assertThat(pg.one("SELECT next_offset FROM trellara_sink.progress")).isEqualTo("1");
      assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(1);
    }
  }

  @Test
  void skipsAndReportsTransactionsAlreadyApplied() throws Exception {
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"))) {
      SourceTransaction first = open(0x10, 1, "1").at("t", 0, 1);
      ApplyResult r1 = a.apply(first);
      assertThat(r1.applied()).containsExactly(first.key());
      ApplyResult r2 = a.apply(List.of(first, open(0x20, 2, "2").at("t", 0, 2)));
      assertThat(r2.duplicates()).containsExactly(first.key());
      assertThat(r2.applied()).hasSize(1);
      assertThat(a.metrics().duplicatesSkipped()).isEqualTo(1);
      assertThat(a.metrics().transactionsApplied()).isEqualTo(2);
      assertThat(pg.count("app.accounts")).isEqualTo(2);
      assertThat(new CheckpointStore(pg.connections()).isApplied(first.flowKey())).isTrue();
    }
    // a fresh applier (a restarted task) sees the same dedup records
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"))) {
      ApplyResult r = a.apply(open(0x10, 1, "1").at("t", 0, 1));
      assertThat(r.applied()).isEmpty();
      assertThat(r.duplicates()).hasSize(1);
    }
  }

  @Test
  void skipsDuplicatesInsideAGroupWhileApplyingTheRest() {
    try (TransactionApplier a = applier(ApplyOptions.builder("s1").groupMaxTransactions(10))) {
      SourceTransaction first = open(0x10, 1, "1").at("t", 0, 1);
      a.apply(first);
      ApplyResult r =
          a.apply(
              List.of(
                  first,
                  open(0x20, 2, "2").at("t", 0, 2),
                  open(0x30, 3, "3").at("t", 0, 3),
                  open(0x30, 3, "3").at("t", 0, 4)));
      assertThat(r.applied()).extracting(k -> k.commitLsn()).containsExactly("0/20", "0/30");
      assertThat(r.duplicates()).extracting(k -> k.commitLsn()).containsExactly("0/10", "0/30");
      assertThat(r.positions()).containsEntry(new TopicPartitionKey("t", 0), 4L);
    }
    assertThat(pg.rows("SELECT id FROM app.accounts ORDER BY id"))
        .containsExactly(List.of("1"), List.of("2"), List.of("3"));
  }

  @Test
  void recordsTheDedupRowWithIdentityAndVersions() {
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"))) {
      a.apply(open(0x1_0000_00FFL, 1, "1").source());
    }
    assertThat(
            pg.rows(
                "SELECT source_id, commit_lsn, commit_lsn_value, transaction_id, database_id,"
                    + " dataset_id, protocol_version, row_identity_version, event_count, sink_name"
                    + " FROM trellara_sink.applied_transactions"))
        .containsExactly(
            List.of(
                "pg-test", "1/FF", "4294967551", "4294967551", "db", "flow", "1", "2", "1", "s1"));
  }

  @Test
  void groupsConsecutiveTransactionsIntoOneTargetTransaction() {
    try (TransactionApplier a = applier(ApplyOptions.builder("s1").groupMaxTransactions(4))) {
      List<SourceTransaction> txs = new ArrayList<>();
      for (int i = 1; i <= 10; i++) {
        txs.add(open(0x100L * i, i, Integer.toString(i)).at("t", 0, i));
      }
      ApplyResult r = a.apply(txs);
      assertThat(r.applied()).hasSize(10);
      assertThat(r.targetCommits()).isEqualTo(3);
      assertThat(a.metrics().targetCommits()).isEqualTo(3);
      assertThat(r.positions())
          .containsExactlyEntriesOf(Map.of(new TopicPartitionKey("t", 0), 10L));
      assertThat(pg.count("app.accounts")).isEqualTo(10);
      assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(10);
    }
  }

  /**
   * A task that lost its partition and still finishes an apply cannot move the new owner's progress
   * back.
   */
  @Test
  void progressNeverMovesBackwards() throws Exception {
    try (TransactionApplier owner = applier(ApplyOptions.builder("s1"));
        TransactionApplier zombie = applier(ApplyOptions.builder("s1"))) {
      owner.apply(List.of(open(0x10, 1, "1").at("t", 0, 1), open(0x20, 2, "2").at("t", 0, 2)));
      ApplyResult late =
          zombie.apply(open(0x10, 1, "1").at("t", 0, 1)); // a duplicate, at an older offset
      assertThat(late.duplicates()).hasSize(1);
    }
    assertThat(new CheckpointStore(pg.connections()).positions("s1"))
        .containsExactlyEntriesOf(Map.of(new TopicPartitionKey("t", 0), 2L));
  }

  @Test
  void recordsCheckpointPositionsPerTopicPartition() throws Exception {
    try (TransactionApplier a = applier(ApplyOptions.builder("sink-a").groupMaxTransactions(3))) {
      a.apply(
          List.of(
              open(0x10, 1, "1").at("strict", 0, 5),
              open(0x20, 2, "2").at("strict", 0, 9),
              open(0x30, 3, "3").at("other", 2, 42)));
      a.apply(open(0x40, 4, "4").at("strict", 0, 12));
    }
    try (TransactionApplier b = applier(ApplyOptions.builder("sink-b"))) {
      b.apply(open(0x50, 5, "5").at("strict", 0, 100));
    }
    CheckpointStore store = new CheckpointStore(pg.connections());
    assertThat(store.positions("sink-a"))
        .containsOnly(
            Map.entry(new TopicPartitionKey("strict", 0), 12L),
            Map.entry(new TopicPartitionKey("other", 2), 42L));
    assertThat(store.positions("sink-b"))
        .containsOnly(Map.entry(new TopicPartitionKey("strict", 0), 100L));
    assertThat(store.positions("nobody")).isEmpty();
  }

  @Test
  void advancesProgressEvenWhenEveryTransactionIsADuplicate() throws Exception {
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"))) {
      a.apply(open(0x10, 1, "1").at("t", 0, 1));
      a.apply(open(0x10, 1, "1").at("t", 0, 7));
    }
    assertThat(new CheckpointStore(pg.connections()).positions("s1"))
        .containsEntry(new TopicPartitionKey("t", 0), 7L);
  }

  @Test
  void createsCheckpointSchemaIdempotently() throws Exception {
    CheckpointStore store = new CheckpointStore(pg.connections());
    store.createSchema();
    store.createSchema();
    assertThat(pg.count("trellara_sink.progress")).isZero();
  }

  @Test
  void synchronousCommitOffIsInForceAtCommitAndOnlyForTheApplyTransaction() throws Exception {
    pg.exec(
        "ALTER DATABASE postgres SET synchronous_commit = on",
        "CREATE TABLE app.seen (setting text)",
        "CREATE FUNCTION app.seen() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            + " INSERT INTO app.seen VALUES (current_setting('synchronous_commit')); RETURN NULL; END $$",
        // a deferred constraint trigger runs at commit time, after the checkpoint statement
        "CREATE CONSTRAINT TRIGGER seen AFTER INSERT ON app.accounts DEFERRABLE INITIALLY DEFERRED"
            + " FOR EACH ROW EXECUTE FUNCTION app.seen()");
    java.sql.Connection[] held = new java.sql.Connection[1];
    ConnectionFactory keep = () -> held[0] = pg.connections().open();
    try (TransactionApplier a =
        new TransactionApplier(
            keep,
            RelationMapper.identity(),
            ApplyOptions.builder("s1").synchronousCommitOff(true).build())) {
      a.apply(open(0x10, 1, "1").source());
      try (var s = held[0].createStatement();
          var rs = s.executeQuery("SHOW synchronous_commit")) {
        rs.next();
        assertThat(rs.getString(1)).isEqualTo("on");
      }
      held[0].rollback();
      assertThat(pg.rows("SELECT setting FROM app.seen")).containsExactly(List.of("off"));
      // with apply.synchronous_commit=on the session's own setting stays in force
      try (TransactionApplier b = applier(ApplyOptions.builder("s1").synchronousCommitOff(false))) {
        b.apply(open(0x20, 2, "2").source());
      }
      assertThat(pg.rows("SELECT setting FROM app.seen"))
          .containsExactly(List.of("off"), List.of("on"));
    } finally {
      pg.exec("ALTER DATABASE postgres RESET synchronous_commit");
    }
  }

  @Test
  void appliesTheSampleEnvelopeOfTheProtocolModule() {
    pg.exec(
        "CREATE TABLE public.orders (id bigint PRIMARY KEY, customer text, amount numeric(12,2),"
            + " placed_at timestamptz, note text)");
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"))) {
      a.apply(SourceTransaction.withoutPosition(SampleTransactions.envelope(10, false)));
      assertThat(
              pg.rows(
                  "SELECT id, customer, amount, placed_at, note FROM public.orders WHERE id IN (1, 2)"))
          .containsExactly(
              List.of("1", "customer-renamed", "10.00", "2026-11-29 10:16:00+00", "note 1"));
      assertThat(pg.count("public.orders")).isEqualTo(9);
      assertThat(a.metrics().rowsInserted()).isEqualTo(10);
      assertThat(a.metrics().rowsUpdated()).isEqualTo(1);
      assertThat(a.metrics().rowsDeleted()).isEqualTo(1);
    } finally {
      pg.exec("DROP TABLE public.orders");
    }
  }

  @Test
  void replaysDdlAtItsPlaceInTheTotalOrder() {
    try (TransactionApplier a = applier(ApplyOptions.builder("s1").ddlPolicy(DdlPolicy.REPLAY))) {
      a.apply(
          tx(0x10)
              .insert(ACCOUNTS, key("id", "integer", "1"), val("balance", "numeric", "1"))
              .ddl("ALTER TABLE app.accounts ADD COLUMN note text", "app.accounts")
              .insert(
                  ACCOUNTS,
                  key("id", "integer", "2"),
                  val("balance", "numeric", "2"),
                  val("note", "text", "after ddl"))
              .source());
      assertThat(pg.rows("SELECT id, note FROM app.accounts ORDER BY id"))
          .containsExactly(java.util.Arrays.asList("1", null), List.of("2", "after ddl"));
      assertThat(a.metrics().ddlReplayed()).isEqualTo(1);
    }
  }

  @Test
  void skipsOrRefusesDdlPerPolicy() {
    Tx withDdl =
        tx(0x10)
            .insert(ACCOUNTS, key("id", "integer", "1"), val("balance", "numeric", "1"))
            .ddl("DROP TABLE app.accounts", "app.accounts");
    try (TransactionApplier a = applier(ApplyOptions.builder("s1").ddlPolicy(DdlPolicy.FAIL))) {
      assertThatThrownBy(() -> a.apply(withDdl.source()))
          .isInstanceOf(ApplyException.class)
          .hasMessageContaining("DDL_REFUSED")
          .hasMessageContaining("pg-test:0/10:16:2");
      assertThat(pg.count("app.accounts")).isZero();
    }
    try (TransactionApplier a = applier(ApplyOptions.builder("s1").ddlPolicy(DdlPolicy.SKIP))) {
      a.apply(withDdl.source());
      assertThat(pg.count("app.accounts")).isEqualTo(1);
      assertThat(a.metrics().ddlSkipped()).isEqualTo(1);
    }
  }
}
