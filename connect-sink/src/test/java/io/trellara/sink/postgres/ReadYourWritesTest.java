package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The view {@code trellara.applied} and the function {@code trellara.wait_for_lsn}, over
 * transactions applied by the real applier (docs/read-your-writes.md).
 */
class ReadYourWritesTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId ACCOUNTS = rel("app", "accounts");

  private TransactionApplier applier;

  @BeforeEach
  void reset() {
    pg.exec("DROP SCHEMA IF EXISTS trellara CASCADE");
    pg.reset();
    pg.exec("CREATE TABLE app.accounts (id int PRIMARY KEY, balance numeric NOT NULL)");
    applier =
        new TransactionApplier(
            pg.connections(), RelationMapper.identity(), ApplyOptions.builder("s1").build());
  }

  @AfterEach
  void close() {
    applier.close();
  }

  private long offset;

  private void apply(String source, String dataset, long lsn, int id) {
    applier.apply(
        tx(source, lsn, Long.toString(lsn))
            .dataset(dataset)
            .insert(
                ACCOUNTS,
                key("id", "integer", Integer.toString(id)),
                val("balance", "numeric", "1"))
            .at("strict", 0, ++offset));
  }

  private void apply(long lsn, int id) {
    apply("pg-test", "flow", lsn, id);
  }

  private static String waitFor(String args) {
    return pg.one("SELECT trellara.wait_for_lsn(" + args + ")");
  }

  @Test
  void theViewShowsTheNewestAppliedTransactionOfEachFlow() {
    apply(0x100, 1);
    apply(0x200, 2);
    apply("pg-test", "other", 0x150, 3);
    apply("pg-b", "flow", 0x9000, 4);

    assertThat(
            pg.rows(
                "SELECT sink_name, source_id, dataset_id, commit_lsn::text, transaction_id,"
                    + " source_commit_time::text, applied_at IS NOT NULL"
                    + " FROM trellara.applied ORDER BY source_id, dataset_id"))
        .containsExactly(
            List.of("s1", "pg-b", "flow", "0/9000", "36864", "2025-11-24 16:00:00+00", "t"),
            List.of("s1", "pg-test", "flow", "0/200", "512", "2025-11-24 16:00:00+00", "t"),
            List.of("s1", "pg-test", "other", "0/150", "336", "2025-11-24 16:00:00+00", "t"));
    assertThat(pg.one("SELECT pg_typeof(commit_lsn)::text FROM trellara.applied LIMIT 1"))
        .isEqualTo("pg_lsn");
  }

  @Test
  void theViewReadsTheIndexNotEveryDedupRecord() {
    for (int i = 1; i <= 300; i++) {
      apply(0x100L * i, i);
    }
    pg.exec("ANALYZE trellara_sink.applied_transactions");
    String plan =
        String.join(
            "\n",
            pg.rows("EXPLAIN SELECT * FROM trellara.applied").stream().map(r -> r.get(0)).toList());
    assertThat(plan).contains("applied_transactions_flow_order").doesNotContain("Seq Scan");
    assertThat(pg.one("SELECT commit_lsn::text FROM trellara.applied")).isEqualTo("0/12C00");
  }

  @Test
  void waitReturnsTrueForAnAppliedLsnAndForAnLsnBetweenTransactions() {
    apply(0x100, 1);
    apply(0x300, 2);

    assertThat(waitFor("'0/100', '1 second'")).isEqualTo("t");
    assertThat(waitFor("'0/200', '1 second'")).as("between two applied").isEqualTo("t");
    assertThat(waitFor("'0/300', '1 second'")).isEqualTo("t");
    assertThat(waitFor("'0/300', '1 second', 'pg-test', 'flow'")).isEqualTo("t");
  }

  @Test
  void waitReturnsFalseAtTheTimeoutAndLeavesNothingBehind() throws Exception {
    apply(0x300, 1);
    try (Connection c = pg.connections().open();
        Statement s = c.createStatement()) {
      long start = System.nanoTime();
      assertThat(one(s, "SELECT trellara.wait_for_lsn('0/301', '300 milliseconds')"))
          .isEqualTo("f");
      long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(waitedMs).as("it waited for the timeout").isGreaterThanOrEqualTo(300);
      assertThat(one(s, "SELECT trellara.wait_for_lsn('0/400', '0 seconds')")).isEqualTo("f");
      assertThat(
              one(
                  s,
                  "SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid()"
                      + " AND (locktype = 'advisory' OR relation = 'trellara_sink.applied_transactions'::regclass)"))
          .as("no lock outlives the call")
          .isEqualTo("0");
      assertThat(one(s, "SELECT count(*) FROM pg_class WHERE relpersistence = 't'"))
          .as("no temporary table")
          .isEqualTo("0");
    }
    assertThat(
            pg.one(
                "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%wait_for_lsn%'"
                    + " AND pid <> pg_backend_pid()"))
        .as("no backend still waiting")
        .isEqualTo("0");
  }

  @Test
  void waitReturnsTrueOnceTheApplyCommitsDuringTheWait() throws Exception {
    apply(0x100, 1);
    CompletableFuture<String> waiting =
        CompletableFuture.supplyAsync(() -> waitFor("'0/500', '20 seconds'"));
    pg.await(
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT trellara.wait_for_lsn%'",
        "1");
    assertThat(waiting).isNotDone();
    apply(0x400, 2);
    assertThat(waiting).as("0/400 is below 0/500: still waiting").isNotDone();
    apply(0x600, 3);
    assertThat(waiting.get(20, TimeUnit.SECONDS)).isEqualTo("t");
  }

  @Test
  void everyFlowOfTheSourceMustReachTheLsnUnlessOneIsNamed() {
    apply(0x500, 1);
    apply("pg-test", "other", 0x100, 2);

    assertThat(waitFor("'0/400', '100 milliseconds'")).isEqualTo("f");
    assertThat(waitFor("'0/400', '100 milliseconds', 'pg-test'")).isEqualTo("f");
    assertThat(waitFor("'0/400', '1 second', 'pg-test', 'flow'")).isEqualTo("t");
    assertThat(waitFor("'0/400', '100 milliseconds', 'pg-test', 'other'")).isEqualTo("f");
    assertThat(waitFor("'0/100', '100 milliseconds', 'nobody'"))
        .as("a source with nothing applied")
        .isEqualTo("f");
  }

  @Test
  void withSeveralSourcesTheShortFormRefusesAndNamesThem() {
    apply(0x500, 1);
    apply("pg-b", "flow", 0x100, 2);

    assertThatThrownBy(() -> waitFor("'0/400', '1 second'"))
        .hasMessageContaining("several sources (pg-b, pg-test)");
    assertThat(waitFor("'0/400', '1 second', 'pg-test'")).isEqualTo("t");
  }

  @Test
  void aRepeatableReadSnapshotIsRefusedRatherThanWaitedOut() throws Exception {
    apply(0x100, 1);
    try (Connection c = pg.connections().open();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      assertThatThrownBy(() -> one(s, "SELECT trellara.wait_for_lsn('0/100', '1 second')"))
          .hasMessageContaining("needs READ COMMITTED");
      c.rollback();
    }
  }

  @Test
  void aRoleWithoutTheGrantCannotCallIt() throws Exception {
    apply(0x100, 1);
    pg.exec("DROP ROLE IF EXISTS ryw_reader", "CREATE ROLE ryw_reader");
    try (Connection c = pg.connections().open();
        Statement s = c.createStatement()) {
      s.execute("GRANT USAGE ON SCHEMA trellara TO ryw_reader");
      s.execute("SET ROLE ryw_reader");
      assertThatThrownBy(() -> one(s, "SELECT trellara.wait_for_lsn('0/100', '1 second')"))
          .hasMessageContaining("permission denied for function wait_for_lsn");
      assertThatThrownBy(() -> one(s, "SELECT * FROM trellara.applied"))
          .hasMessageContaining("permission denied for view applied");
      s.execute("RESET ROLE");
      s.execute(
          "GRANT EXECUTE ON FUNCTION trellara.wait_for_lsn(pg_lsn, interval) TO ryw_reader;"
              + " GRANT EXECUTE ON FUNCTION trellara.wait_for_lsn(pg_lsn, interval, text, text)"
              + " TO ryw_reader");
      s.execute("SET ROLE ryw_reader");
      assertThat(one(s, "SELECT trellara.wait_for_lsn('0/100', '1 second')"))
          .as("EXECUTE is enough: no grant on the sink's tables")
          .isEqualTo("t");
      s.execute("RESET ROLE");
      s.execute("DROP OWNED BY ryw_reader; DROP ROLE ryw_reader");
    }
  }

  @Test
  void aTargetThatHasTheSinksTablesAlreadyGetsTheViewOverItsRecords() throws Exception {
    apply(0x100, 1);
    apply(0x200, 2);
    pg.exec("DROP SCHEMA trellara CASCADE"); // a target from before read-your-writes
    new CheckpointStore(pg.connections()).createSchema();
    new CheckpointStore(pg.connections()).createSchema(); // and again: idempotent
    assertThat(pg.one("SELECT commit_lsn::text FROM trellara.applied")).isEqualTo("0/200");
    assertThat(waitFor("'0/200', '1 second'")).isEqualTo("t");
  }

  @Test
  void aRoleThatMayNotCreateTheSchemaStartsWithoutIt() throws Exception {
    // a least-privilege sink role: an administrator gave it trellara_sink, and no CREATE on the
    // database (PUBLIC has none by default)
    pg.exec(
        "DROP SCHEMA trellara CASCADE",
        "DROP SCHEMA trellara_sink CASCADE",
        "DROP ROLE IF EXISTS ryw_sink",
        "CREATE ROLE ryw_sink",
        "CREATE SCHEMA trellara_sink AUTHORIZATION ryw_sink");
    try (Connection c = pg.connections().open();
        Statement s = c.createStatement()) {
      s.execute("SET ROLE ryw_sink");
      CheckpointStore.createSchema(c);
      assertThat(one(s, "SELECT count(*) FROM trellara_sink.applied_transactions")).isEqualTo("0");
      s.execute("RESET ROLE");
      assertThat(one(s, "SELECT pg_catalog.to_regnamespace('trellara') IS NULL")).isEqualTo("t");

      s.execute("CREATE SCHEMA trellara AUTHORIZATION ryw_sink"); // what the warning asks for
      s.execute("SET ROLE ryw_sink");
      CheckpointStore.createSchema(c);
      s.execute("RESET ROLE");
      assertThat(
              one(
                  s,
                  "SELECT pg_get_userbyid(proowner) FROM pg_proc WHERE proname = 'wait_for_lsn' LIMIT 1"))
          .isEqualTo("ryw_sink");
    } finally {
      pg.exec(
          "DROP SCHEMA IF EXISTS trellara CASCADE",
          "DROP SCHEMA IF EXISTS trellara_sink CASCADE",
          "DROP ROLE ryw_sink");
    }
  }

  @Test
  void aRecordWritingIntoTheSchemaTrellaraIsRefusedByName() {
    // a topic writer plants a table beside the view and the function services call, on a sink
    // that creates missing tables
    try (TransactionApplier creating =
        new TransactionApplier(
            pg.connections(),
            RelationMapper.identity(),
            ApplyOptions.builder("s1").createMissingTables(true).build())) {
      for (String table : List.of("planted", "applied")) {
        assertThatThrownBy(
                () ->
                    creating.apply(
                        tx(0x100)
                            .insert(rel("trellara", table), key("id", "integer", "1"))
                            .at("strict", 0, 1)))
            .isInstanceOfSatisfying(
                ApplyException.class,
                e -> assertThat(e.reason()).isEqualTo(ApplyException.Reason.RELATION_REFUSED))
            .hasMessageContaining("pg-test:0/100:256");
      }
    }
    assertThat(pg.one("SELECT to_regclass('trellara.planted') IS NULL")).isEqualTo("t");
    assertThat(pg.one("SELECT relkind FROM pg_class WHERE oid = 'trellara.applied'::regclass"))
        .isEqualTo("v");
    assertThat(pg.count("trellara_sink.applied_transactions")).isZero();
    assertThat(waitFor("'0/100', '0 seconds'")).isEqualTo("f");
  }

  private static String one(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
