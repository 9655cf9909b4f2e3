package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.WAIT;
import static io.trellara.sink.connect.Pipelines.awaitEqual;
import static io.trellara.sink.connect.Pipelines.deployPair;
import static io.trellara.sink.connect.Pipelines.deploySink;
import static io.trellara.sink.connect.Pipelines.deploySource;
import static io.trellara.sink.connect.Pipelines.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The initial snapshot at the connectors' defaults (snapshot.mode=initial): a source that already
 * holds data, written to while it is read, reaches the target in one target transaction, consistent
 * with the stream that follows it. Readers of the target see the tables empty or whole and mutually
 * consistent, never half loaded.
 */
@EitherPlatform
class SnapshotIT {
  static final int ACCOUNTS = 5_000;
  static final int LEDGER_ROWS = 40_000;

  /**
   * Every account starts with 1000; transfers move money and log it, so these hold in every
   * consistent state.
   */
  static final long TOTAL = ACCOUNTS * 1000L;

  /**
   * 0 when the target is consistent: all three tables empty, or the accounts all there with the
   * bank's total, and the ledger adding up to the running total of what was moved. A half-loaded
   * snapshot breaks it.
   */
  static final String INVARIANT =
      "SELECT CASE WHEN (SELECT count(*) FROM account) + (SELECT count(*) FROM ledger)"
          + " + (SELECT count(*) FROM moved) = 0 THEN 0"
          + " ELSE abs((SELECT coalesce(sum(balance), 0) FROM account) - "
          + TOTAL
          + ")"
          + " + abs((SELECT coalesce(sum(amount), 0) FROM ledger) - (SELECT coalesce(max(total), -1) FROM moved))"
          + " + abs((SELECT count(*) FROM account) - "
          + ACCOUNTS
          + ") END";

