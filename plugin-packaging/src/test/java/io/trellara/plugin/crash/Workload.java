package io.trellara.plugin.crash;

import io.trellara.testplatform.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * What the source holds and does during a crash sequence.
 *
 * <ul>
 *   <li>A bank: accounts 1..50 opened with 1000 each, account 0 holding one fee per transfer. A
 *       writer commits transfer {@code n} every ~25 ms: 1–3 moves between accounts 1..48, a fee of
 *       1 into account 0 and row {@code n} of {@code transfers}, so {@code sum(balance)} never
 *       changes and {@code balance(0) = max(transfers.id)} in every committed state. Every 7th
 *       transfer also bumps the {@code version} of a row of {@code f1} whose TOASTed payload it
 *       leaves unchanged.
 *   <li>Filler tables pre-filled before the connectors start (composite text keys with quotes,
 *       backslashes and non-ASCII, TOASTed payloads stored out of line; uuid keys with jsonb and
 *       numeric; wide bigint-keyed rows), never changed in size: the snapshot's bulk.
 *   <li>Large transactions: {@code rows} inserts into {@code bulk} with their {@code bulk_batches}
 *       row and a move between accounts 49 and 50, in one transaction.
 *   <li>DDL: {@code ALTER TABLE ... ADD COLUMN} on a captured table with an UPDATE that sets it, in
 *       one transaction.
 * </ul>
 */
final class Workload implements AutoCloseable {
  static final List<String> DDL_TABLES = List.of("transfers", "account", "bulk", "f1");
  static final int ACCOUNTS = 50;
  static final int WRITER_ACCOUNTS = 48;
  static final long OPENING = 1000;
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String[] REGIONS = {"north", "süd", "o'east", "we\\st", "mid west"};

  /** A captured table: its name, its key (the order of its rows), its fixed row count or -1. */
  record Table(String name, String key, long fixedRows) {}

  private final PostgresDatabase source;
  private final SequencePlan plan;
  private final List<Table> tables = new ArrayList<>();
  private final List<String> addedColumns = new CopyOnWriteArrayList<>();
  private final AtomicLong lastTransfer = new AtomicLong();
  private final AtomicLong lastBatch = new AtomicLong();
  private final AtomicBoolean writing = new AtomicBoolean();
  private final AtomicReference<Throwable> writerFailure = new AtomicReference<>();
  private Thread writer;
  private int ddlCount;

  Workload(PostgresDatabase source, SequencePlan plan) {
    this.source = source;
    this.plan = plan;
    tables.add(new Table("account", "id", ACCOUNTS + 1));
    tables.add(new Table("transfers", "id", -1));
    tables.add(new Table("bulk_batches", "batch", -1));
    tables.add(new Table("bulk", "batch, n", -1));
    for (int i = 1; i <= plan.size().fillerTables; i++) {
      String key = (i - 1) % 3 == 0 ? "region, code, seq" : "id";
      tables.add(new Table("f" + i, key, plan.size().fillerRows));
    }
  }

  List<Table> tables() {
    return tables;
  }

  /** sum(balance) in every committed state. */
  long total() {
    return ACCOUNTS * OPENING + plan.size().prefilledTransfers;
  }

  /** The tables, the same on both sides. */
  List<String> schema() {
    List<String> ddl = new ArrayList<>();
    ddl.add("CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL)");
    ddl.add(
        "CREATE TABLE transfers (id bigint PRIMARY KEY, from_id int NOT NULL, to_id int NOT NULL,"
            + " amount int NOT NULL, note text)");
    ddl.add("CREATE TABLE bulk_batches (batch int PRIMARY KEY, rows int NOT NULL)");
    ddl.add("CREATE TABLE bulk (batch int, n int, payload text NOT NULL, PRIMARY KEY (batch, n))");
    for (int i = 1; i <= plan.size().fillerTables; i++) {
      String t = "f" + i;
      switch ((i - 1) % 3) {
        case 0 -> {
          ddl.add(
              "CREATE TABLE "
                  + t
                  + " (region text, code text, seq int, version int NOT NULL,"
                  + " payload text NOT NULL, PRIMARY KEY (region, code, seq))");
          ddl.add("ALTER TABLE " + t + " ALTER COLUMN payload SET STORAGE EXTERNAL");
        }
        case 1 ->
            ddl.add(
                "CREATE TABLE "
                    + t
                    + " (id uuid PRIMARY KEY, doc jsonb NOT NULL, amount numeric(18,4) NOT NULL,"
                    + " at timestamptz NOT NULL)");
        default ->
            ddl.add(
                "CREATE TABLE "
                    + t
                    + " (id bigint PRIMARY KEY, c1 text, c2 text, c3 text, c4 text, n1 bigint,"
                    + " n2 double precision, at timestamptz)");
      }
    }
    return ddl;
  }

