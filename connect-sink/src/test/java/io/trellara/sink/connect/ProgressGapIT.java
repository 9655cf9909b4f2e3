package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.WAIT;
import static io.trellara.sink.connect.Pipelines.deploySink;
import static io.trellara.sink.connect.Pipelines.deploySource;
import static io.trellara.sink.connect.Pipelines.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Records the sink never applied disappear from the topic while it is away (Kafka's deleteRecords,
 * which is what retention does to old segments): when it comes back, its progress in the target
 * points below the partition's log start. It must not skip silently to the earliest record left: it
 * fails closed naming the topic, the partition and the missing offsets, and applies nothing after
 * the gap.
 */
@EitherPlatform
class ProgressGapIT {

  @Test
  void aSinkWhoseProgressIsBelowTheLogStartFailsNamingTheMissingOffsets() throws Exception {
    try (TestScope scope = STACK.newScope("gap")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE t (id int PRIMARY KEY, v text)");
      String strict = scope.createTopic("strict", 1);
      deploySource(scope, src, strict, "public.t", Map.of("snapshot.mode", "never"));
      String sink = deploySink(scope, "sink", dst, strict, Map.of());
      for (int i = 1; i <= 3; i++) {
        src.execute("INSERT INTO t VALUES (" + i + ", 'applied')");
      }
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT count(*) FROM t") == 3);
      long progress =
          dst.queryLong(
              "SELECT next_offset FROM trellara_sink.progress WHERE topic = '" + strict + "'");
      STACK.rest().deleteAndAwait(sink);

      for (int i = 4; i <= 8; i++) { // published while the sink is away
        src.execute("INSERT INTO t VALUES (" + i + ", 'published')");
      }
      TopicPartition tp = new TopicPartition(strict, 0);
      var admin = STACK.broker().admin();
      await()
          .atMost(WAIT)
          .until(
              () ->
                  admin
                          .listOffsets(Map.of(tp, OffsetSpec.latest()))
                          .partitionResult(tp)
                          .get(10, TimeUnit.SECONDS)
                          .offset()
                      >= progress + 5);
      long logStart = progress + 3; // offsets progress .. progress+2 (rows 4-6) are gone
      admin
          .deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(logStart)))
          .all()
          .get(30, TimeUnit.SECONDS);

      String again = deploySinkExpectingFailure(scope, dst, strict);
      ConnectorStatus status = STACK.rest().awaitFailed(again);
      assertThat(status.firstTrace())
          .contains("PROGRESS_GAP")
          .contains(strict + "-0")
          .contains("at offset " + progress)
          .contains("records " + progress + ".." + (logStart - 1));
      assertThat(dst.queryLong("SELECT count(*) FROM t"))
          .as("nothing after the gap applied")
          .isEqualTo(3);
    }
  }

  /** The same sink name again (its progress rows are the ones it recorded), not awaited RUNNING. */
  private static String deploySinkExpectingFailure(
      TestScope scope, PostgresDatabase dst, String strict) {
    return scope.createConnector(
        "sink", io.trellara.testplatform.ConnectorConfigs.sink(dst, strict, Map.of()));
  }
}
