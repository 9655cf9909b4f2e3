package io.trellara.source.connect;

import static io.trellara.source.connect.SourceConnectorIT.STACK;
import static io.trellara.source.connect.SourceConnectorIT.WAIT;
import static io.trellara.source.connect.SourceConnectorIT.deploy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * What each snapshot.mode publishes for a table that already holds rows, read back from the strict
 * topic.
 */
@EitherPlatform
class SnapshotModesIT {
  static final String TABLE = "CREATE TABLE item (id int PRIMARY KEY, note text)";
  static final String SEED =
      "INSERT INTO item SELECT g, 'seed ' || g FROM generate_series(1, 25000) g";

  @Test
  void initialPublishesTheRowsAsOneChunkedSnapshotTransactionThenStreamsFromItsConsistentPoint()
      throws Exception {
    try (TestScope scope = STACK.newScope("snapInitial")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(TABLE, SEED);
      String topic = scope.createTopic("strict", 1);
      String name = deploy(scope, db, topic, "public.item", Map.of());
      db.execute("INSERT INTO item VALUES (0, 'streamed')");
      await().atMost(WAIT).until(() -> kinds(topic).contains(MessageKind.ENVELOPE));
      List<KafkaRecord> records = STACK.broker().readAll(topic);
      // plain strict: the snapshot is chunked (at most 10,000 events or 1 MB a chunk), the streamed
      // insert an
      // envelope after its manifest and commit marker
      List<MessageKind> kinds = kinds(topic);
      int chunks = kinds.size() - 3;
      assertThat(chunks).isGreaterThanOrEqualTo(3);
      assertThat(kinds.subList(0, chunks)).containsOnly(MessageKind.CHUNK);
      assertThat(kinds.subList(chunks, kinds.size()))
          .containsExactly(MessageKind.MANIFEST, MessageKind.COMMIT_MARKER, MessageKind.ENVELOPE);
      long rows = 0;
      for (KafkaRecord r : records.subList(0, chunks)) {
        PartitionChunk c = TrellaraCodec.decodeChunk(r.value());
        assertThat(c.getTransactionId()).isEqualTo("snapshot");
        rows += c.getChangesCount();
      }
      assertThat(rows).isEqualTo(25_000);
      TransactionCommitMarker marker =
          TrellaraCodec.decodeCommitMarker(records.get(chunks + 1).value());
      TransactionEnvelope streamed = TrellaraCodec.decodeEnvelope(records.get(chunks + 2).value());
      assertThat(Lsn.parse(streamed.getCommitLsn()))
          .as("the stream continues after the consistent point")
          .isGreaterThan(Lsn.parse(marker.getSourceCommitLsn()));
      ObjectName bean =
          new ObjectName("io.trellara:type=source-task,connector=" + name + ",task=0");
      var jmx = ManagementFactory.getPlatformMBeanServer();
      assertThat(jmx.getAttribute(bean, "SnapshotState")).isEqualTo("COMPLETED");
      assertThat(jmx.getAttribute(bean, "SnapshotRows")).isEqualTo(25_000L);
      assertThat(jmx.getAttribute(bean, "SnapshotTablesDone")).isEqualTo(1L);
    }
  }

  @Test
  void neverPublishesOnlyWhatCommitsAfterTheSlot() {
    try (TestScope scope = STACK.newScope("snapNever")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(TABLE, SEED);
      String topic = scope.createTopic("strict", 1);
      deploy(scope, db, topic, "public.item", Map.of("snapshot.mode", "never"));
      db.execute("INSERT INTO item VALUES (0, 'streamed')");
      await().atMost(WAIT).until(() -> !STACK.broker().readAll(topic).isEmpty());
      assertThat(kinds(topic)).containsExactly(MessageKind.ENVELOPE);
    }
  }

  @Test
  void initialOnlyPublishesTheSnapshotAndNothingAfterItAndKeepsNoSlot() throws Exception {
    try (TestScope scope = STACK.newScope("snapOnly")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(TABLE, SEED);
      String topic = scope.createTopic("strict", 1);
      String name =
          deploy(scope, db, topic, "public.item", Map.of("snapshot.mode", "initial_only"));
      await().atMost(WAIT).until(() -> kinds(topic).contains(MessageKind.COMMIT_MARKER));
      await()
          .atMost(WAIT)
          .until(
              () ->
                  db.queryLong(
                          "SELECT count(*) FROM pg_replication_slots WHERE slot_name"
                              + " = '"
                              + scope.slotName()
                              + "'")
                      == 0);
      db.execute("INSERT INTO item VALUES (0, 'not streamed')");
      // a restart finds the snapshot's offset and has nothing to do either: no snapshot, and no
      // slot to stream
      // from, so nothing can be published after it
      STACK.rest().restartTask(name, 0);
      STACK.rest().awaitRunning(name);
      ObjectName bean =
          new ObjectName("io.trellara:type=source-task,connector=" + name + ",task=0");
      await()
          .atMost(WAIT)
          .ignoreExceptions()
          .until(
              () ->
                  "NOT_NEEDED"
                      .equals(
                          ManagementFactory.getPlatformMBeanServer()
                              .getAttribute(bean, "SnapshotState")));
      List<MessageKind> kinds = kinds(topic);
      assertThat(kinds.subList(kinds.size() - 2, kinds.size()))
          .as("nothing after the snapshot")
          .containsExactly(MessageKind.MANIFEST, MessageKind.COMMIT_MARKER);
      assertThat(kinds.subList(0, kinds.size() - 2)).containsOnly(MessageKind.CHUNK);
      assertThat(
              db.queryLong(
                  "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"
                      + scope.slotName()
                      + "'"))
          .isZero();
    }
  }

  @Test
  void whenNeededSnapshotsAgainWhenTheSlotIsGone() {
    try (TestScope scope = STACK.newScope("snapNeeded")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(TABLE, "INSERT INTO item SELECT g, 'seed' FROM generate_series(1, 100) g");
      String topic = scope.createTopic("strict", 1);
      String name = deploy(scope, db, topic, "public.item", Map.of("snapshot.mode", "when_needed"));
      await().atMost(WAIT).until(() -> kinds(topic).contains(MessageKind.COMMIT_MARKER));
      db.execute("INSERT INTO item VALUES (0, 'streamed')");
      await().atMost(WAIT).until(() -> kinds(topic).contains(MessageKind.ENVELOPE));
      STACK.rest().stop(name);
      STACK.rest().awaitState(name, "STOPPED");
      await().atMost(WAIT).until(() -> db.activeReplicationSlots(scope.slotName()) == 0);
      db.dropReplicationSlots(
          scope.slotName()); // an administrator dropped it (or it was invalidated)
      db.execute("INSERT INTO item VALUES (-1, 'lost with the slot')");
      STACK.rest().resume(name);
      STACK.rest().awaitRunning(name);
      await()
          .atMost(WAIT)
          .until(
              () -> kinds(topic).stream().filter(MessageKind.COMMIT_MARKER::equals).count() == 2);
      List<KafkaRecord> records = STACK.broker().readAll(topic);
      int lastChunk = records.size() - 3;
      PartitionChunk again = TrellaraCodec.decodeChunk(records.get(lastChunk).value());
      assertThat(again.getTransactionId()).isEqualTo("snapshot");
      assertThat(again.getChangesCount())
          .as("the new snapshot holds what the lost slot would have streamed")
          .isEqualTo(102);
    }
  }

  private static List<MessageKind> kinds(String topic) {
    return STACK.broker().readAll(topic).stream()
        .map(r -> MessageKind.fromWireName(r.headerAsString(MessageKind.HEADER)))
        .toList();
  }
}
