package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.row;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Records a topic writer could craft (well-formed, valid checksums, fresh identities): the sink
 * refuses each, names the rule, and applies nothing of the transaction.
 */
class TopicWriterSafetyTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId ACCOUNTS = rel("app", "accounts");

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec(
        "CREATE TABLE app.accounts (id int PRIMARY KEY, balance int NOT NULL)",
        "INSERT INTO app.accounts SELECT g, 100 FROM generate_series(1, 10) g");
  }

  private static TransactionApplier applier(RelationMapper mapper) {
    return new TransactionApplier(pg.connections(), mapper, ApplyOptions.defaults("s"));
  }

  private static TransactionApplier applier() {
    return applier(RelationMapper.builder().allow(List.of("app.*")).build());
  }

  private static String balances() {
    return pg.one("SELECT string_agg(id || '=' || balance, ',' ORDER BY id) FROM app.accounts");
  }

  @Test
  void refusesAnUpdateThatFlagsANonKeyColumnAsItsKey() {
    String before = balances();
    try (TransactionApplier a = applier()) {
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x10)
                          .update(
                              ACCOUNTS,
                              row(key("balance", "integer", "100")),
                              key("balance", "integer", "0"))
                          .source()))
          .hasMessageContaining("KEY_COLUMNS_MISMATCH")
          .hasMessageContaining("\"balance\"")
          .hasMessageContaining("pg-test:0/10:16:1");
    }
    assertThat(balances()).isEqualTo(before);
  }

  /**
   * Rows of one shape are checked once, at the first: a later row of the same column states but
   * another replica identity is checked again (FULL excuses a key flag the target's key lacks;
   * DEFAULT does not).
   */
  @Test
  void refusesAKeyFlagMismatchInARowAfterAFullIdentityRowOfTheSameShape() {
    String before = balances();
    try (TransactionApplier a = applier()) {
      var crafted =
          tx(0x10)
              .identity(ReplicaIdentity.REPLICA_IDENTITY_FULL)
              .update(
                  ACCOUNTS,
                  row(key("id", "integer", "1"), key("balance", "integer", "100")),
                  key("id", "integer", "1"),
                  key("balance", "integer", "50"))
              .identity(ReplicaIdentity.REPLICA_IDENTITY_DEFAULT)
              .update(
                  ACCOUNTS,
                  row(key("id", "integer", "2"), key("balance", "integer", "100")),
                  key("id", "integer", "2"),
                  key("balance", "integer", "60"))
              .unvalidated();
      assertThatThrownBy(() -> a.apply(SourceTransaction.withoutPosition(crafted)))
          .hasMessageContaining("KEY_COLUMNS_MISMATCH")
          .hasMessageContaining("\"balance\"")
          .hasMessageContaining("pg-test:0/10:16:2");
    }
    assertThat(balances()).isEqualTo(before);
  }

  /** Every row is refused a value carried only in binary form, not only the first of its run. */
  @Test
  void refusesABinaryOnlyValueInAnyRowOfARun() {
    try (TransactionApplier a = applier()) {
      var valid =
          tx(0x10)
              .insert(ACCOUNTS, key("id", "integer", "11"), val("balance", "integer", "1"))
              .insert(ACCOUNTS, key("id", "integer", "12"), val("balance", "integer", "2"))
              .unvalidated();
      var second = valid.getChanges(1);
      var crafted =
          valid.toBuilder()
              .setChanges(
                  1,
                  second.toBuilder()
                      .setAfter(
                          second.getAfter().toBuilder()
                              .setColumns(
                                  1,
                                  second.getAfter().getColumns(1).toBuilder()
                                      .clearText()
                                      .setBinary(
                                          com.google.protobuf.ByteString.copyFrom(
                                              new byte[] {0, 0, 0, 2})))))
              .build();
      assertThatThrownBy(() -> a.apply(SourceTransaction.withoutPosition(crafted)))
          .hasMessageContaining("UNSUPPORTED_CHANGE")
          .hasMessageContaining("only a binary value")
          .hasMessageContaining("pg-test:0/10:16:2");
    }
    assertThat(pg.count("app.accounts")).isEqualTo(10);
  }

  @Test
  void refusesADeleteWhoseKeyImageLeavesThePrimaryKeyOut() {
    try (TransactionApplier a = applier()) {
      assertThatThrownBy(
              () -> a.apply(tx(0x10).delete(ACCOUNTS, key("balance", "integer", "100")).source()))
          .hasMessageContaining("KEY_COLUMNS_MISMATCH")
          .hasMessageContaining("\"app\".\"accounts\"");
    }
    assertThat(pg.count("app.accounts")).isEqualTo(10);
  }

  @Test
  void refusesASchemaVersionThatNamesAKeyColumnTwice() {
    pg.exec(
        "CREATE TABLE app.pairs (a int, b int, v text, PRIMARY KEY (a, b))",
        "INSERT INTO app.pairs VALUES (1, 1, 'x'), (1, 2, 'y')");
    try (TransactionApplier a = applier()) {
      // row images are positional: a column can be named twice only by its schema version
      var valid =
          tx(0x10)
              .delete(rel("app", "pairs"), key("a", "integer", "1"), key("b", "integer", "1"))
              .unvalidated();
      var crafted =
          valid.toBuilder()
              .setSchemaVersions(
                  0,
                  valid.getSchemaVersions(0).toBuilder()
                      .setColumns(
                          1, valid.getSchemaVersions(0).getColumns(1).toBuilder().setName("a")))
              .build();
      assertThatThrownBy(() -> a.apply(SourceTransaction.withoutPosition(crafted)))
          .hasMessageContaining("KEY_COLUMNS_MISMATCH")
          .hasMessageContaining("more than once");
    }
    assertThat(pg.count("app.pairs")).isEqualTo(2);
  }

  /**
   * An inheritance child shares the parent's key values, which the parent's primary key does not
   * cover: the update once matched both rows (and was refused as MULTIPLE_ROWS_MATCHED); it names
   * ONLY the parent now, so it changes the parent's row alone (TargetReachTest covers every
   * statement).
   */
  @Test
  void anUpdateOfAParentChangesOnlyItsOwnRowNotAChildsWithTheSameKey() {
    pg.exec(
        "CREATE TABLE app.parent (id int PRIMARY KEY, v text)",
        "CREATE TABLE app.child () INHERITS (app.parent)",
        "INSERT INTO app.parent VALUES (1, 'p')",
        "INSERT INTO app.child VALUES (1, 'c')");
    try (TransactionApplier a = applier()) {
      a.apply(
          tx(0x10)
              .update(rel("app", "parent"), null, key("id", "integer", "1"), val("v", "text", "z"))
              .source());
    }
    assertThat(pg.rows("SELECT v FROM app.parent ORDER BY v"))
        .containsExactly(List.of("c"), List.of("z"));
    assertThat(pg.one("SELECT v FROM app.child")).isEqualTo("c");
  }

  @Test
  void refusesATruncateCascadeThatWouldReachATableOffTheAllowlist() {
    pg.exec(
        "CREATE TABLE app.ledger (id int PRIMARY KEY, account int REFERENCES app.accounts)",
        "INSERT INTO app.ledger VALUES (1, 1)");
    RelationMapper onlyAccounts = RelationMapper.builder().allow(List.of("app.accounts")).build();
    try (TransactionApplier a = applier(onlyAccounts)) {
      assertThatThrownBy(() -> a.apply(tx(0x10).truncate(true, false, ACCOUNTS).source()))
          .hasMessageContaining("RELATION_REFUSED")
          .hasMessageContaining("\"app\".\"ledger\"");
    }
    assertThat(pg.count("app.ledger")).isEqualTo(1);
    assertThat(pg.count("app.accounts")).isEqualTo(10);
    try (TransactionApplier a = applier()) { // both allowed: the cascade is what the source did
      a.apply(tx(0x10).truncate(true, false, ACCOUNTS).source());
    }
    assertThat(pg.count("app.ledger")).isZero();
  }

  @Test
  void neverWritesItsOwnOrASystemSchemaWhateverTheAllowlistSays() {
    RelationMapper everything = RelationMapper.builder().allow(List.of("*")).build();
    try (TransactionApplier a = applier(everything)) {
      for (String schema :
          List.of("trellara_sink", "pg_catalog", "information_schema", "pg_toast")) {
        assertThatThrownBy(
                () ->
                    a.apply(
                        tx(0x10)
                            .insert(rel(schema, "progress"), key("sink_name", "text", "s"))
                            .source()))
            .hasMessageContaining("RELATION_REFUSED")
            .hasMessageContaining("never writes");
      }
      a.apply(
          tx(0x20)
              .insert(ACCOUNTS, key("id", "integer", "11"), val("balance", "integer", "1"))
              .source());
    }
    assertThat(pg.count("app.accounts")).isEqualTo(11);
    assertThatThrownBy(() -> RelationMapper.builder().map("app.x", "trellara_sink.progress"))
        .hasMessageContaining("never writes");
  }

  @Test
  void appliesBothFlowsOfASourceTransactionThatTouchesATableOfEach() {
    pg.exec(
        "CREATE TABLE app.orders (id int PRIMARY KEY)",
        "CREATE TABLE app.stock (id int PRIMARY KEY)");
    try (TransactionApplier a = applier()) {
      ApplyResult first =
          a.apply(
              tx("pg", 0x10, "700")
                  .dataset("orders")
                  .insert(rel("app", "orders"), key("id", "integer", "1"))
                  .source());
      ApplyResult second =
          a.apply(
              tx("pg", 0x10, "700")
                  .dataset("stock")
                  .insert(rel("app", "stock"), key("id", "integer", "1"))
                  .source());
      assertThat(first.applied()).hasSize(1);
      assertThat(second.applied()).hasSize(1);
      assertThat(second.duplicates()).isEmpty();
      // and each flow's part is still deduplicated on its own
      assertThat(
              a.apply(
                      tx("pg", 0x10, "700")
                          .dataset("stock")
                          .insert(rel("app", "stock"), key("id", "integer", "1"))
                          .source())
                  .duplicates())
          .hasSize(1);
    }
    assertThat(pg.count("app.orders")).isEqualTo(1);
    assertThat(pg.count("app.stock")).isEqualTo(1);
  }

  @Test
  void refusesATransactionBelowTheNewestAppliedCommitLsnUnlessItIsADuplicate() {
    try (TransactionApplier a = applier()) {
      a.apply(
          tx(0x20)
              .update(ACCOUNTS, null, key("id", "integer", "1"), val("balance", "integer", "50"))
              .source());
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x10)
                          .update(
                              ACCOUNTS,
                              null,
                              key("id", "integer", "1"),
                              val("balance", "integer", "0"))
                          .source()))
          .hasMessageContaining("OUT_OF_ORDER")
          .hasMessageContaining("0/10")
          .hasMessageContaining("0/20");
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx("pg-test", 0x20, "33")
                          .update(
                              ACCOUNTS,
                              null,
                              key("id", "integer", "1"),
                              val("balance", "integer", "0"))
                          .source()))
          .hasMessageContaining("OUT_OF_ORDER");
      assertThat(
              a.apply(
                      tx(0x20)
                          .update(
                              ACCOUNTS,
                              null,
                              key("id", "integer", "1"),
                              val("balance", "integer", "50"))
                          .source())
                  .duplicates())
          .hasSize(1);
    }
    // a restarted task reads the order from the target
    try (TransactionApplier a = applier()) {
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x18)
                          .update(
                              ACCOUNTS,
                              null,
                              key("id", "integer", "1"),
                              val("balance", "integer", "0"))
                          .source()))
          .hasMessageContaining("OUT_OF_ORDER");
    }
    assertThat(pg.one("SELECT balance FROM app.accounts WHERE id = 1")).isEqualTo("50");
  }

  /**
   * The snapshot commits at the slot's consistent point, and a streamed transaction whose commit
   * record starts exactly there commits at the same LSN (seen in SnapshotIT under concurrent
   * transfers): it follows the snapshot, in the same task and in a restarted one; nothing else may
   * take that LSN again.
   */
  @Test
  void aStreamedTransactionAtTheSnapshotsConsistentPointFollowsTheSnapshot() {
    pg.exec(
        "CREATE TABLE app.fresh (id int PRIMARY KEY, balance int NOT NULL)"); // a snapshot loads
    // empty tables
    RelationId fresh = rel("app", "fresh");
    try (TransactionApplier a = applier()) {
      a.apply(
          tx("pg-test", 0x30, "snapshot")
              .insert(fresh, key("id", "integer", "11"), val("balance", "integer", "7"))
              .source());
    }
    try (TransactionApplier a =
        applier()) { // restarted after the snapshot: the order is read from the target
      a.apply(
          tx("pg-test", 0x30, "77")
              .update(fresh, null, key("id", "integer", "11"), val("balance", "integer", "8"))
              .source());
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx("pg-test", 0x30, "78")
                          .update(
                              fresh,
                              null,
                              key("id", "integer", "11"),
                              val("balance", "integer", "9"))
                          .source()))
          .hasMessageContaining("OUT_OF_ORDER");
      assertThat(
              a.apply(
                      tx("pg-test", 0x30, "snapshot")
                          .insert(fresh, key("id", "integer", "11"), val("balance", "integer", "7"))
                          .source())
                  .duplicates())
          .hasSize(1);
    }
    try (TransactionApplier a = applier()) { // restarted after both: the streamed one is the newest
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx("pg-test", 0x30, "79")
                          .update(
                              fresh,
                              null,
                              key("id", "integer", "11"),
                              val("balance", "integer", "9"))
                          .source()))
          .hasMessageContaining("OUT_OF_ORDER");
    }
    assertThat(pg.one("SELECT balance FROM app.fresh WHERE id = 11")).isEqualTo("8");
  }
}
