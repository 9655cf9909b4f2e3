package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.appliedTransactions;
import static io.trellara.sink.connect.Pipelines.awaitEqual;
import static io.trellara.sink.connect.Pipelines.deployPair;
import static io.trellara.sink.connect.Pipelines.deploySink;
import static io.trellara.sink.connect.Pipelines.deploySource;
import static io.trellara.sink.connect.Pipelines.schema;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A source database other applications use too, the connectors at their defaults: while transfers
 * replicate, other sessions create and drop temporary tables, create and alter tables in a schema
 * nobody captures, create indexes and grant privileges, and the captured table itself gains an
 * index and a column. Nothing stops, no reader of the target sees a partial transaction, and the
 * target ends equal to the source.
 */
@EitherPlatform
class ProductionDatabaseIT {
  static final int ACCOUNTS = 100;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"strict", "partitioned"})
  void otherApplicationsDdlNeverStopsReplication(String mode) throws Exception {
    try (TestScope scope = STACK.newScope("prod_" + mode)) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL)");
      src.execute("INSERT INTO account SELECT g, 1000 FROM generate_series(1, " + ACCOUNTS + ") g");
      // the initial snapshot loads the accounts while the workload below runs: none or all of them
      BankReader reader =
          new BankReader(
              dst,
              "SELECT CASE WHEN count(*) = 0 THEN "
                  + ACCOUNTS * 1000L
                  + " ELSE sum(balance) END FROM account",
              ACCOUNTS * 1000L);
      deployPair(scope, mode, src, dst, "public.account", Map.of());

      Random random = new Random(11);
      String[][] otherApplications = {
        {"CREATE TEMP TABLE t_tmp (x int)", "INSERT INTO t_tmp VALUES (1)", "DROP TABLE t_tmp"},
        {"CREATE SCHEMA IF NOT EXISTS other"},
        {"CREATE TABLE other.x (id int PRIMARY KEY, v text)"},
        {"ALTER TABLE other.x ADD COLUMN y int"},
        {"CREATE INDEX ON other.x (y)"},
        {"GRANT SELECT ON other.x TO PUBLIC"},
        {"CREATE INDEX account_balance ON account (balance)"},
        {"ALTER TABLE account ADD COLUMN note text"},
        {"CREATE TEMP TABLE t_tmp2 AS SELECT 1 AS x", "DROP TABLE t_tmp2"},
        {"DROP TABLE other.x"},
      };
      for (int t = 0; t < 200; t++) {
        if (t % 20 == 5) {
          src.executeInTransaction(otherApplications[t / 20]);
        }
        int moves = t % 50 == 0 ? 100 : 2;
        String[] statements = new String[moves * 2];
        for (int m = 0; m < moves; m++) {
          int from = 1 + random.nextInt(ACCOUNTS);
          int to = 1 + random.nextInt(ACCOUNTS);
          int amount = 1 + random.nextInt(50);
          String note = t > 150 ? ", note = 'tx " + t + "'" : "";
          statements[2 * m] =
              "UPDATE account SET balance = balance - " + amount + note + " WHERE id = " + from;
          statements[2 * m + 1] =
              "UPDATE account SET balance = balance + " + amount + " WHERE id = " + to;
        }
        src.executeInTransaction(statements);
      }
      awaitEqual(src, dst, "account", "id");
      List<Long> wrongTotals = reader.stop();
      assertThat(reader.reads()).isGreaterThan(10);
      assertThat(wrongTotals)
          .as("reads of %d that saw a partial transaction", reader.reads())
          .isEmpty();
      assertThat(
              dst.queryLong(
                  "SELECT count(*) FROM information_schema.columns WHERE table_name = 'account'"
                      + " AND column_name = 'note'"))
          .isEqualTo(1);
      assertThat(dst.queryLong("SELECT count(*) FROM pg_namespace WHERE nspname = 'other'"))
          .isZero();
      for (String connector : STACK.rest().connectors()) {
        if (connector.startsWith(scope.prefix())) {
          assertThat(STACK.rest().status(connector).isRunning(1)).as(connector).isTrue();
        }
      }
    }
  }

  /**
   * Two flows (datasets) of one source, each capturing its own table; one source transaction
   * touches a table of each. Each flow's part is applied once: neither is taken for a duplicate of
   * the other.
   */
  @org.junit.jupiter.api.Test
  void twoFlowsSharingASourceTransactionAreBothApplied() {
    try (TestScope scope = STACK.newScope("flows")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(
          src,
          dst,
          "CREATE TABLE orders (id int PRIMARY KEY, total int)",
          "CREATE TABLE stock (sku int PRIMARY KEY, qty int)");
      String ordersTopic = scope.createTopic("orders", 1);
      String stockTopic = scope.createTopic("stock", 1);
      deploySource(
          scope,
          "orders-source",
          src,
          ordersTopic,
          "public.orders",
          Map.of("dataset.id", "orders"));
      deploySource(
          scope,
          "stock-source",
          src,
          stockTopic,
          "public.stock",
          Map.of(
              "dataset.id",
              "stock",
              "slot.name",
              scope.slotName() + "_stock",
              "publication.name",
              scope.publicationName() + "_stock"));
      deploySink(scope, "sink", dst, ordersTopic + "," + stockTopic, Map.of());
      for (int i = 1; i <= 20; i++) {
        src.executeInTransaction(
            "INSERT INTO orders VALUES (" + i + ", " + (10 * i) + ")",
            "INSERT INTO stock VALUES (" + i + ", 100 - " + i + ")");
      }
      awaitEqual(src, dst, "orders", "id");
      awaitEqual(src, dst, "stock", "sku");
      assertThat(appliedTransactions(dst)).isEqualTo(40);
      assertThat(
              dst.queryLong(
                  "SELECT count(DISTINCT (source_id, commit_lsn, transaction_id))"
                      + " FROM trellara_sink.applied_transactions"))
          .isEqualTo(20);
    }
  }
}
