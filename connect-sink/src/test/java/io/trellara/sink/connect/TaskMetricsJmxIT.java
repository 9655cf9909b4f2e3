package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.lang.management.ManagementFactory;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The tasks' JMX beans, read from the platform MBeanServer of the in-JVM worker the connectors were
 * deployed to over REST, count exactly what the pipeline did.
 */
@EitherPlatform
class TaskMetricsJmxIT {
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

  @Test
  void sourceAndSinkBeansCountWhatThePipelineDid() throws Exception {
    ObjectName source;
    ObjectName sink;
    try (TestScope scope = STACK.newScope("jmx")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL)");
      String topic = scope.createTopic("strict", 1);
      String sourceName = deploySource(scope, src, topic, "public.account", Map.of());
      String sinkName = deploySink(scope, "sink", dst, topic, Map.of());
      source = new ObjectName("io.trellara:type=source-task,connector=" + sourceName + ",task=0");
      sink = new ObjectName("io.trellara:type=sink-task,connector=" + sinkName + ",task=0");
      assertThat(JMX.isRegistered(source)).as("source bean %s", source).isTrue();
      assertThat(JMX.isRegistered(sink)).as("sink bean %s", sink).isTrue();

      src.executeInTransaction("INSERT INTO account VALUES (1, 100), (2, 200), (3, 300)");
      src.executeInTransaction("INSERT INTO account VALUES (4, 400)");
      src.executeInTransaction(
          "UPDATE account SET balance = balance - 10 WHERE id = 1",
          "UPDATE account SET balance = balance + 10 WHERE id = 2");
      src.executeInTransaction("DELETE FROM account WHERE id = 3");
      src.executeInTransaction(
          "INSERT INTO account VALUES (5, 500)", "UPDATE account SET balance = 0 WHERE id = 4");
      awaitEqual(src, dst, "account", "id");

      await()
          .atMost(WAIT)
          .until(
              () ->
                  longAt(source, "TransactionsAcknowledged") == 5
                      && longAt(sink, "TransactionsApplied") == 5
                      && longAt(source, "ReplicationLagBytes") >= 0
                      && longAt(source, "InFlightTransactions") == 0);

      assertThat(longAt(source, "TransactionsCaptured")).isEqualTo(5);
      assertThat(longAt(source, "TransactionsPublished")).isEqualTo(5);
      assertThat(longAt(source, "EventsCaptured")).isEqualTo(9);
      assertThat((Double) JMX.getAttribute(source, "TransactionsCapturedPerSecond")).isPositive();
      assertThat(longAt(source, "MemoryBytes")).isZero();
      assertThat(longAt(source, "SpilledTransactions")).isZero();
      assertThat(longAt(source, "AcknowledgedLagMs")).isGreaterThanOrEqualTo(0);
      assertThat(longAt(source, "PublishedLagMs")).isGreaterThanOrEqualTo(0);
      assertThat(longAt(source, "LastAcknowledgedLsnValue")).isPositive();
      assertThat((String) JMX.getAttribute(source, "CurrentWalLsn")).matches("[0-9A-F]+/[0-9A-F]+");

      String newestApplied =
          dst.queryString("SELECT max(commit_lsn)::text FROM trellara_sink.applied_transactions");
      assertThat(JMX.getAttribute(sink, "LastAppliedCommitLsn")).isEqualTo(newestApplied);
      assertThat(longAt(sink, "DuplicatesSkipped")).isZero();
      assertThat(longAt(sink, "TransactionsSetAside")).isZero();
      assertThat(longAt(sink, "RowsInserted")).isEqualTo(5);
      assertThat(longAt(sink, "RowsUpdated")).isEqualTo(3);
      assertThat(longAt(sink, "RowsDeleted")).isEqualTo(1);
      assertThat(longAt(sink, "TargetCommits")).isBetween(1L, 5L);
      assertThat(longAt(sink, "Retries")).isZero();
      assertThat(longAt(sink, "TransactionsWaitingAtBarrier")).isZero();
      assertThat(longAt(sink, "BufferedLanes")).isZero();
      assertThat(longAt(sink, "BufferedBytes")).isZero();
      assertThat(JMX.getAttribute(sink, "BoundaryMode")).isEqualTo("strict_transaction_order");
      assertThat((Integer) JMX.getAttribute(sink, "CommitToAppliedLatencySamples")).isEqualTo(5);
      long p50 = longAt(sink, "CommitToAppliedLatencyP50Ms");
      assertThat(longAt(sink, "CommitToAppliedLatencyMs")).isPositive();
      assertThat(p50).isPositive();
      assertThat(longAt(sink, "CommitToAppliedLatencyP99Ms")).isGreaterThanOrEqualTo(p50);
      assertThat((Double) JMX.getAttribute(sink, "TransactionsAppliedPerSecond")).isPositive();
    }
    // the scope deleted both connectors: their tasks stopped and took their beans with them
    await().atMost(WAIT).until(() -> !JMX.isRegistered(source) && !JMX.isRegistered(sink));
  }

  private static long longAt(ObjectName bean, String attribute) throws Exception {
    return ((Number) JMX.getAttribute(bean, attribute)).longValue();
  }
}
