package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.row;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.Snapshots;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.SnapshotTargetPolicy;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A target table on the allowlist with an inheritance child that is not ({@code accounts_secret},
 * holding a row with the same key): every statement the sink issues on the parent names it {@code
 * ONLY}, so updates, deletes, truncates, a snapshot's replace and schema evolution leave the
 * child's rows as they were. A partitioned target is written only when every partition is on the
 * allowlist, since its rows land in them.
 */
class TargetReachTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId ACCOUNTS = rel("app", "accounts");
  static final RelationId LEDGER = rel("app", "ledger");
  static final String SECRET = "1=999:kept";

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec(
        "CREATE TABLE app.accounts (id int PRIMARY KEY, balance int NOT NULL)",
        "CREATE TABLE app.accounts_secret (note text) INHERITS (app.accounts)",
        "INSERT INTO app.accounts VALUES (1, 100), (2, 100)",
        "INSERT INTO app.accounts_secret VALUES (1, 999, 'kept')");
  }

  private static TransactionApplier applier(ApplyOptions.Builder options, String... allowed) {
    return new TransactionApplier(
        pg.connections(),
        RelationMapper.builder().allow(List.of(allowed)).build(),
        options.build());
  }

  private static TransactionApplier applier() {
    return applier(ApplyOptions.builder("s"), "app.accounts");
  }

  private static String secret() {
    return pg.one(
        "SELECT string_agg(id || '=' || balance || ':' || note, ',' ORDER BY id)"
            + " FROM app.accounts_secret");
  }

  private static String parent() {
    return pg.one(
        "SELECT coalesce(string_agg(id || '=' || balance, ',' ORDER BY id), '')"
            + " FROM ONLY app.accounts");
  }

  @Test
  void anUpdateAndADeleteOfTheParentLeaveTheChildsRowWithTheSameKey() {
    try (TransactionApplier a = applier()) {
      a.apply(
          tx(0x10)
              .update(
                  ACCOUNTS,
                  row(key("id", "integer", "1")),
                  key("id", "integer", "1"),
                  val("balance", "integer", "0"))
              .source());
      assertThat(parent()).isEqualTo("1=0,2=100");
      assertThat(secret()).isEqualTo(SECRET);
      a.apply(tx(0x20).delete(ACCOUNTS, key("id", "integer", "1")).source());
    }
    assertThat(parent()).isEqualTo("2=100");
    assertThat(secret()).isEqualTo(SECRET);
  }

  /** REPLICA IDENTITY FULL matches by ctid in a sub-select: that one names ONLY too. */
  @Test
  void aFullIdentityDeleteOfTheParentLeavesTheChild() {
    pg.exec(
        "CREATE TABLE app.plain (id int, balance int)",
        "CREATE TABLE app.plain_secret () INHERITS (app.plain)",
        "INSERT INTO app.plain VALUES (1, 100)",
        "INSERT INTO app.plain_secret VALUES (1, 100)");
    try (TransactionApplier a = applier(ApplyOptions.builder("s"), "app.plain")) {
      a.apply(
          tx(0x10)
              .identity(ReplicaIdentity.REPLICA_IDENTITY_FULL)
              .delete(
                  rel("app", "plain"), key("id", "integer", "1"), key("balance", "integer", "100"))
              .source());
    }
    assertThat(pg.one("SELECT count(*) FROM ONLY app.plain")).isEqualTo("0");
    assertThat(pg.one("SELECT count(*) FROM app.plain_secret")).isEqualTo("1");
  }

  @Test
  void aTruncateOfTheParentLeavesTheChild() {
    try (TransactionApplier a = applier()) {
      a.apply(tx(0x10).truncate(false, false, ACCOUNTS).source());
    }
    assertThat(parent()).isEmpty();
    assertThat(secret()).isEqualTo(SECRET);
  }

  @Test
  void aSnapshotReplacingTheParentsRowsLeavesTheChild() {
    try (TransactionApplier a =
        applier(
            ApplyOptions.builder("s").snapshotTarget(SnapshotTargetPolicy.TRUNCATE),
            "app.accounts")) {
      a.apply(
          Tx.tx("pg-test", 0x10, Snapshots.TRANSACTION_ID)
              .insert(ACCOUNTS, key("id", "integer", "3"), val("balance", "integer", "7"))
              .source());
    }
    assertThat(parent()).isEqualTo("3=7");
    assertThat(secret()).isEqualTo(SECRET);
  }

  /**
   * The server adds or retypes a column of a parent only with its children: a child outside the
   * allowlist makes the change refused, naming the child, and nothing of the transaction applied.
   */
  @Test
  void schemaEvolutionThatWouldReachTheChildIsRefused() {
    try (TransactionApplier a = applier()) {
      a.apply(
          tx(0x10)
              .insert(ACCOUNTS, key("id", "integer", "3"), val("balance", "integer", "1"))
              .source());
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x20)
                          .insert(
                              ACCOUNTS,
                              key("id", "integer", "4"),
                              val("balance", "bigint", "1"),
                              val("extra", "text", "x"))
                          .source()))
          .hasMessageContaining("SCHEMA_CHANGE_REFUSED")
          .hasMessageContaining("\"app\".\"accounts_secret\"")
          .hasMessageContaining("pg-test:0/20:");
    }
    assertThat(parent()).isEqualTo("1=100,2=100,3=1");
    assertThat(secret()).isEqualTo(SECRET);
    assertThat(
            pg.one(
                "SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position)"
                    + " FROM information_schema.columns WHERE table_schema = 'app'"
                    + " AND table_name = 'accounts_secret'"))
        .isEqualTo("id integer, balance integer, note text");
  }

  @Test
  void aPartitionedTargetWithAPartitionOutsideTheAllowlistIsRefused() {
    pg.exec(
        "CREATE TABLE app.ledger (id int PRIMARY KEY, v int) PARTITION BY RANGE (id)",
        "CREATE TABLE app.ledger_a PARTITION OF app.ledger FOR VALUES FROM (0) TO (100)",
        "CREATE TABLE app.ledger_b PARTITION OF app.ledger FOR VALUES FROM (100) TO (200)"
            + " PARTITION BY RANGE (id)",
        "CREATE TABLE app.ledger_b1 PARTITION OF app.ledger_b FOR VALUES FROM (100) TO (200)");
    try (TransactionApplier a =
        applier(ApplyOptions.builder("s"), "app.ledger", "app.ledger_a", "app.ledger_b")) {
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x10)
                          .insert(LEDGER, key("id", "integer", "150"), val("v", "integer", "1"))
                          .source()))
          .hasMessageContaining("RELATION_REFUSED")
          .hasMessageContaining("\"app\".\"ledger_b1\"")
          .hasMessageContaining("pg-test:0/10:");
    }
    assertThat(pg.count("app.ledger")).isZero();
  }

  /**
   * Every partition allowed: rows are written through the partitioned table, whose UPDATE and
   * DELETE must not say ONLY (that would match nothing), and a FULL identity match names the row by
   * (tableoid, ctid), since a ctid repeats across partitions.
   */
  @Test
  void aPartitionedTargetWithEveryPartitionAllowedIsWritten() {
    pg.exec(
        "CREATE TABLE app.ledger (id int, v int) PARTITION BY RANGE (id)",
        "CREATE TABLE app.ledger_a PARTITION OF app.ledger FOR VALUES FROM (0) TO (100)",
        "CREATE TABLE app.ledger_b PARTITION OF app.ledger FOR VALUES FROM (100) TO (200)",
        "INSERT INTO app.ledger VALUES (1, 1), (101, 1)");
    try (TransactionApplier a = applier(ApplyOptions.builder("s"), "app.*")) {
      a.apply(
          tx(0x10)
              .identity(ReplicaIdentity.REPLICA_IDENTITY_FULL)
              .update(
                  LEDGER,
                  row(key("id", "integer", "1"), key("v", "integer", "1")),
                  key("id", "integer", "1"),
                  key("v", "integer", "2"))
              .delete(LEDGER, key("id", "integer", "101"), key("v", "integer", "1"))
              .insert(LEDGER, key("id", "integer", "102"), key("v", "integer", "3"))
              .source());
      assertThat(pg.one("SELECT string_agg(id || '=' || v, ',' ORDER BY id) FROM app.ledger"))
          .isEqualTo("1=2,102=3");
      a.apply(tx(0x20).truncate(false, false, LEDGER).source());
      assertThat(pg.count("app.ledger")).isZero();
    }
  }
}
