package io.trellara.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code trellara snapshot} against a source connector with {@code signal.kafka.topic}: the CLI
 * reads the topic and brokers from the connector's config and sends the signal keyed with its name;
 * the source re-loads the damaged table on the target.
 */
@EitherPlatform
class SnapshotCommandIT {
  private static final TrellaraStack STACK = TrellaraStack.get();
  private static final Duration WAIT = Duration.ofSeconds(120);

  @Test
  void theCliSendsThroughTheConnectorsSignalTopicAndTheTableIsReloaded() {
    try (TestScope scope = STACK.newScope("cli_ksignal")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      String ddl = "CREATE TABLE item (id int PRIMARY KEY, name text)";
      src.execute(ddl, "INSERT INTO item SELECT g, 'i' || g FROM generate_series(1, 2000) g");
      dst.execute(ddl);
      String topic = scope.createTopic("strict", 1);
      String signals = scope.createTopic("signals", 1);
      String source =
          scope.createConnector(
              "source",
              ConnectorConfigs.source(
                  scope, src, topic, "public.item", Map.of("signal.kafka.topic", signals)));
      String sink = scope.createConnector("sink", ConnectorConfigs.sink(dst, topic, Map.of()));
      STACK.rest().awaitRunning(source);
      STACK.rest().awaitRunning(sink);
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT count(*) FROM item") == 2000);
      dst.execute("DELETE FROM item WHERE id <= 300");

      String url = STACK.worker().restUrl().toString();
      StringWriter err = new StringWriter();
      StringWriter out = new StringWriter();
      int noJdbc =
          TrellaraCli.run(
              new PrintWriter(out, true),
              new PrintWriter(err, true),
              "snapshot",
              "--connect-url",
              url,
              "--connector",
              source,
              "--via",
              "table",
              "--table",
              "public.item");
      assertThat(noJdbc).isNotZero();
      assertThat(err.toString()).contains("--source-jdbc is needed");

      out = new StringWriter();
      int status =
          TrellaraCli.run(
              new PrintWriter(out, true),
              new PrintWriter(err, true),
              "snapshot",
              "--connect-url",
              url,
              "--connector",
              source,
              "--id",
              "cli-reload-1",
              "--table",
              "public.item");
      assertThat(status).as(err.toString()).isZero();
      assertThat(out.toString())
          .contains("signal cli-reload-1 (snapshot: public.item) sent to topic " + signals);
      // the source is idle: the watermark it writes publishes the snapshot
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT count(*) FROM item") == 2000);
      assertThat(
              dst.queryLong(
                  "SELECT count(*) FROM trellara_sink.applied_transactions"
                      + " WHERE transaction_id = 'snapshot'"))
          .isEqualTo(2);
      assertThat(STACK.rest().status(source).isFailed()).isFalse();
    }
  }
}
