package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.WAIT;
import static io.trellara.sink.connect.Pipelines.appliedTransactions;
import static io.trellara.sink.connect.Pipelines.awaitEqual;
import static io.trellara.sink.connect.Pipelines.deploySink;
import static io.trellara.sink.connect.Pipelines.deploySource;
import static io.trellara.sink.connect.Pipelines.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.sink.connect.ForgedRecords.Forged;
import io.trellara.sink.connect.ForgedRecords.Forgery;
import io.trellara.sink.postgres.Tx;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Source and sink sharing keys from a config provider ({@code ${file:...}}): transactions flow
 * signed; the key rotates (k2 added to the sink, the source switched to k2) without the sink
 * stopping or refusing anything; then records written straight to the strict topic without a
 * header, with a wrong tag or under an unknown key id each fail the sink task with AUTH_FAILED
 * naming topic, partition and offset, and the target is unchanged.
 */
@EitherPlatform
class RecordAuthenticationIT {
  static final String K1 = "k1=first-secret-of-the-flow-0001";
  static final String K2 = "k2=second-secret-of-the-flow-002";

  @Test
  void signedTransactionsFlowTheKeyRotatesAndForgedRecordsAreRefused() throws Exception {
    try (TestScope scope = STACK.newScope("auth");
        KafkaProducer<byte[], byte[]> producer = producer()) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(src, dst, "CREATE TABLE ledger (tx integer PRIMARY KEY, moves integer NOT NULL)");
      Path keys = Files.createTempFile("trellara-keys", ".properties");
      Files.writeString(keys, "one=" + K1 + "\nboth=" + K1 + "," + K2 + "\n");
      String provided = "${file:" + keys + ":";
      String topic = scope.createTopic("strict", 1);
      Map<String, String> source =
          Map.of(
              "record.authentication.keys",
              provided + "one}",
              "record.authentication.key.id",
              "k1");
      String sourceName = deploySource(scope, src, topic, "public.ledger", source);
      String sink =
          deploySink(
              scope,
              "sink",
              dst,
              topic,
              Map.of(
                  "relation.allowlist",
                  "public.ledger",
                  "record.authentication.keys",
                  provided + "one}"));

      src.execute("INSERT INTO ledger VALUES (1, 1)", "INSERT INTO ledger VALUES (2, 2)");
      awaitEqual(src, dst, "ledger", "tx");
      assertThat(keyId(sourceName)).isEqualTo("k1");
      await().atMost(WAIT).until(() -> "k1".equals(keyId(sink)));

      // rotation: the sink accepts both, then the source signs with k2
      Map<String, String> sinkBoth = new HashMap<>(STACK.rest().connectorConfig(sink));
      sinkBoth.put("record.authentication.keys", provided + "both}");
      STACK.rest().putConnectorConfig(sink, sinkBoth);
      src.execute("INSERT INTO ledger VALUES (3, 3)");
      Map<String, String> sourceK2 = new HashMap<>(STACK.rest().connectorConfig(sourceName));
      sourceK2.put("record.authentication.keys", provided + "both}");
      sourceK2.put("record.authentication.key.id", "k2");
      STACK.rest().putConnectorConfig(sourceName, sourceK2);
      src.execute("INSERT INTO ledger VALUES (4, 4)");
      awaitEqual(src, dst, "ledger", "tx");
      await().atMost(WAIT).until(() -> "k2".equals(keyId(sourceName)));
      src.execute("INSERT INTO ledger VALUES (5, 5)");
      awaitEqual(src, dst, "ledger", "tx");
      await().atMost(WAIT).until(() -> "k2".equals(keyId(sink)));
      assertThat(STACK.rest().status(sink).isRunning(1)).isTrue();
      STACK.rest().deleteAndAwait(sourceName); // from here on only the attacker writes

      List<List<Object>> before = Pipelines.rows(dst, "ledger", "tx");
      long applied = appliedTransactions(dst);
      long end = STACK.broker().endOffsets(topic).values().iterator().next();
      for (Forgery forgery : Forgery.values()) {
        Forged forged =
            Forged.envelope(
                Tx.tx("pg-auth", 0xFFFF0000L, "4000000")
                    .insert(
                        io.trellara.sink.postgres.Transfers.LEDGER,
                        Tx.key("tx", "integer", "900"),
                        Tx.val("moves", "integer", "1"))
                    .build());
        ForgedRecords.send(producer, topic, List.of(forged), f -> forgery.key);
        ConnectorStatus failed = STACK.rest().awaitFailed(sink, WAIT);
        assertThat(failed.firstTrace())
            .contains("AUTH_FAILED (reason " + forgery + ")")
            .contains("topic " + topic + ", partition 0, offset " + end);
        assertThat(Pipelines.rows(dst, "ledger", "tx")).isEqualTo(before);
        assertThat(appliedTransactions(dst)).isEqualTo(applied);
        // the operator moves the sink past the forged record, as security.md says
        dst.execute("UPDATE trellara_sink.progress SET next_offset = " + (end + 1));
        end++;
        STACK.rest().restart(sink, true, true);
        STACK.rest().awaitRunning(sink);
      }
    }
  }

  private static String keyId(String connector) throws Exception {
    var server = ManagementFactory.getPlatformMBeanServer();
    var names =
        server.queryNames(new ObjectName("io.trellara:connector=" + connector + ",*"), null);
    for (ObjectName n : names) {
      return String.valueOf(server.getAttribute(n, "AuthenticationKeyId"));
    }
    return null;
  }

  private static KafkaProducer<byte[], byte[]> producer() {
    Map<String, Object> config = new HashMap<>(STACK.broker().clientConfig());
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }
}