  /** Fills the source before the connectors start (deterministic for the seed). */
  void prefill() {
    int rows = plan.size().fillerRows;
    List<String> sql = new ArrayList<>();
    sql.add("SELECT setseed(" + ((plan.seed() % 1000) / 1000.0) + ")");
    sql.add(
        "INSERT INTO account SELECT g, "
            + OPENING
            + " FROM generate_series(1, "
            + ACCOUNTS
            + ") g");
    sql.add("INSERT INTO account VALUES (0, " + plan.size().prefilledTransfers + ")");
    sql.add(
        "INSERT INTO transfers SELECT g, 1 + g % 48, 1 + (g + 1) % 48, 1 + g % 20, 'prefilled'"
            + " FROM generate_series(1, "
            + plan.size().prefilledTransfers
            + ") g");
    for (int i = 1; i <= plan.size().fillerTables; i++) {
      String t = "f" + i;
      String series = " FROM generate_series(1, " + rows + ") g";
      sql.add(
          switch ((i - 1) % 3) {
            case 0 ->
                "INSERT INTO "
                    + t
                    + " SELECT (ARRAY['north', 'süd', 'o''east', 'we\\st', 'mid west'])[1 + g % 5],"
                    + " 'c' || (g / 7), g, 0, CASE WHEN g % 3 = 0"
                    + " THEN repeat(md5(g::text || random()::text), 80) ELSE md5(g::text) END"
                    + series;
            case 1 ->
                "INSERT INTO "
                    + t
                    + " SELECT md5('u"
                    + i
                    + ":' || g)::uuid, jsonb_build_object('g', g, 'tags',"
                    + " jsonb_build_array('a', random()::text)), round((random() * 100000)::numeric,"
                    + " 4), timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute'"
                    + series;
            default ->
                "INSERT INTO "
                    + t
                    + " SELECT g, md5(random()::text) || repeat('x', 100), md5(random()::text),"
                    + " repeat(md5(g::text), 4), NULL, g * 7, random(),"
                    + " timestamptz '2024-06-01 12:00:00+00' + g * interval '1 second'"
                    + series;
          });
    }
    source.executeInTransaction(sql.toArray(String[]::new));
    source.execute("VACUUM ANALYZE");
    lastTransfer.set(plan.size().prefilledTransfers);
  }

  /** Starts the transfer writer. */
  void startWriter() {
    writing.set(true);
    writer = new Thread(this::write, "crash-transfer-writer");
    writer.setDaemon(true);
    writer.start();
  }

  /** Stops the writer; fails if it gave up on the source. */
  void stopWriter() throws InterruptedException {
    writing.set(false);
    if (writer != null) {
      writer.join(30_000);
    }
    if (writerFailure.get() != null) {
      throw new IllegalStateException("the transfer writer failed", writerFailure.get());
    }
  }

  /** The newest transfer committed on the source (transfers 1..n are all committed). */
  long lastTransfer() {
    return lastTransfer.get();
  }

  /** The newest large transaction committed (batches 1..n). */
  long lastBatch() {
    return lastBatch.get();
  }

  /** Columns added by DDL steps, as {@code table.column}. */
  List<String> addedColumns() {
    return List.copyOf(addedColumns);
  }

  /** One large transaction, committed at once. */
  void largeTransaction(int rows) throws SQLException {
    try (LargeTransaction tx = openLargeTransaction(rows, 1)) {
      tx.commit();
    }
  }

  /**
   * A large transaction written in {@code parts} statements and left open: the caller commits it
   * (streamed to the connector while open when {@code logical_decoding_work_mem} is small).
   */
  LargeTransaction openLargeTransaction(int rows, int parts) throws SQLException {
    long batch = lastBatch.get() + 1;
    return new LargeTransaction(batch, rows, parts);
  }

  /** A large transaction in progress on a connection of its own. */
  final class LargeTransaction implements AutoCloseable {
    private final Connection c;
    private final long batch;
    private boolean committed;

    LargeTransaction(long batch, int rows, int parts) throws SQLException {
      this.batch = batch;
      this.c = source.connect();
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        int per = Math.max(1, rows / parts);
        for (int from = 1; from <= rows; from += per) {
          int to = Math.min(rows, from + per - 1);
          s.execute(
              "INSERT INTO bulk SELECT "
                  + batch
                  + ", g, md5(g::text || ':"
                  + batch
                  + "') || repeat('b', 60) FROM generate_series("
                  + from
                  + ", "
                  + to
                  + ") g");
        }
        s.execute("INSERT INTO bulk_batches VALUES (" + batch + ", " + rows + ")");
        boolean up = batch % 2 == 0;
        s.execute("UPDATE account SET balance = balance - 1 WHERE id = " + (up ? 49 : 50));
        s.execute("UPDATE account SET balance = balance + 1 WHERE id = " + (up ? 50 : 49));
      }
    }

