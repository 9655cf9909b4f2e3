package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.WAIT;
import static io.trellara.sink.connect.Pipelines.awaitEqual;
import static io.trellara.sink.connect.Pipelines.deploySink;
import static io.trellara.sink.connect.Pipelines.deploySource;
import static io.trellara.sink.connect.Pipelines.rows;
import static io.trellara.sink.connect.Pipelines.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 30, requirement 2: while transfers stream, a pre-filled table the source did not capture so
 * far is added to {@code table.include.list} by a PUT of the connector's config (Connect restarts
 * the task with it). The start adds it to the publication with a {@code trellara.signal} message in
 * the same transaction; the table is snapshotted online, ordered with the stream, while the others
 * stream on: the target gets it whole (equal to the source), a reader never saw it partly filled
 * (nor a change of it ahead of its load, although a writer changes it all along, in transactions
 * that also move money between accounts), the existing tables were not loaded again (two snapshots
 * applied in all: the initial one and the added table's), nothing lost or duplicated in them. Then
 * removing the table from the list stops its capture: no error, nothing more of it published, the
 * target keeps its rows.
 */
@EitherPlatform
class AddedTableIT {
  static final int FRESH_ROWS = 30_000;
  static final long FRESH_TOTAL = FRESH_ROWS * 100L;
  static final String TABLES = "public.account,public.ledger,public.moved";

  @Test
  void aTableAddedToTheIncludeListIsLoadedAtomicallyAndARemovedOneStopsCleanly() throws Exception {
    try (TestScope scope = STACK.newScope("added_table")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      fill(src, dst);
      String strict = scope.createTopic("strict", 1);
      String source = deploySource(scope, src, strict, TABLES, Map.of());
      String sink = deploySink(scope, "sink", dst, strict, Map.of());
      awaitEqual(src, dst, "ledger", "id");
      awaitEqual(src, dst, "account", "id");
      assertThat(dst.queryLong("SELECT count(*) FROM fresh")).as("not captured yet").isZero();
      BankReader reader = new BankReader(dst, CHECK, 0);
      SnapshotIT.Transfers transfers = new SnapshotIT.Transfers(src, 17);
      FreshWriter fresh = new FreshWriter(src, 23);
      transfers.start();
      fresh.start();
      Thread.sleep(500);

      Map<String, String> config = new HashMap<>(STACK.rest().connectorConfig(source));
      config.put("table.include.list", TABLES + ",public.fresh");
      long putAt = System.nanoTime();
      STACK.rest().putConnectorConfig(source, config);
      await().atMost(WAIT).until(() -> published(src, scope, "fresh"));
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT count(*) FROM fresh") >= FRESH_ROWS);
      long loadedMs = (System.nanoTime() - putAt) / 1_000_000;
      Thread.sleep(500); // the stream goes on, for fresh too
      int freshCommitted = fresh.stop();
      int committed = transfers.stop();
      transfers.batch(20);
      awaitEqual(src, dst, "fresh", "id");
      awaitEqual(src, dst, "account", "id");
      awaitEqual(src, dst, "ledger", "id");
      awaitEqual(src, dst, "moved", "id");
      List<Long> broken = reader.stop();

      assertThat(committed).as("transfers committed around the change").isGreaterThan(10);
      assertThat(freshCommitted).as("changes of fresh around its addition").isGreaterThan(10);
      assertThat(reader.reads()).isGreaterThan(10);
      assertThat(broken)
          .as("reads of %d that saw fresh partly filled or a transfer in part", reader.reads())
          .isEmpty();
      assertThat(snapshotsApplied(dst))
          .as("the initial snapshot and the added table's: the others were not loaded again")
          .isEqualTo(2);
      assertThat(STACK.rest().status(source).isFailed()).isFalse();
      System.out.printf(
          "AddedTableIT: fresh (%d rows) whole on the target %d ms after the PUT; %d reads, %d"
              + " transfers, %d changes of fresh meanwhile%n",
          FRESH_ROWS, loadedMs, reader.reads(), committed, freshCommitted);

      // removed: its capture stops, the target keeps its rows, the others go on; a table an
      // administrator added to the publication by hand stays in it
      schema(src, dst, "CREATE TABLE beat (id int PRIMARY KEY)");
      src.execute("ALTER PUBLICATION \"" + scope.publicationName() + "\" ADD TABLE beat");
      List<List<Object>> kept = rows(dst, "fresh", "id");
      config.put("table.include.list", TABLES);
      STACK.rest().putConnectorConfig(source, config);
      await().atMost(WAIT).until(() -> !published(src, scope, "fresh"));
      src.execute(
          "INSERT INTO fresh (v) SELECT 7 FROM generate_series(1, 100)",
          "UPDATE fresh SET v = v + 1 WHERE id <= 10");
      transfers.batch(20);
      awaitEqual(src, dst, "account", "id");
      awaitEqual(src, dst, "ledger", "id");
      assertThat(rows(dst, "fresh", "id")).as("the target keeps its rows").isEqualTo(kept);
      assertThat(published(src, scope, "beat")).as("added by hand: not the connector's").isTrue();
      assertThat(snapshotsApplied(dst)).isEqualTo(2);
      assertThat(STACK.rest().status(source).isFailed()).isFalse();
      assertThat(STACK.rest().status(sink).isFailed()).isFalse();
      assertThat(
              src.queryLong(
                  "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE '%resnap'"))
          .as("the online snapshot's temporary slot is gone")
          .isZero();
    }
  }

  /**
   * A user-managed publication (autocreate disabled): an administrator adds the table with the
   * {@code trellara.signal} message in the same transaction, while the connector is stopped: the
   * state a task killed between the start's ALTER and the snapshot's publication leaves too (the
   * publication lists the table already, the message is ahead of the task's position). The task
   * started again reads the message and loads the table, all at once.
   */
  @Test
  void anAdministratorsAlterWithTheSignalMessageLoadsTheTableAfterTheTaskStartsAgain()
      throws Exception {
    try (TestScope scope = STACK.newScope("added_admin")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      fill(src, dst);
      String pub = "\"" + scope.publicationName() + "\"";
      src.execute("CREATE PUBLICATION " + pub + " FOR TABLE account, ledger, moved");
      String strict = scope.createTopic("strict", 1);
      String source =
          deploySource(
              scope, src, strict, TABLES, Map.of("publication.autocreate.mode", "disabled"));
      deploySink(scope, "sink", dst, strict, Map.of());
      awaitEqual(src, dst, "ledger", "id");
      BankReader reader = new BankReader(dst, CHECK, 0);
      SnapshotIT.Transfers transfers = new SnapshotIT.Transfers(src, 29);
      FreshWriter fresh = new FreshWriter(src, 31);
      transfers.start();
      fresh.start();

      STACK.rest().stop(source);
      STACK.rest().awaitState(source, "STOPPED");
      Thread.sleep(300);
      try (Connection c = src.connect()) {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
          st.execute("ALTER PUBLICATION " + pub + " ADD TABLE public.fresh");
          st.execute(
              "SELECT pg_logical_emit_message(true, 'trellara.signal',"
                  + " E'added-tables admin-1\\npublic.fresh')");
        }
        c.commit();
      }
      Thread.sleep(300);
      STACK.rest().resume(source);
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT count(*) FROM fresh") >= FRESH_ROWS);
      int freshCommitted = fresh.stop();
      transfers.stop();
      transfers.batch(20);
      awaitEqual(src, dst, "fresh", "id");
      awaitEqual(src, dst, "account", "id");
      awaitEqual(src, dst, "ledger", "id");
      awaitEqual(src, dst, "moved", "id");
      List<Long> broken = reader.stop();
      assertThat(freshCommitted).isGreaterThan(10);
      assertThat(broken)
          .as("reads of %d that saw fresh partly filled or a transfer in part", reader.reads())
          .isEmpty();
      assertThat(snapshotsApplied(dst)).isEqualTo(2);
      assertThat(STACK.rest().status(source).isFailed()).isFalse();
    }
  }

  /**
   * 0 when a read of the target sees the bank whole, and fresh empty or whole (never partly loaded,
   * never a change of it ahead of its load).
   */
  static final String CHECK =
      "SELECT CASE WHEN (SELECT max(total) FROM moved) = (SELECT sum(amount) FROM ledger)"
          + " AND (SELECT sum(balance) FROM account) = "
          + SnapshotIT.TOTAL
          + " AND ((SELECT count(*) FROM fresh) = 0 OR ((SELECT count(*) FROM fresh) >= "
          + FRESH_ROWS
          + " AND (SELECT sum(v) FROM fresh) = "
          + FRESH_TOTAL
          + ")) THEN 0 ELSE 1 END";

  /** The bank's tables on both sides, and fresh pre-filled on the source only. */
  private static void fill(PostgresDatabase src, PostgresDatabase dst) {
    schema(src, dst, SnapshotIT.SCHEMA);
    schema(src, dst, "CREATE TABLE fresh (id bigserial PRIMARY KEY, v bigint NOT NULL)");
    src.execute(
        "INSERT INTO account SELECT g, 1000 FROM generate_series(1, " + SnapshotIT.ACCOUNTS + ") g",
        "INSERT INTO moved VALUES (1, 0)",
        "INSERT INTO ledger (from_id, to_id, amount, note) SELECT g % 100 + 1, g % 100 + 1,"
            + " 1 + g % 50, 'n' || g FROM generate_series(1, 5000) g",
        "UPDATE moved SET total = (SELECT sum(amount) FROM ledger)",
        "INSERT INTO fresh (v) SELECT 100 FROM generate_series(1, " + FRESH_ROWS + ")");
  }

  private static boolean published(PostgresDatabase src, TestScope scope, String table) {
    return src.queryLong(
            "SELECT count(*) FROM pg_publication_tables WHERE pubname = '"
                + scope.publicationName()
                + "' AND tablename = '"
                + table
                + "'")
        > 0;
  }

  private static long snapshotsApplied(PostgresDatabase dst) {
    return dst.queryLong(
        "SELECT count(*) FROM trellara_sink.applied_transactions"
            + " WHERE transaction_id = 'snapshot'");
  }

  /**
   * Transactions that move money between two accounts and value between two rows of fresh, and
   * insert a row of value 0 into it: the sums stay, the count grows.
   */
  static final class FreshWriter {
    private final PostgresDatabase db;
    private final Random random;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicInteger committed = new AtomicInteger();
    private Thread thread;

    FreshWriter(PostgresDatabase db, long seed) {
      this.db = db;
      this.random = new Random(seed);
    }

    void start() {
      running.set(true);
      thread = new Thread(this::run, "fresh-writer");
      thread.start();
    }

    int stop() throws InterruptedException {
      running.set(false);
      thread.join();
      return committed.get();
    }

    private void run() {
      try (Connection c = db.connect()) {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
          while (running.get()) {
            int a = 1 + random.nextInt(SnapshotIT.ACCOUNTS);
            int b = 1 + random.nextInt(SnapshotIT.ACCOUNTS);
            int x = 1 + random.nextInt(FRESH_ROWS);
            int y = 1 + random.nextInt(FRESH_ROWS);
            st.execute("UPDATE account SET balance = balance - 1 WHERE id = " + a);
            st.execute("UPDATE account SET balance = balance + 1 WHERE id = " + b);
            st.execute("UPDATE fresh SET v = v - 5 WHERE id = " + x);
            st.execute("UPDATE fresh SET v = v + 5 WHERE id = " + y);
            st.execute("INSERT INTO fresh (v) VALUES (0)");
            c.commit();
            committed.incrementAndGet();
            Thread.sleep(2);
          }
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
