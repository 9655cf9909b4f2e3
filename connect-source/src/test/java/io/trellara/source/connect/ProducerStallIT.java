package io.trellara.source.connect;

import static io.trellara.source.connect.SourceConnectorIT.STACK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.MessageKind;
import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.FreePorts;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TcpProxy;
import io.trellara.testplatform.TestScope;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The producer's stage end to end: a broker that stops answering (a proxy between it and the worker
 * stops forwarding bytes, every connection left open) fails the source task with STALLED naming the
 * producer, the oldest unacknowledged transaction and the topic, once {@code
 * capture.stall.timeout.ms} (4 s here) passes without an acknowledgement. Without it the task stays
 * RUNNING while Connect's producer retries without end (Connect sets {@code delivery.timeout.ms} to
 * Integer.MAX_VALUE for source tasks), and the log never says STALLED. The worker runs in a JVM of
 * its own and reaches the broker only through the proxy: the broker advertises a listener at the
 * proxy's address.
 */
class ProducerStallIT {
  static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void aBrokerThatStopsAnsweringFailsTheSourceTaskWithStalledNamingTheProducer() throws Exception {
    int proxied = FreePorts.next();
    try (TestScope scope = STACK.newScope("producerStall");
        TcpProxy proxy = TcpProxy.to("broker", "127.0.0.1", proxied);
        KafkaBroker broker =
            KafkaBroker.builder()
                .listener("PROXIED", proxied, proxy.host(), proxy.port())
                .start()) {
      String viaProxy = proxy.host() + ":" + proxy.port();
      PostgresDatabase db = scope.sourceDatabase();
      db.execute("CREATE TABLE item (id int PRIMARY KEY, note text)");
      String topic = scope.topic("strict");
      broker.createTopic(topic, 1, ConnectorConfigs.topicConfigs());
      try (ConnectWorkerProcess worker =
          ConnectWorker.builder(broker)
              .groupId(scope.prefix() + "-stall")
              .set("bootstrap.servers", viaProxy)
              // the worker keeps its tasks while it cannot reach the group coordinator
              .set("scheduled.rebalance.max.delay.ms", "600000")
              .set("session.timeout.ms", "120000")
              .jvmArg("-Xmx384m")
              .buildProcess()) {
        worker.start();
        ConnectRestClient rest = worker.rest();
        Map<String, String> config =
            new HashMap<>(ConnectorConfigs.source(scope, db, topic, "public.item", Map.of()));
        config.put("kafka.bootstrap.servers", viaProxy);
        config.put("snapshot.mode", "never");
        config.put("capture.stall.timeout.ms", "4000");
        String name = scope.connectorName("source");
        rest.createConnector(name, config);
        rest.awaitRunning(name, 1, WAIT);
        await().atMost(WAIT).until(() -> db.activeReplicationSlots(scope.slotName()) == 1);
        db.execute("INSERT INTO item VALUES (1, 'published')");
        await("the first transaction on the topic")
            .atMost(WAIT)
            .until(() -> envelopes(broker, topic) == 1);

        proxy.freeze(true);
        db.execute("INSERT INTO item VALUES (2, 'never acknowledged')");
        await("STALLED in the worker's log")
            .atMost(Duration.ofSeconds(100))
            .until(() -> log(worker).contains("STALLED: stage 'producer'"));
        proxy.freeze(false);

        ConnectorStatus status = rest.awaitFailed(name, WAIT);
        assertThat(status.firstTrace())
            .contains("STALLED: stage 'producer' made no progress for")
            .contains("bound 4000 ms")
            .contains("record(s) of 1 transaction(s) not acknowledged")
            .contains("on topic " + topic);
        assertThat(envelopes(broker, topic))
            .as("the transaction was delivered after all")
            .isLessThanOrEqualTo(2);
        rest.deleteAndAwait(name);
      }
    }
  }

  private static long envelopes(KafkaBroker broker, String topic) {
    return broker.readAll(topic).stream()
        .filter(r -> MessageKind.ENVELOPE.wireName().equals(r.headerAsString(MessageKind.HEADER)))
        .count();
  }

  private static String log(ConnectWorkerProcess worker) {
    try {
      return Files.readString(worker.logFile());
    } catch (IOException e) {
      return "";
    }
  }
}
