package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.WAIT;
import static io.trellara.sink.connect.Pipelines.awaitEqual;
import static io.trellara.sink.connect.Pipelines.deploySink;
import static io.trellara.sink.connect.Pipelines.deploySource;
import static io.trellara.sink.connect.Pipelines.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.connect.common.TaskMBeans;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.junit.jupiter.api.Test;

/**
 * A snapshot signal (issue 30): while transfers stream, a row inserted into the source's signal
 * table re-snapshots one table whose target copy was damaged by hand; the sink replaces it in one
 * target transaction, the target ends equal to the source, nothing of the stream lost or applied
 * twice at the seam, and the other tables keep streaming. Malformed and refused signals change
 * nothing; the signal table never reaches the target. The source task's JMX bean shows the refusals
 * and the snapshot's figures, and the worker's log its lines on the source and the sink (issue 30,
 * requirement 7).
 */
@EitherPlatform
class OnlineSnapshotIT {

  @Test
  void aSnapshotSignalReloadsADamagedTableAtomicallyWhileTheStreamGoesOn() throws Exception {
    StringWriter log = new StringWriter();
    WriterAppender appender = capture(log);
    try (TestScope scope = STACK.newScope("online_snap")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, SnapshotIT.SCHEMA);
      src.execute("CREATE TABLE signals (id text PRIMARY KEY, type text NOT NULL, data text)");
      src.execute(
          "INSERT INTO account SELECT g, 1000 FROM generate_series(1, "
              + SnapshotIT.ACCOUNTS
              + ") g",
          "INSERT INTO moved VALUES (1, 0)",
          "INSERT INTO ledger (from_id, to_id, amount, note) SELECT g % 100 + 1, g % 100 + 1,"
              + " 1 + g % 50, 'n' || g FROM generate_series(1, 20000) g",
          "UPDATE moved SET total = (SELECT sum(amount) FROM ledger)");
      String strict = scope.createTopic("strict", 1);
      String source =
          deploySource(
              scope,
              src,
              strict,
              "public.account,public.ledger,public.moved,public.signals",
              Map.of("signal.table", "public.signals"));
      String sink = deploySink(scope, "sink", dst, strict, Map.of());
      awaitEqual(src, dst, "ledger", "id");
      awaitEqual(src, dst, "moved", "id");

      // the target's copy of the ledger is damaged by hand: rows deleted, rows changed
      long deleted = dst.queryLong("SELECT sum(amount) FROM ledger WHERE id <= 2000");
      dst.execute(
          "DELETE FROM ledger WHERE id <= 2000",
          "UPDATE ledger SET note = 'damaged' WHERE id BETWEEN 5000 AND 6000");
      // every read of the target sees the ledger damaged or whole (never half re-loaded), and
      // every transfer whole
      String gap = "(SELECT max(total) FROM moved) - (SELECT coalesce(sum(amount), 0) FROM ledger)";
      BankReader reader =
          new BankReader(
              dst,
              "SELECT CASE WHEN "
                  + gap
                  + " IN (0, "
                  + deleted
                  + ") AND (SELECT sum(balance) FROM account) = "
                  + SnapshotIT.TOTAL
                  + " THEN 0 ELSE 1 END",
              0);

      SnapshotIT.Transfers transfers = new SnapshotIT.Transfers(src, 11);
      transfers.start();
      // malformed and refused signals: logged, ignored, nothing stops
      src.execute(
          "INSERT INTO signals VALUES ('bad-1', 'explode', 'public.ledger')",
          "INSERT INTO signals VALUES ('bad-2', 'snapshot', 'public.ledger; DROP TABLE x')",
          "INSERT INTO signals VALUES ('bad-3', 'snapshot', NULL)",
          "INSERT INTO signals VALUES ('refused-1', 'pause-snapshot', NULL)",
          "INSERT INTO signals VALUES ('refused-2', 'snapshot', 'public.nope')",
          "INSERT INTO signals VALUES ('refused-3', 'snapshot', 'public.ledger WHERE id > 10')");
      long movedBefore = src.queryLong("SELECT total FROM moved");
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT total FROM moved") > movedBefore);
      assertThat(dst.queryLong("SELECT " + gap)).as("the damage is still there").isEqualTo(deleted);
      MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
      ObjectName bean = TaskMBeans.name("source-task", source, "0");
      assertThat(jmx.getAttribute(bean, "OnlineSnapshotState")).isEqualTo("IDLE");
      assertThat(jmx.getAttribute(bean, "OnlineSnapshotSignalsRefused"))
          .as("pause, a table not published, a row filter: refused; the malformed never parsed")
          .isEqualTo(3L);
      assertThat((String) jmx.getAttribute(bean, "OnlineSnapshotLastRefusal"))
          .startsWith("refused-3 snapshot public.ledger WHERE id > 10: a row filter");
      assertThat(jmx.getAttribute(bean, "OnlineSnapshotLastOutcome")).isNull();
      long ledgerBefore = src.queryLong("SELECT count(*) FROM ledger");

      src.execute("INSERT INTO signals VALUES ('reload-1', 'snapshot', 'public.ledger')");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  dst.queryLong("SELECT " + gap) == 0
                      && dst.queryLong("SELECT count(*) FROM ledger WHERE note = 'damaged'") == 0);
      long ledgerAfter = src.queryLong("SELECT count(*) FROM ledger");
      assertThat(jmx.getAttribute(bean, "OnlineSnapshotState")).isEqualTo("IDLE");
      assertThat(jmx.getAttribute(bean, "OnlineSnapshotsCompleted")).isEqualTo(1L);
      assertThat(jmx.getAttribute(bean, "OnlineSnapshotsFailed")).isEqualTo(0L);
      assertThat(jmx.getAttribute(bean, "OnlineSnapshotLastOutcome")).isEqualTo("COMPLETED");
      assertThat(jmx.getAttribute(bean, "OnlineSnapshotLastSignalId")).isEqualTo("reload-1");
      assertThat(jmx.getAttribute(bean, "OnlineSnapshotLastTables")).isEqualTo("public.ledger");
      long rows = (Long) jmx.getAttribute(bean, "OnlineSnapshotLastRows");
      assertThat(rows)
          .as("the ledger's rows at the consistent point")
          .isBetween(ledgerBefore, ledgerAfter);
      assertThat(
              dst.queryLong(
                  "SELECT change_count FROM trellara_sink.applied_transactions"
                      + " WHERE transaction_id = 'snapshot' ORDER BY commit_lsn_value DESC LIMIT 1"))
          .as("the rows the target loaded from it")
          .isEqualTo(rows);
      assertThat((Long) jmx.getAttribute(bean, "OnlineSnapshotLastBytes")).isGreaterThan(rows);
      assertThat((Long) jmx.getAttribute(bean, "OnlineSnapshotLastElapsedMs")).isNotNegative();
      assertThat((String) jmx.getAttribute(bean, "OnlineSnapshotLastSummary"))
          .startsWith("reload-1 COMPLETED public.ledger at ");
      // the stream goes on after the re-snapshot, for every table
      long movedAfter = src.queryLong("SELECT total FROM moved");
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT total FROM moved") > movedAfter);
      int committed = transfers.stop();
      transfers.batch(30);
      awaitEqual(src, dst, "account", "id");
      awaitEqual(src, dst, "ledger", "id");
      awaitEqual(src, dst, "moved", "id");
      List<Long> broken = reader.stop();

