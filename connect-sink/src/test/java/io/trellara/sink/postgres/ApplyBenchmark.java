package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.val;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.session.ConnectionFactory;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Not a test: a harness printing apply throughput against embedded PostgreSQL 17 (fsync and
 * synchronous_commit on, like a real target). Run with the test classpath: {@code java -cp
 * target/test-classes:target/classes:$(cat cp.txt) io.trellara.sink.postgres.ApplyBenchmark}.
 */
public final class ApplyBenchmark {
  static final RelationId ORDERS = rel("app", "orders");
  static final RelationId ACCOUNTS = rel("app", "accounts");

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
    int small = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    try (EmbeddedPostgres pg =
        EmbeddedPostgres.builder()
            .setServerConfig("timezone", "Asia/Kathmandu")
            .setServerConfig("fsync", "on")
            .setServerConfig("synchronous_commit", "on")
            .setServerConfig("shared_buffers", "256MB")
            .setServerConfig("max_wal_size", "4GB")
            .start()) {
      ConnectionFactory f = () -> pg.getPostgresDatabase().getConnection();
      new CheckpointStore(f).createSchema();
      exec(
          f,
          "CREATE SCHEMA app",
          "CREATE TABLE app.orders (id bigint PRIMARY KEY, customer text,"
              + " amount numeric(12,2), placed_at timestamptz, note text)",
          "CREATE TABLE app.accounts (id int PRIMARY KEY, balance numeric NOT NULL)",
          "CREATE TABLE app.transfers (id bigint PRIMARY KEY, src int, dst int, amount numeric)");
      long lsn = 0x1000;
      for (int run = 1; run <= 3; run++) {
        lsn = largeInsert(f, rows, lsn, "copy", 64);
      }
      lsn = largeInsert(f, rows, lsn, "multi-row INSERT", Integer.MAX_VALUE);
      lsn = largeUpdateAndDelete(f, rows / 3, lsn);
      for (boolean syncOff : new boolean[] {false, true}) {
        for (int group : new int[] {1, 100}) {
          lsn = smallTransactions(f, small, lsn, group, syncOff);
        }
      }
    }
  }

  private static long largeInsert(
      ConnectionFactory f, int rows, long lsn, String label, int copyThreshold) throws Exception {
    exec(f, "TRUNCATE app.orders", "CHECKPOINT");
    Tx t = Tx.tx(++lsn);
    for (int i = 1; i <= rows; i++) {
      t.insert(
          ORDERS,
          key("id", "bigint", Integer.toString(i)),
          val("customer", "text", "customer-" + (i % 97)),
          val("amount", "numeric(12,2)", (i % 10_000) + ".25"),
          val("placed_at", "timestamp with time zone", "2026-11-29 10:15:30.123456+00"),
          val("note", "text", "note " + i));
    }
    SourceTransaction tx = t.at("strict", 0, lsn);
    try (TransactionApplier a =
        new TransactionApplier(
            f,
            RelationMapper.identity(),
            ApplyOptions.builder("bench").copyThreshold(copyThreshold).build())) {
      long start = System.nanoTime();
      a.apply(tx);
      double s = (System.nanoTime() - start) / 1e9;
      System.out.printf(
          "large insert (%s): %,d rows in one transaction applied in %.2f s = %,.0f rows/s%n",
          label, rows, s, rows / s);
    }
    return lsn;
  }

  private static long largeUpdateAndDelete(ConnectionFactory f, int rows, long lsn)
      throws Exception {
    Tx u = Tx.tx(++lsn);
    for (int i = 1; i <= rows; i++) {
      u.update(
          ORDERS,
          null,
          key("id", "bigint", Integer.toString(i)),
          Tx.toast("customer", "text"),
          val("amount", "numeric(12,2)", "1.00"),
          Tx.toast("placed_at", "timestamp with time zone"),
          Tx.toast("note", "text"));
    }
    Tx d = Tx.tx(++lsn);
    for (int i = 1; i <= rows; i++) {
      d.delete(ORDERS, key("id", "bigint", Integer.toString(i)));
    }
    try (TransactionApplier a =
        new TransactionApplier(f, RelationMapper.identity(), ApplyOptions.defaults("bench"))) {
      for (Object[] run : new Object[][] {{"update", u}, {"delete", d}}) {
        SourceTransaction tx = ((Tx) run[1]).source();
        long start = System.nanoTime();
        a.apply(tx);
        double s = (System.nanoTime() - start) / 1e9;
        System.out.printf(
            "large %s: %,d rows in one transaction applied in %.2f s = %,.0f rows/s%n",
            run[0], rows, s, rows / s);
      }
    }
    return lsn;
  }

  /** Bank-transfer shaped: 2 updates + 2 inserts per transaction. */
  private static long smallTransactions(
      ConnectionFactory f, int count, long lsn, int group, boolean syncOff) throws Exception {
    exec(
        f,
        "TRUNCATE app.accounts, app.transfers",
        "INSERT INTO app.accounts SELECT g, 1000 FROM generate_series(1, 1000) g",
        "CHECKPOINT");
    List<SourceTransaction> txs = new ArrayList<>(count);
    for (int i = 1; i <= count; i++) {
      int src = 1 + i % 1000;
      int dst = 1 + (i * 7) % 1000;
      txs.add(
          Tx.tx(++lsn)
              .update(
                  ACCOUNTS,
                  null,
                  key("id", "integer", Integer.toString(src)),
                  val("balance", "numeric", "999"))
              .update(
                  ACCOUNTS,
                  null,
                  key("id", "integer", Integer.toString(dst)),
                  val("balance", "numeric", "1001"))
              .insert(
                  rel("app", "transfers"),
                  key("id", "bigint", Long.toString(2L * i)),
                  val("src", "integer", Integer.toString(src)),
                  val("dst", "integer", Integer.toString(dst)),
                  val("amount", "numeric", "1"))
              .insert(
                  rel("app", "transfers"),
                  key("id", "bigint", Long.toString(2L * i + 1)),
                  val("src", "integer", Integer.toString(dst)),
                  val("dst", "integer", Integer.toString(src)),
                  val("amount", "numeric", "0"))
              .at("strict", 0, i));
    }
    try (TransactionApplier a =
        new TransactionApplier(
            f,
            RelationMapper.identity(),
            ApplyOptions.builder("bench")
                .groupMaxTransactions(group)
                .synchronousCommitOff(syncOff)
                .build())) {
      long start = System.nanoTime();
      // the task hands over what one poll returned: 500 transactions per call
      for (int from = 0; from < txs.size(); from += 500) {
        a.apply(txs.subList(from, Math.min(txs.size(), from + 500)));
      }
      double s = (System.nanoTime() - start) / 1e9;
      System.out.printf(
          "%,d small transactions (4 rows each), group=%d, synchronous_commit=%s: %.2f s ="
              + " %,.0f tx/s, %,.0f rows/s, %d target commits%n",
          count,
          group,
          syncOff ? "off" : "on",
          s,
          count / s,
          count * 4 / s,
          a.metrics().targetCommits());
    }
    return lsn;
  }

  private static void exec(ConnectionFactory f, String... sql) throws Exception {
    try (Connection c = f.open();
        Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    }
  }
}
