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
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The zombie of issue 14: a sink task whose apply runs past {@code max.poll.interval.ms} loses its
 * strict partition to the connector's other task while it still applies. Both then apply the same
 * source transaction at once. Before fencing, the one to commit second met the other's row
 * (SQLSTATE 23505) and its task FAILED; now the new owner's claim fences the old one, which rolls
 * back, and nothing fails, is lost or is applied twice.
 */
@EitherPlatform
class ZombieFencingIT {
  private static final Logger LOG = LoggerFactory.getLogger(ZombieFencingIT.class);

  /**
   * Strict: two sink tasks over the one strict partition. Partitioned: three tasks over the strict
   * partition and 4 lanes; the stuck task applies a barrier, and the new owner of the strict
   * partition takes its lanes too.
   */
  @ParameterizedTest
  @ValueSource(strings = {"strict", "partitioned"})
  void aTaskThatOutlivedItsPollIntervalIsFencedAndNothingFails(String mode) throws Exception {
    try (TestScope scope = STACK.newScope("zombie")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE t (id int PRIMARY KEY, v text)");
      String strict = scope.createTopic("strict", 1);
      Map<String, String> sourceExtra = new HashMap<>(Map.of("snapshot.mode", "never"));
      Map<String, String> sinkExtra =
          new HashMap<>(
              Map.of(
                  "tasks.max",
                  "2",
                  "consumer.override.max.poll.interval.ms",
                  "8000",
                  "consumer.override.session.timeout.ms",
                  "6000",
                  "consumer.override.heartbeat.interval.ms",
                  "2000"));
      String topics = strict;
      if (mode.equals("partitioned")) {
        String lanes = scope.createTopic("lanes", 4);
        sourceExtra.putAll(
            Map.of(
                "dataset.mode",
                "partitioned_scale_mode",
                "topic.partitioned",
                lanes,
                "dataset.partitioned.partition_count",
                "4"));
        sinkExtra.put("tasks.max", "3");
        topics = strict + "," + lanes;
      }
      int tasks = Integer.parseInt(sinkExtra.get("tasks.max"));
      deploySource(scope, src, strict, "public.t", sourceExtra);
      String sink = deploySink(scope, "sink", dst, topics, sinkExtra);
      STACK.rest().awaitRunning(sink, tasks, WAIT);
      src.execute("INSERT INTO t VALUES (1, 'before')");
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT count(*) FROM t") == 1);
      String first = owner(dst, strict);

      long released;
      try (Connection lock = dst.connect();
          Statement s = lock.createStatement()) {
        lock.setAutoCommit(false);
        s.execute(
            "LOCK TABLE t IN ACCESS EXCLUSIVE MODE"); // the owner's next apply hangs past its poll
        // interval
        src.execute("INSERT INTO t VALUES (2, 'while stuck')");
        await().atMost(Duration.ofSeconds(90)).until(() -> !owner(dst, strict).equals(first));
        LOG.info("{} took the partition over from {}", owner(dst, strict), first);
        // the new owner applies the same transaction and waits on the same lock
        await()
            .atMost(WAIT)
            .until(
                () ->
                    dst.queryLong(
                            "SELECT count(*) FROM pg_stat_activity WHERE"
                                + " datname = current_database() AND wait_event_type = 'Lock'")
                        >= 2);
        lock.rollback();
        released = System.nanoTime();
      }
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT count(*) FROM t") == 2);
      LOG.info(
          "{}: lock released -> the stuck transaction visible: {} ms",
          mode,
          (System.nanoTime() - released) / 1_000_000);
      src.execute("INSERT INTO t VALUES (3, 'after')");
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT count(*) FROM t") == 3);

      ConnectorStatus status = STACK.rest().status(sink);
      assertThat(status.tasks())
          .as(status.firstTrace())
          .hasSize(tasks)
          .allSatisfy(t -> assertThat(t.state()).isEqualTo("RUNNING"));
      assertThat(dst.query("SELECT id, v FROM t ORDER BY id"))
          .containsExactly(List.of(1, "before"), List.of(2, "while stuck"), List.of(3, "after"));
      assertThat(dst.queryLong("SELECT count(*) FROM trellara_sink.applied_transactions"))
          .isEqualTo(3);
      assertThat(
              dst.queryLong(
                  "SELECT count(*) FROM trellara_sink.applied_transactions"
                      + " GROUP BY commit_lsn ORDER BY 1 DESC LIMIT 1"))
          .as("each applied once")
          .isEqualTo(1);
    }
  }

  private static String owner(PostgresDatabase dst, String topic) {
    return dst.queryString(
        "SELECT owner FROM trellara_sink.partition_owners WHERE topic = '" + topic + "'");
  }
}