    long batch() {
      return batch;
    }

    void commit() throws SQLException {
      c.commit();
      committed = true;
      lastBatch.set(batch);
    }

    @Override
    public void close() throws SQLException {
      if (!committed) {
        c.rollback();
      }
      c.close();
    }
  }

  /** ALTER TABLE t ADD COLUMN and an UPDATE setting it, in one source transaction. */
  String addColumn(String table) {
    String column = "x" + (++ddlCount);
    String where =
        switch (table) {
          case "account" -> "id > " + WRITER_ACCOUNTS;
          case "transfers" -> "id <= 10";
          case "bulk" -> "batch = (SELECT min(batch) FROM bulk_batches) AND n <= 10";
          default -> "seq <= 10";
        };
    source.executeInTransaction(
        "ALTER TABLE " + table + " ADD COLUMN " + column + " text",
        "UPDATE " + table + " SET " + column + " = 'set by ddl " + column + "' WHERE " + where);
    addedColumns.add(table + "." + column);
    return table + "." + column;
  }

  /**
   * Transfers until stopped. The source may go away meanwhile (a fault restarts it): the writer
   * connects again, and a transfer whose COMMIT got no answer counts as committed exactly when the
   * server says so ({@code txid_status}).
   */
  private void write() {
    Random random = new Random(plan.seed() * 31 + 7);
    long n = lastTransfer.get() + 1;
    long deadline = 0;
    while (writing.get()) {
      long inFlight = -1;
      try (Connection c = source.connect();
          Statement s = c.createStatement()) {
        deadline = 0;
        c.setAutoCommit(false);
        for (; writing.get(); n++) {
          transfer(s, n, random);
          inFlight = txid(s);
          c.commit();
          lastTransfer.set(n);
          inFlight = -1;
          LockSupport.parkNanos(25_000_000L); // paces the writer; waits for nothing
        }
      } catch (SQLException | RuntimeException e) {
        if (!writing.get()) {
          return;
        }
        deadline = deadline == 0 ? System.nanoTime() + WAIT.toNanos() : deadline;
        if (System.nanoTime() > deadline) {
          writerFailure.set(e);
          return;
        }
        if (inFlight >= 0 && committedOnSource(inFlight, deadline)) {
          lastTransfer.set(n);
          n++;
        }
        LockSupport.parkNanos(200_000_000L);
      }
    }
  }

  private void transfer(Statement s, long n, Random random) throws SQLException {
    int moves = 1 + random.nextInt(3);
    int from = 1;
    int to = 2;
    int amount = 1;
    for (int m = 0; m < moves; m++) {
      from = 1 + random.nextInt(WRITER_ACCOUNTS);
      to = 1 + (from + random.nextInt(WRITER_ACCOUNTS - 1)) % WRITER_ACCOUNTS;
      amount = 1 + random.nextInt(20);
      s.executeUpdate("UPDATE account SET balance = balance - " + amount + " WHERE id = " + from);
      s.executeUpdate("UPDATE account SET balance = balance + " + amount + " WHERE id = " + to);
    }
    s.executeUpdate("UPDATE account SET balance = balance - 1 WHERE id = " + from);
    s.executeUpdate("UPDATE account SET balance = balance + 1 WHERE id = 0");
    s.executeUpdate(
        "INSERT INTO transfers (id, from_id, to_id, amount, note) VALUES ("
            + n
            + ", "
            + from
            + ", "
            + to
            + ", "
            + amount
            + ", 'transfer')");
    if (n % 7 == 0 && plan.size().fillerTables > 0) {
      int g = 1 + random.nextInt(plan.size().fillerRows);
      s.executeUpdate(
          "UPDATE f1 SET version = version + 1 WHERE region = '"
              + REGIONS[g % 5].replace("'", "''")
              + "' AND code = 'c"
              + (g / 7)
              + "' AND seq = "
              + g);
    }
  }

  private static long txid(Statement s) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT txid_current()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private boolean committedOnSource(long txid, long deadline) {
    while (System.nanoTime() < deadline) {
      try (Connection c = source.connect();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT txid_status(" + txid + ")")) {
        rs.next();
        return "committed".equals(rs.getString(1));
      } catch (SQLException | RuntimeException e) {
        LockSupport.parkNanos(200_000_000L);
      }
    }
    throw new IllegalStateException(
        "the source did not come back within " + WAIT.toSeconds() + " s");
  }

  @Override
  public void close() throws InterruptedException {
    writing.set(false);
    if (writer != null) {
      writer.join(30_000);
    }
  }
}
