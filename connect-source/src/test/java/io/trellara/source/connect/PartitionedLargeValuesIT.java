package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

/**
 * The reported failure, as a user deploys it: a partitioned snapshot (4 lanes, 5,000 changes a
 * chunk) and then a streamed transaction of rows with 100 kB and 5 MB values, the topics created by
 * the source from connector JSON that asks {@code topic.creation.default.max.message.bytes=
 * 68157440}. Before, the source created both topics with its own limit and then sent a lane chunk
 * larger than it (RecordTooLargeException, FAILED for good). Now every record is within the bound
 * the source announces, the topics have what topic.creation asked, and the task stays RUNNING.
 */
@EitherPlatform
class PartitionedLargeValuesIT {
  static final TrellaraStack STACK = SourceConnectorIT.STACK;
  private static final long CHUNK_MAX_BYTES = 6_000_000;
  private static final long ANNOUNCED = CHUNK_MAX_BYTES + 16 * 1024;
  private static final String ASKED_MAX_MESSAGE_BYTES = "68157440";

  private static long recordBytes(KafkaRecord r) {
    long n = r.value().length + (r.key() == null ? 0 : r.key().length);
    for (Map.Entry<String, byte[]> h : r.headers()) {
      n += h.getKey().length() + h.getValue().length;
    }
    return n;
  }

  private static long markers(String strict) {
    return STACK.broker().readAll(strict).stream()
        .filter(r -> "commit_marker".equals(r.headerAsString(MessageKind.HEADER)))
        .count();
  }

  private static String maxMessageBytes(String topic) throws Exception {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Config config =
        STACK.broker().admin().describeConfigs(List.of(resource)).all().get().get(resource);
    return config.get("max.message.bytes").value();
  }

  @Test
  void aPartitionedSnapshotAndStreamOf100kBAnd5MbValuesStayWithinTheAnnouncedBound()
      throws Exception {
    try (TestScope scope = STACK.newScope("laneBound")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE doc (id int PRIMARY KEY, body text)",
          "INSERT INTO doc SELECT g, repeat(md5(g::text), 3200) FROM generate_series(1, 120) g",
          "INSERT INTO doc SELECT g, repeat(md5(g::text), 163840) FROM generate_series(121, 122) g",
          "INSERT INTO doc SELECT g, 'small ' || g FROM generate_series(123, 400) g");
      String strict = scope.topic("strict");
      String lanes = scope.topic("lanes");
      String name =
          SourceConnectorIT.deploy(
              scope,
              db,
              strict,
              "public.doc",
              Map.ofEntries(
                  Map.entry("dataset.mode", "partitioned_scale_mode"),
                  Map.entry("topic.partitioned", lanes),
                  Map.entry("dataset.partitioned.partition_count", "4"),
                  Map.entry("dataset.partitioned.max_changes_per_chunk", "5000"),
                  Map.entry("dataset.chunk.max_bytes", Long.toString(CHUNK_MAX_BYTES)),
                  Map.entry("snapshot.mode", "initial"),
                  Map.entry("spill.threshold.bytes", Integer.toString(1 << 20)),
                  Map.entry("topic.creation.default.partitions", "-1"),
                  Map.entry("topic.creation.default.replication.factor", "-1"),
                  Map.entry("topic.creation.default.max.message.bytes", ASKED_MAX_MESSAGE_BYTES)));
      await().atMost(SourceConnectorIT.WAIT).until(() -> markers(strict) >= 1);

      // the stream: small rows staged in a spilled transaction, then 100 kB and 5 MB rows
      db.executeInTransaction(
          "INSERT INTO doc SELECT g, repeat(md5(g::text), 3200) FROM generate_series(1001, 1012) g",
          "INSERT INTO doc SELECT g, 'small ' || g FROM generate_series(1013, 1030) g",
          "INSERT INTO doc SELECT g, repeat(md5(g::text), 3200) FROM generate_series(1031, 1060) g",
          "INSERT INTO doc VALUES (1061, repeat('z', 5 * 1024 * 1024))",
          "UPDATE doc SET body = 'was 5 MB' WHERE id = 121");
      await().atMost(SourceConnectorIT.WAIT).until(() -> markers(strict) >= 2);

      ConnectorStatus status = STACK.rest().status(name);
      assertThat(status.isRunning(1)).as("task RUNNING: %s", status.firstTrace()).isTrue();
      assertThat(maxMessageBytes(strict)).isEqualTo(ASKED_MAX_MESSAGE_BYTES);
      assertThat(maxMessageBytes(lanes)).isEqualTo(ASKED_MAX_MESSAGE_BYTES);

      List<KafkaRecord> barriers = STACK.broker().readAll(strict);
      List<KafkaRecord> chunkRecords = STACK.broker().readAll(lanes);
      List<KafkaRecord> all = new ArrayList<>(barriers);
      all.addAll(chunkRecords);
      assertThat(all)
          .allSatisfy(
              r -> {
                assertThat((long) r.value().length).isLessThanOrEqualTo(CHUNK_MAX_BYTES);
                assertThat(recordBytes(r)).isLessThanOrEqualTo(ANNOUNCED);
              });
      assertThat(chunkRecords)
          .as("the 5 MB rows travelled, each in a chunk of its own")
          .filteredOn(r -> r.value().length > 5 << 20)
          .hasSize(3);

      assertThat(barriers)
          .extracting(r -> r.headerAsString(MessageKind.HEADER))
          .containsExactly("manifest", "commit_marker", "manifest", "commit_marker");
      long[] expected = {400, 62};
      for (int i = 0; i < 2; i++) {
        TransactionManifest m = TrellaraCodec.decodeManifest(barriers.get(2 * i).value());
        TransactionCommitMarker k =
            TrellaraCodec.decodeCommitMarker(barriers.get(2 * i + 1).value());
        List<PartitionChunk> chunks =
            chunkRecords.stream()
                .map(r -> TrellaraCodec.decodeChunk(r.value()))
                .filter(c -> c.getTransactionId().equals(m.getTransactionId()))
                .toList();
        BarrierVerifier.verify(m, k, chunks);
        assertThat(m.getGlobalEventCount()).isEqualTo(expected[i]);
        // a lane holding a 5 MB row and 100 kB rows outgrows 6 MB long before 5,000 changes
        assertThat(chunks)
            .as("lanes cut by bytes")
            .anySatisfy(c -> assertThat(c.getChunkSequence()).isPositive());
      }
      assertThat(TrellaraCodec.decodeManifest(barriers.get(0).value()).getTransactionId())
          .isEqualTo("snapshot");
    }
  }
}