      assertThat(committed).as("transfers committed around the signal").isGreaterThan(10);
      assertThat(reader.reads()).isGreaterThan(10);
      assertThat(broken)
          .as(
              "reads of %d that saw the ledger half re-loaded or a transfer in part",
              reader.reads())
          .isEmpty();
      assertThat(
              dst.queryLong(
                  "SELECT count(*) FROM trellara_sink.applied_transactions"
                      + " WHERE transaction_id = 'snapshot'"))
          .as("the initial snapshot and the one signalled")
          .isEqualTo(2);
      assertThat(
              dst.queryLong(
                  "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
                      + " AND tablename = 'signals'"))
          .as("the signal table never reaches the target")
          .isZero();
      assertThat(
              src.queryLong(
                  "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE '%resnap'"))
          .as("the online snapshot's temporary slot is gone")
          .isZero();
      assertThat(STACK.rest().status(source).isFailed()).isFalse();
      assertThat(STACK.rest().status(sink).isFailed()).isFalse();
      String lines = log.toString();
      assertThat(lines)
          .contains("Signal refused-1 (pause-snapshot ) refused: ")
          .containsPattern(
              "Signal reload-1 \\(committed at [0-9A-F/]+\\): snapshot of public.ledger at"
                  + " consistent point [0-9A-F/]+")
          .containsPattern(
              "Online snapshot of signal reload-1 of publication \\S+ begins at consistent point")
          .contains(
              "Online snapshot of signal reload-1 read table public.ledger: " + rows + " rows")
          .containsPattern(
              "Signal reload-1: snapshot of public.ledger at [0-9A-F/]+ published: "
                  + rows
                  + " rows in \\d+ ms")
          .containsPattern(
              "Applied snapshot \\S+ to the target: table\\(s\\) public.ledger, "
                  + rows
                  + " row\\(s\\), \\d+ chunk\\(s\\), \\d+ ms");
    } finally {
      release(appender);
    }
  }

  /** The worker runs in this JVM: its Trellara log lines, captured (and still logged as usual). */
  private static WriterAppender capture(StringWriter log) {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    WriterAppender appender =
        WriterAppender.newBuilder()
            .setName("online-snapshot-capture")
            .setTarget(log)
            .setLayout(PatternLayout.newBuilder().withPattern("%m%n").build())
            .build();
    appender.start();
    // the test platform's log4j2-test.xml configures io.trellara at INFO: its appenders gain this
    // one
    ctx.getConfiguration().getLoggerConfig("io.trellara").addAppender(appender, Level.INFO, null);
    ctx.updateLoggers();
    return appender;
  }

  private static void release(WriterAppender appender) {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    ctx.getConfiguration().getLoggerConfig("io.trellara").removeAppender(appender.getName());
    ctx.updateLoggers();
    appender.stop();
  }
}
