package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The bank-transfer workload the fault ITs run through a pipeline: a writer commits transfer {@code
 * n} (money moved between two accounts, a fee of 1 paid into account 0, ledger row {@code n}) every
 * ~20 ms, every 25th a larger one of 30 moves, and records each committed xid; a reader polls the
 * target in one statement (one snapshot) for the invariant — sum(balance) is the opening total and
 * account 0 holds one fee per ledger row — which only a partly applied transaction breaks. {@link
 * #verify} then checks that the target equals the source and that every committed transaction was
 * applied exactly once.
 */
final class TransferWorkload implements AutoCloseable {
  static final int ACCOUNTS = 20;
  static final long OPENING = 1000;
  static final long TOTAL = ACCOUNTS * OPENING;
  static final String TABLES = "public.account,public.ledger";
  private static final Duration WAIT = Duration.ofSeconds(120);

  private final PostgresDatabase source;
  private final PostgresDatabase target;

  /** n -> xid of every committed transfer. */
  private final ConcurrentSkipListMap<Integer, String> committed = new ConcurrentSkipListMap<>();

  private final AtomicBoolean writing = new AtomicBoolean(true);
  private final AtomicReference<Throwable> writerFailure = new AtomicReference<>();
  private final Reader reader;
  private final Thread readerThread;
  private Thread writer;
  private String seed;

  TransferWorkload(PostgresDatabase source, PostgresDatabase target) {
    this.source = source;
    this.target = target;
    this.reader = new Reader(target);
    this.readerThread = new Thread(reader, "transfer-reader");
    this.readerThread.setDaemon(true);
  }

  /** The two tables, on the source and on the target. */
  void createTables() {
    for (PostgresDatabase db : List.of(source, target)) {
      db.execute(
          "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL)",
          "CREATE TABLE ledger (n int PRIMARY KEY, from_id int NOT NULL, to_id int NOT NULL,"
              + " amount int NOT NULL)");
    }
  }

  /**
   * Opens the accounts in one transaction, waits until the target has them, then starts reader and
   * writer.
   */
  void start() throws SQLException {
    seed =
        SourceTransactions.commit(
            source,
            "INSERT INTO account SELECT g, "
                + OPENING
                + " FROM generate_series(1, "
                + ACCOUNTS
                + ") g",
            "INSERT INTO account VALUES (0, 0)");
    await("seed applied")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> target.queryLong("SELECT count(*) FROM account") == ACCOUNTS + 1);
    readerThread.start();
    writer = new Thread(this::write, "transfer-writer");
    writer.setDaemon(true);
    writer.start();
  }

  /** Transfers committed on the source so far. */
  int committed() {
    return committed.size();
  }

  /** The newest transfer committed on the source, 0 before the first. */
  int lastCommitted() {
    return committed.isEmpty() ? 0 : committed.lastKey();
  }

  /** The newest transfer on the target. */
  long newestApplied() {
    return target.queryLong("SELECT coalesce(max(n), 0) FROM ledger");
  }

  /** True when transfers 1..n are all on the target. */
  boolean appliedUpTo(int n) {
    return target.queryLong("SELECT count(*) FROM ledger WHERE n <= " + n) == n;
  }

  void awaitApplied(int transfers, String what) {
    await(what)
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> target.queryLong("SELECT count(*) FROM ledger") >= transfers);
  }

  /**
   * Stops the writer, waits until the target equals the source, stops the reader, and checks: every
   * committed transaction applied exactly once and nothing else, the ledgers equal, money
   * conserved, no partial read. Returns the number of transfers.
   */
  int verify() throws InterruptedException {
    writing.set(false);
    writer.join(10_000);
    assertThat(writerFailure.get()).as("writer failure").isNull();
    int transfers = committed.size();
    String fingerprint =
        "SELECT (SELECT count(*) || ':' || md5(string_agg(a::text, ',' ORDER BY id))"
            + " FROM account a) || '/' || (SELECT count(*) || ':' || md5(string_agg(l::text, ','"
            + " ORDER BY n)) FROM ledger l)";
    String expected = source.queryString(fingerprint);
    await("target equals source")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(250))
        .until(() -> expected.equals(target.queryString(fingerprint)));
    reader.stop();
    readerThread.join(10_000);
    List<String> appliedIds =
        target.query("SELECT transaction_id FROM trellara_sink.applied_transactions").stream()
            .map(r -> (String) r.get(0))
            .toList();
    Set<String> xids = new HashSet<>(committed.values());
    xids.add(seed);
    assertThat(xids).as("distinct source transactions").hasSize(transfers + 1);
    assertThat(appliedIds)
        .as("applied transactions")
        .hasSize(xids.size())
        .containsExactlyInAnyOrderElementsOf(xids);
    assertThat(target.query("SELECT n FROM ledger ORDER BY n"))
        .as("ledger rows")
        .isEqualTo(source.query("SELECT n FROM ledger ORDER BY n"));
    assertThat(target.queryLong("SELECT sum(balance) FROM account")).isEqualTo(TOTAL);
    assertThat(reader.violation.get()).as("the reader saw a partial transaction").isNull();
    assertThat(reader.reads.get()).as("reads of the target").isGreaterThan(100);
    return transfers;
  }

  long reads() {
    return reader.reads.get();
  }

  @Override
  public void close() throws InterruptedException {
    writing.set(false);
    if (writer != null) {
      writer.join(10_000);
    }
    reader.stop();
    if (readerThread.isAlive()) {
      readerThread.join(10_000);
    }
  }

  /**
   * Transfers 1..N until stopped. The source may go away meanwhile (a fault test restarts it): the
   * writer connects again, and a transfer whose COMMIT got no answer counts as committed exactly
   * when the server says so ({@code txid_status}).
   */
  private void write() {
    Random random = new Random(14);
    int n = 1;
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
          committed.put(n, Long.toString(inFlight % 4294967296L));
          inFlight = -1;
          LockSupport.parkNanos(20_000_000L); // paces the writer; waits for nothing
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
          committed.put(n, Long.toString(inFlight % 4294967296L));
          n++;
        }
        LockSupport.parkNanos(200_000_000L);
      }
    }
  }

  /**
   * Transfer {@code n}: money between two accounts (30 moves every 25th), a fee into account 0,
   * ledger row n.
   */
  private static void transfer(Statement s, int n, Random random) throws SQLException {
    int moves = n % 25 == 0 ? 30 : 1;
    int from = 0;
    int to = 0;
    int amount = 0;
    for (int m = 0; m < moves; m++) {
      from = 1 + random.nextInt(ACCOUNTS);
      to = 1 + (from + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
      amount = 1 + random.nextInt(20);
      s.executeUpdate("UPDATE account SET balance = balance - " + amount + " WHERE id = " + from);
      s.executeUpdate("UPDATE account SET balance = balance + " + amount + " WHERE id = " + to);
    }
    s.executeUpdate("UPDATE account SET balance = balance - 1 WHERE id = " + from);
    s.executeUpdate("UPDATE account SET balance = balance + 1 WHERE id = 0");
    s.executeUpdate(
        "INSERT INTO ledger VALUES (" + n + ", " + from + ", " + to + ", " + amount + ")");
  }

  private static long txid(Statement s) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT txid_current()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Whether the transaction whose COMMIT got no answer committed, asked again until the server
   * answers.
   */
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

  /** Polls the target for the invariant, one statement per read, every 10 ms. */
  private static final class Reader implements Runnable {
    private final PostgresDatabase target;
    private final AtomicBoolean running = new AtomicBoolean(true);
    final AtomicReference<String> violation = new AtomicReference<>();
    final AtomicLong reads = new AtomicLong();

    Reader(PostgresDatabase target) {
      this.target = target;
    }

    void stop() {
      running.set(false);
    }

    @Override
    public void run() {
      String sql =
          "SELECT (SELECT coalesce(sum(balance), 0) FROM account),"
              + " (SELECT balance FROM account WHERE id = 0), (SELECT count(*) FROM ledger)";
      while (running.get() && violation.get() == null) {
        try (Connection c = target.connect();
            Statement s = c.createStatement()) {
          while (running.get() && violation.get() == null) {
            try (ResultSet rs = s.executeQuery(sql)) {
              rs.next();
              long sum = rs.getLong(1);
              long fees = rs.getLong(2);
              long ledger = rs.getLong(3);
              reads.incrementAndGet();
              if (sum != TOTAL || fees != ledger) {
                violation.set(
                    "sum(balance) "
                        + sum
                        + " (expected "
                        + TOTAL
                        + "), account 0 "
                        + fees
                        + ", ledger rows "
                        + ledger);
              }
            }
            LockSupport.parkNanos(10_000_000L);
          }
        } catch (SQLException | RuntimeException e) {
          LockSupport.parkNanos(100_000_000L); // the target restarts in some tests: read again
        }
      }
    }
  }
}
