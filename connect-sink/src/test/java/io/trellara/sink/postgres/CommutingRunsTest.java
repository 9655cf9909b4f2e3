package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.row;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.postgres.apply.ChangeWriter;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Transactions that alternate between tables (the transfer workload: two updates of one table, two
 * inserts into another) are written as one batch per table and shape across a group, when both
 * tables are self-contained; a table whose writes can see or touch another table's (a trigger, a
 * foreign key, inheritance) keeps the order of every change around it.
 */
class CommutingRunsTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId ACCOUNT = rel("app", "account");
  static final RelationId TRANSFER = rel("app", "transfer");

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec(
        "CREATE TABLE app.account (id int PRIMARY KEY, balance int NOT NULL)",
        "INSERT INTO app.account SELECT g, 1000 FROM generate_series(1, 10) g",
        "CREATE TABLE app.transfer (id int PRIMARY KEY, src int, dst int, seen bigint)");
  }

  /** Writes the transactions as one group, in one target transaction; returns the writer. */
  private static ChangeWriter writeGroup(List<TransactionEnvelope> group) throws Exception {
    try (TargetSession s = TargetSession.open(pg.connections())) {
      ChangeWriter w = new ChangeWriter(s, RelationMapper.identity(), ApplyOptions.defaults("s"));
      for (TransactionEnvelope e : group) {
        w.write(e);
      }
      w.flush();
      s.commit();
      return w;
    }
  }

  /**
   * Transfer i moves 5 from account a to b: two updates (the new balances), then the transfer's two
   * rows.
   */
  private static List<TransactionEnvelope> transfers(int n) {
    int[] balance = new int[11];
    java.util.Arrays.fill(balance, 1000);
    List<TransactionEnvelope> txs = new java.util.ArrayList<>();
    for (int i = 1; i <= n; i++) {
      int a = 1 + i % 10;
      int b = 1 + (i * 3 + 1) % 10;
      balance[a] -= 5;
      balance[b] += 5;
      txs.add(
          tx(0x100L * i)
              .update(
                  ACCOUNT,
                  row(key("id", "integer", Integer.toString(a))),
                  key("id", "integer", Integer.toString(a)),
                  val("balance", "integer", Integer.toString(balance[a])))
              .update(
                  ACCOUNT,
                  row(key("id", "integer", Integer.toString(b))),
                  key("id", "integer", Integer.toString(b)),
                  val("balance", "integer", Integer.toString(balance[b])))
              .insert(
                  TRANSFER,
                  key("id", "integer", Integer.toString(2 * i)),
                  val("src", "integer", Integer.toString(a)),
                  val("dst", "integer", Integer.toString(b)))
              .insert(
                  TRANSFER,
                  key("id", "integer", Integer.toString(2 * i + 1)),
                  val("src", "integer", Integer.toString(b)),
                  val("dst", "integer", Integer.toString(a)))
              .build());
    }
    return txs;
  }

  private static String balances() {
    return pg.one("SELECT string_agg(id || '=' || balance, ',' ORDER BY id) FROM app.account");
  }

  @Test
  void alternatingTablesAreWrittenAsOneBatchPerTableAcrossTheGroup() throws Exception {
    List<TransactionEnvelope> group = transfers(50);
    ChangeWriter w = writeGroup(group);
    assertThat(w.longestRun())
        .as("the account updates of all 50 transactions in one batch")
        .isEqualTo(100);
    assertThat(w.updated()).isEqualTo(100);
    assertThat(w.inserted()).isEqualTo(100);
    String batched = balances();

    reset(); // the same transactions, each in a group of its own: nothing to set aside across them
    for (TransactionEnvelope e : group) {
      assertThat(writeGroup(List.of(e)).longestRun()).isEqualTo(2);
    }
    assertThat(balances()).isEqualTo(batched);
    assertThat(pg.count("app.transfer")).isEqualTo(100);
  }

  /**
   * A trigger on transfer records what it sees of the account table. Were the account updates of
   * the whole group written ahead of the transfers, every transfer would see the group's final
   * balances; in order, each sees the balances as of its own transaction, as when each transaction
   * is applied alone.
   */
  @Test
  void aTableWithATriggerSeesEveryEarlierChangeOfTheGroupAndNoLaterOne() throws Exception {
    pg.exec(
        "CREATE FUNCTION app.seen() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            + " NEW.seen := (SELECT sum(balance * id) FROM app.account); RETURN NEW; END $$",
        "CREATE TRIGGER seen BEFORE INSERT ON app.transfer FOR EACH ROW EXECUTE FUNCTION app.seen()");
    List<TransactionEnvelope> group = transfers(20);
    writeGroup(group);
    String batched =
        pg.one("SELECT string_agg(id || ':' || seen, ',' ORDER BY id) FROM app.transfer");

    reset();
    pg.exec(
        "CREATE FUNCTION app.seen() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            + " NEW.seen := (SELECT sum(balance * id) FROM app.account); RETURN NEW; END $$",
        "CREATE TRIGGER seen BEFORE INSERT ON app.transfer FOR EACH ROW EXECUTE FUNCTION app.seen()");
    for (TransactionEnvelope e : group) {
      writeGroup(List.of(e));
    }
    assertThat(batched)
        .isEqualTo(
            pg.one("SELECT string_agg(id || ':' || seen, ',' ORDER BY id)" + " FROM app.transfer"));
  }

  /**
   * A foreign key is a trigger on both tables: neither is set aside, and every child row finds its
   * parent.
   */
  @Test
  void tablesLinkedByAForeignKeyKeepTheirOrder() throws Exception {
    pg.exec("ALTER TABLE app.transfer ADD FOREIGN KEY (src) REFERENCES app.account (id)");
    ChangeWriter w = writeGroup(transfers(30));
    assertThat(w.longestRun()).isEqualTo(2);
    assertThat(pg.count("app.transfer")).isEqualTo(60);
  }
}