  static final String[] SCHEMA = {
    "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL)",
    "CREATE TABLE ledger (id bigserial PRIMARY KEY, from_id int, to_id int, amount bigint NOT NULL, note text)",
    "CREATE TABLE moved (id int PRIMARY KEY, total bigint NOT NULL)",
  };

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"strict", "partitioned"})
  void aSnapshotUnderConcurrentTransfersIsAtomicOnTheTargetAndSeamlessWithTheStream(String mode)
      throws Exception {
    try (TestScope scope = STACK.newScope("snap_" + mode)) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, SCHEMA);
      src.execute(
          "INSERT INTO account SELECT g, 1000 FROM generate_series(1, " + ACCOUNTS + ") g",
          "INSERT INTO moved VALUES (1, 0)");
      // history the snapshot has to carry: transfers of accounts to themselves, which keep every
      // balance
      src.execute(
          "INSERT INTO ledger (from_id, to_id, amount, note) SELECT g % "
              + ACCOUNTS
              + " + 1, g % "
              + ACCOUNTS
              + " + 1, 1 + g % 50, repeat('n', g % 200) FROM generate_series(1, "
              + LEDGER_ROWS
              + ") g",
          "UPDATE moved SET total = (SELECT sum(amount) FROM ledger)");
      Transfers transfers = new Transfers(src, 7);
      BankReader reader = new BankReader(dst, INVARIANT, 0);
      transfers.start(); // and writes while it is read
      deployPair(scope, mode, src, dst, "public.account,public.ledger,public.moved", Map.of());
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT count(*) FROM account") == ACCOUNTS);
      int duringSnapshot = transfers.stop();
      transfers.batch(50); // and after it: the stream continues from the consistent point
      awaitEqual(src, dst, "account", "id");
      awaitEqual(src, dst, "ledger", "id");
      awaitEqual(src, dst, "moved", "id");
      List<Long> broken = reader.stop();
      assertThat(duringSnapshot).as("transfers committed while the snapshot ran").isPositive();
      assertThat(reader.reads()).isGreaterThan(10);
      assertThat(broken)
          .as("reads of %d that saw a partial snapshot or transaction", reader.reads())
          .isEmpty();
      assertThat(
              dst.queryLong(
                  "SELECT count(*) FROM trellara_sink.applied_transactions"
                      + " WHERE transaction_id = 'snapshot'"))
          .isEqualTo(1);
    }
  }

  @Test
  void toastValuesAndEveryKeyTypeArriveAsTheSourceHoldsThem() throws Exception {
    try (TestScope scope = STACK.newScope("snap_types")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(
          src,
          dst,
          "CREATE TABLE doc (id int PRIMARY KEY, body text, data bytea, tags text[], j jsonb)",
          "CREATE TABLE keyed (u uuid, t text, n numeric(20,5), ts timestamptz, b bytea, i bigint, d date,"
              + " f boolean, v varchar(10), payload text, PRIMARY KEY (u, t, n, ts, b, i, d, f, v))",
          "CREATE TABLE odd (\"Weird Name\" int PRIMARY KEY, \"tab\tand\\nnewline\" text, e text)");
      src.execute(
          "INSERT INTO doc SELECT g, (SELECT string_agg(md5(g::text || x::text), '') FROM"
              + " generate_series(1, 400) x), decode(repeat(md5(g::text), 200), 'hex'),"
              + " ARRAY['a\"b', 'c,d', NULL, E'e\\\\f'], jsonb_build_object('k', g, 's', E'tab\\there')"
              + " FROM generate_series(1, 50) g",
          "INSERT INTO keyed SELECT md5(g::text)::uuid, E'k\\t' || g, g / 7.0, timestamptz '2026-01-01 00:00:00+00'"
              + " + g * interval '1 minute 0.000123 second', decode(lpad(to_hex(g), 8, '0'), 'hex'), g - 1000,"
              + " date '2000-02-29' + g, g % 2 = 0, 'v' || g, CASE WHEN g % 3 = 0 THEN NULL ELSE"
              + " E'line\\nbreak\\\\back' END FROM generate_series(1, 300) g",
          "INSERT INTO odd VALUES (1, E'a\\tb\\nc\\\\d\\re', ''), (2, NULL, NULL), (3, '\\N', 'x')");
      String strict = scope.createTopic("strict", 1);
      // three tables read by three connections inside one exported snapshot
      deploySource(
          scope,
          src,
          strict,
          "public.doc,public.keyed,public.odd",
          Map.of("snapshot.max.threads", "3"));
      deploySink(scope, "sink", dst, strict, Map.of());
      awaitEqual(src, dst, "doc", "id");
      awaitEqual(src, dst, "keyed", "u, t, n, ts, b, i, d, f, v");
      awaitEqual(src, dst, "odd", "1");
      assertThat(dst.queryLong("SELECT count(*) FROM doc WHERE length(body) = 12800"))
          .isEqualTo(50);
    }
  }

  @Test
  void aSnapshotIntoATableThatHoldsRowsIsRefusedByDefaultAndAppliesNothing() throws Exception {
    try (TestScope scope = STACK.newScope("snap_refuse")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(
          src,
          dst,
          "CREATE TABLE a (id int PRIMARY KEY, v text)",
          "CREATE TABLE b (id int PRIMARY KEY, v text)");
      src.execute(
          "INSERT INTO a SELECT g, 'a' FROM generate_series(1, 100) g",
          "INSERT INTO b SELECT g, 'b' FROM generate_series(1, 100) g");
      dst.execute("INSERT INTO b VALUES (1000, 'loaded by hand')");
      String strict = scope.createTopic("strict", 1);
      deploySource(scope, src, strict, "public.a,public.b", Map.of());
      String sink =
          scope.createConnector(
              "sink", io.trellara.testplatform.ConnectorConfigs.sink(dst, strict, Map.of()));
      await().atMost(WAIT).until(() -> STACK.rest().status(sink).isFailed());
      assertThat(STACK.rest().status(sink).firstTrace())
          .contains("SNAPSHOT_TARGET_NOT_EMPTY", "\"public\".\"b\"", "snapshot.target.nonempty");
      assertThat(dst.queryLong("SELECT count(*) FROM a"))
          .as("nothing of the snapshot is applied")
          .isZero();
      assertThat(dst.queryLong("SELECT count(*) FROM b")).isEqualTo(1);
    }
  }

  @Test
  void truncateReplacesTheRowsInTheSnapshotsOwnTransaction() throws Exception {
    try (TestScope scope = STACK.newScope("snap_truncate")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE a (id int PRIMARY KEY, v text)");
      src.execute("INSERT INTO a SELECT g, 'source' FROM generate_series(1, 1000) g");
      dst.execute("INSERT INTO a SELECT g, 'stale' FROM generate_series(500, 2000) g");
      String strict = scope.createTopic("strict", 1);
      deploySource(scope, src, strict, "public.a", Map.of());
      deploySink(scope, "sink", dst, strict, Map.of("snapshot.target.nonempty", "truncate"));
      awaitEqual(src, dst, "a", "id");
    }
  }

  @Test
  void upsertWritesTheSnapshotOverTheRowsItFinds() throws Exception {
    try (TestScope scope = STACK.newScope("snap_upsert")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE a (id int PRIMARY KEY, v text)");
      src.execute("INSERT INTO a SELECT g, 'source' FROM generate_series(1, 1000) g");
      dst.execute("INSERT INTO a SELECT g, 'target' FROM generate_series(900, 1100) g");
      String strict = scope.createTopic("strict", 1);
      deploySource(scope, src, strict, "public.a", Map.of());
      deploySink(scope, "sink", dst, strict, Map.of("snapshot.target.nonempty", "upsert"));
      await()
          .atMost(WAIT)
          .until(() -> dst.queryLong("SELECT count(*) FROM a WHERE v = 'source'") == 1000);
      assertThat(dst.queryLong("SELECT count(*) FROM a"))
          .as("the target's own rows 1001-1100 stay")
          .isEqualTo(1100);
    }
  }

  @Test
  void aLaterSnapshotOfTheSameSourceReplacesWhatTheLostSlotCouldNotStream() throws Exception {
    try (TestScope scope = STACK.newScope("snap_again")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE a (id int PRIMARY KEY, v text)");
      src.execute("INSERT INTO a SELECT g, 'first' FROM generate_series(1, 1000) g");
      String strict = scope.createTopic("strict", 1);
      String source =
          deploySource(scope, src, strict, "public.a", Map.of("snapshot.mode", "when_needed"));
      deploySink(scope, "sink", dst, strict, Map.of());
      awaitEqual(src, dst, "a", "id");
      src.execute("UPDATE a SET v = 'streamed' WHERE id <= 10");
      awaitEqual(src, dst, "a", "id");
      STACK.rest().stop(source);
      STACK.rest().awaitState(source, "STOPPED");
      await().atMost(WAIT).until(() -> src.activeReplicationSlots(scope.slotName()) == 0);
      src.dropReplicationSlots(
          scope.slotName()); // dropped by an administrator: these changes are never streamed
      assertThat(
              src.queryLong(
                  "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"
                      + scope.slotName()
                      + "'"))
          .isZero();
      src.execute(
          "DELETE FROM a WHERE id > 500", "INSERT INTO a VALUES (5000, 'while the slot was gone')");
      STACK.rest().resume(source);
      awaitEqual(
          src, dst, "a", "id"); // the second snapshot replaced the table in one target transaction
      assertThat(
              dst.queryLong(
                  "SELECT count(*) FROM trellara_sink.applied_transactions"
                      + " WHERE transaction_id = 'snapshot'"))
          .isEqualTo(2);
    }
  }

  /**
   * The reported hang: a source that snapshots again (its slot was lost) meets a target its first
   * snapshot loaded, with tables whose rows are wide enough that one table's COPY is still open on
   * the sink's session when the next table is looked at. It must replace every table in one target
   * transaction, without ever waiting on itself, without locking a reader out for over a second,
   * and without a REPEATABLE READ reader ever seeing a table empty.
   */
  @Test
  void aRepeatedSnapshotOfWideTablesReplacesThemWithoutHangingOrLockingReadersOut()
      throws Exception {
    try (TestScope scope = STACK.newScope("snap_wide")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      List<String> tables = List.of("wa", "wb", "wc");
      for (String t : tables) {
        schema(src, dst, "CREATE TABLE " + t + " (id int PRIMARY KEY, v text)");
        src.execute(
            "INSERT INTO "
                + t
                + " SELECT g, repeat(md5(g::text), 100) FROM generate_series(1, 3000) g");
      }
      String strict = scope.createTopic("strict", 1);
      String source =
          deploySource(
              scope,
              src,
              strict,
              "public.wa,public.wb,public.wc",
              Map.of("snapshot.mode", "when_needed"));
      deploySink(scope, "sink", dst, strict, Map.of());
      for (String t : tables) {
        awaitEqual(src, dst, t, "id");
      }
      STACK.rest().stop(source);
      STACK.rest().awaitState(source, "STOPPED");
      await().atMost(WAIT).until(() -> src.activeReplicationSlots(scope.slotName()) == 0);
      src.dropReplicationSlots(scope.slotName());
      for (String t : tables) {
        src.execute("UPDATE " + t + " SET v = 'again ' || v WHERE id % 2 = 0");
      }
      try (TableReaders readers = new TableReaders(dst, tables)) {
        STACK.rest().resume(source);
        for (String t : tables) {
          awaitEqual(src, dst, t, "id");
        }
        readers.close();
        assertThat(readers.problems()).isEmpty();
        assertThat(readers.reads()).isGreaterThan(10);
        assertThat(readers.lockedOut()).as("reads that waited over 1 s for a lock").isZero();
        assertThat(readers.seenEmpty()).as("REPEATABLE READ reads that saw a table empty").isZero();
      }
      assertThat(
              dst.queryLong(
                  "SELECT count(*) FROM trellara_sink.applied_transactions"
                      + " WHERE transaction_id = 'snapshot'"))
          .isEqualTo(2);
    }
  }

  @Test
  void aSnapshotIntoAnEmptyDatabaseCreatesTheTablesFromTheWireWhenAllowed() throws Exception {
    try (TestScope scope = STACK.newScope("snap_create")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      src.execute(
          "CREATE TABLE \"Order Lines\" (\"Order\" bigint, line smallint, amount numeric(12,2) NOT NULL,"
              + " tags text[], at timestamptz, doc jsonb, PRIMARY KEY (\"Order\", line))",
          "INSERT INTO \"Order Lines\" SELECT g / 3, g % 3, g / 7.0, ARRAY['a', 'b' || g],"
              + " timestamptz '2026-01-01 00:00:00+00' + g * interval '1 minute',"
              + " jsonb_build_object('g', g) FROM generate_series(1, 3000) g");
      String strict = scope.createTopic("strict", 1);
      deploySource(scope, src, strict, "public.Order Lines", Map.of());
      deploySink(scope, "sink", dst, strict, Map.of("target.tables.create", "true"));
      String table = "\"Order Lines\"";
      awaitEqual(src, dst, table, "t.\"Order\", t.line");
      src.execute(
          "UPDATE \"Order Lines\" SET amount = 0 WHERE line = 0",
          "DELETE FROM \"Order Lines\" WHERE \"Order\" = 7");
      awaitEqual(
          src,
          dst,
          table,
          "t.\"Order\", t.line"); // and the stream continues into the created table
      // names and types as on the source (NOT NULL of non-key columns is not on the wire:
      // pgoutput's
      // Relation message does not carry it)
      String columns =
          "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY"
              + " attnum) FROM pg_attribute WHERE attrelid = 'public.\"Order Lines\"'::regclass AND attnum > 0"
              + " AND NOT attisdropped";
      assertThat(dst.queryString(columns)).isEqualTo(src.queryString(columns));
      String key =
          "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid ="
              + " 'public.\"Order Lines\"'::regclass AND contype = 'p'";
      assertThat(dst.queryString(key)).isEqualTo(src.queryString(key));
    }
  }

  /** Transfers between accounts, each logged in the ledger and added to the running total. */
  static final class Transfers {
    private final PostgresDatabase db;
    private final Random random;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicInteger committed = new AtomicInteger();
    private Thread thread;

    Transfers(PostgresDatabase db, long seed) {
      this.db = db;
      this.random = new Random(seed);
    }

    /** {@code transfers} transfers, each its own transaction. */
    void batch(int transfers) {
      AtomicInteger left = new AtomicInteger(transfers);
      run(() -> left.getAndDecrement() > 0);
    }

    /** Transfers on a thread of their own until {@link #stop}. */
    void start() {
      running.set(true);
      committed.set(0);
      thread = new Thread(() -> run(running::get), "transfers");
      thread.start();
    }

    /** Stops the writer; returns the transfers it committed. */
    int stop() throws InterruptedException {
      running.set(false);
      thread.join();
      return committed.get();
    }

    private void run(java.util.function.BooleanSupplier more) {
      try (Connection c = db.connect()) {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
          while (more.getAsBoolean()) {
            int from = 1 + random.nextInt(ACCOUNTS);
            int to = 1 + random.nextInt(ACCOUNTS);
            int amount = 1 + random.nextInt(50);
            st.execute("UPDATE account SET balance = balance - " + amount + " WHERE id = " + from);
            st.execute("UPDATE account SET balance = balance + " + amount + " WHERE id = " + to);
            st.execute(
                "INSERT INTO ledger (from_id, to_id, amount, note) VALUES ("
                    + from
                    + ", "
                    + to
                    + ", "
                    + amount
                    + ", repeat('n', "
                    + random.nextInt(200)
                    + "))");
            st.execute("UPDATE moved SET total = total + " + amount + " WHERE id = 1");
            c.commit();
            committed.incrementAndGet();
          }
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
