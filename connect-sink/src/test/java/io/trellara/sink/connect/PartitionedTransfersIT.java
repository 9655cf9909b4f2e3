package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.WAIT;
import static io.trellara.sink.connect.Pipelines.deploySink;
import static io.trellara.sink.connect.Pipelines.deploySource;
import static io.trellara.sink.connect.Pipelines.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Partitioned mode as a user runs it: 4 lanes, a sink with 2 tasks, a snapshot of prefilled
 * accounts among which rows of 100 kB and 5 MB, then a stream of transfers (2 updates and 2 inserts
 * each) with large values rewritten among them. A reader polling the target never sees a total that
 * a source transaction did not leave (0 broken reads), and the target ends equal to the source.
 */
@EitherPlatform
class PartitionedTransfersIT {
  private static final int ACCOUNTS = 200;
  private static final long TOTAL = ACCOUNTS * 1000L;

  @Test
  void transfersWithLargeValuesOverFourLanesAndTwoSinkTasksApplyWholeWithNoBrokenRead()
      throws Exception {
    try (TestScope scope = STACK.newScope("ptransfers")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(
          src,
          dst,
          "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL, doc text)",
          "CREATE TABLE history (id int PRIMARY KEY, account int NOT NULL, delta bigint NOT NULL)");
      src.execute(
          "INSERT INTO account SELECT g, 1000, 'small ' || g FROM generate_series(1, "
              + ACCOUNTS
              + ") g",
          // 100 kB values (md5 text: little for pglz to compress) and two of 5 MB
          "UPDATE account SET doc = (SELECT string_agg(md5(id::text || '-' || i), '')"
              + " FROM generate_series(1, 3200) i) WHERE id % 20 = 0",
          "UPDATE account SET doc = repeat(md5(id::text), 163840) WHERE id IN (7, 77)");
      String strict = scope.createTopic("strict", 1);
      String lanes = scope.createTopic("lanes", 4);
      deploySource(
          scope,
          src,
          strict,
          "public.account,public.history",
          Map.of(
              "dataset.mode",
              "partitioned_scale_mode",
              "topic.partitioned",
              lanes,
              "dataset.partitioned.partition_count",
              "4",
              "dataset.partitioned.max_changes_per_chunk",
              "50",
              "dataset.chunk.max_bytes", // a 5 MB row travels in a chunk of its own
              Long.toString(6L << 20),
              "snapshot.mode",
              "initial"));
      String sink = deploySink(scope, "sink", dst, strict + "," + lanes, Map.of("tasks.max", "2"));

      AtomicBoolean reading = new AtomicBoolean(true);
      AtomicLong reads = new AtomicLong();
      List<String> broken = new ArrayList<>();
      Thread reader =
          new Thread(
              () -> {
                while (reading.get()) {
                  List<List<Object>> r =
                      dst.query("SELECT count(*), coalesce(sum(balance), 0) FROM account");
                  long count = ((Number) r.get(0).get(0)).longValue();
                  long sum = ((Number) r.get(0).get(1)).longValue();
                  reads.incrementAndGet();
                  // before the snapshot nothing, after it every account and the same total
                  if (count != 0 && (count != ACCOUNTS || sum != TOTAL)) {
                    synchronized (broken) {
                      broken.add(count + " accounts, total " + sum);
                    }
                  }
                }
              },
              "ptransfers-reader");
      reader.start();

      Random random = new Random(34);
      int transfers = 300;
      for (int n = 1; n <= transfers; n++) {
        int from = 1 + random.nextInt(ACCOUNTS);
        int to = 1 + (from + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
        long amount = 1 + random.nextInt(50);
        List<String> statements = new ArrayList<>();
        statements.add("UPDATE account SET balance = balance - " + amount + " WHERE id = " + from);
        statements.add("UPDATE account SET balance = balance + " + amount + " WHERE id = " + to);
        statements.add(
            "INSERT INTO history VALUES (" + (2 * n) + ", " + from + ", -" + amount + ")");
        statements.add(
            "INSERT INTO history VALUES (" + (2 * n + 1) + ", " + to + ", " + amount + ")");
        if (n % 50 == 0) { // a 100 kB value rewritten, and once a 5 MB one
          statements.add(
              "UPDATE account SET doc = (SELECT string_agg(md5(i::text || '"
                  + n
                  + "'), '')"
                  + " FROM generate_series(1, 3200) i) WHERE id = "
                  + from);
        }
        if (n == 150) {
          statements.add("UPDATE account SET doc = repeat(md5('x'), 163840) WHERE id = 100");
        }
        src.executeInTransaction(statements.toArray(String[]::new));
      }

      await()
          .atMost(WAIT)
          .failFast("sink FAILED", () -> assertThat(STACK.rest().status(sink).isFailed()).isFalse())
          .until(() -> fingerprint(dst).equals(fingerprint(src)));
      reading.set(false);
      reader.join();

      assertThat(reads.get()).isGreaterThan(10);
      assertThat(broken).as("reads of %d that saw part of a transaction", reads.get()).isEmpty();
      assertThat(dst.queryLong("SELECT count(*) FROM history")).isEqualTo(2L * transfers);
      assertThat(dst.queryLong("SELECT count(*) FROM trellara_sink.staged_chunks")).isZero();
      assertThat(dst.queryLong("SELECT max(length(doc)) FROM account")).isEqualTo(5L << 20);
    }
  }

  private static String fingerprint(PostgresDatabase db) {
    return db.queryString(
        "SELECT (SELECT count(*) || ':' || coalesce(md5(string_agg(id || '/' || balance || '/'"
            + " || md5(coalesce(doc, '')), ',' ORDER BY id)), '') FROM account) || ' ' || (SELECT"
            + " count(*) || ':' || coalesce(md5(string_agg(h::text, ',' ORDER BY id)), '') FROM"
            + " history h)");
  }
}
