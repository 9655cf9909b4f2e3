package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** Strict chunked and partitioned publication from a real PostgreSQL through a real worker. */
@EitherPlatform
class BoundaryModesIT {
  static final TrellaraStack STACK = SourceConnectorIT.STACK;
  static final Duration WAIT = Duration.ofSeconds(90);

  private static String header(KafkaRecord r, String name) {
    byte[] v = r.header(name);
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  private static long confirmedFlush(PostgresDatabase db, String slot) {
    String lsn =
        db.queryString(
            "SELECT coalesce(confirmed_flush_lsn::text, '0/0') FROM pg_replication_slots"
                + " WHERE slot_name = '"
                + slot
                + "'");
    return Lsn.parse(lsn).value();
  }

  @Test
  void strictChunkingPublishesChunksManifestAndMarkerForEveryTransactionAndAcknowledgesAtTheMarker()
      throws Exception {
    try (TestScope scope = STACK.newScope("strictChunked")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute("CREATE TABLE item (id bigint PRIMARY KEY, note text)");
      String topic = scope.createTopic("strict", 1);
      String name =
          SourceConnectorIT.deploy(
              scope,
              db,
              topic,
              "public.item",
              Map.of(
                  "dataset.strict_chunking.max_changes_per_chunk",
                  "2",
                  "spill.threshold.bytes",
                  "0"));
      db.executeInTransaction(
          "INSERT INTO item VALUES (1, 'a'), (2, 'b'), (3, 'c')",
          "ALTER TABLE item ADD COLUMN extra int",
          "INSERT INTO item VALUES (4, 'd', 4), (5, 'e', 5)");
      db.execute("INSERT INTO item VALUES (6, 'one change', 6)");

      await()
          .atMost(WAIT)
          .until(
              () ->
                  STACK.broker().readAll(topic).stream()
                          .filter(r -> "commit_marker".equals(header(r, MessageKind.HEADER)))
                          .count()
                      == 2);
      List<KafkaRecord> records = STACK.broker().readAll(topic);
      // transaction 1: 6 events in chunks of 2; transaction 2: one chunk
      assertThat(records)
          .extracting(r -> header(r, MessageKind.HEADER))
          .containsExactly(
              "chunk",
              "chunk",
              "chunk",
              "manifest",
              "commit_marker",
              "chunk",
              "manifest",
              "commit_marker");
      assertThat(records)
          .allSatisfy(
              r ->
                  assertThat(header(r, "trellara.boundary_mode"))
                      .isEqualTo("strict_chunked_transaction_order"));
      assertThat(header(records.get(4), "trellara.counts")).isEqualTo("dml=5 ddl=1 source_total=6");
      assertThat(new String(records.get(0).key(), StandardCharsets.UTF_8))
          .isEqualTo(new String(records.get(4).key(), StandardCharsets.UTF_8));

      TransactionManifest manifest = verify(records.subList(0, 5));
      assertThat(manifest.getBoundaryMode())
          .isEqualTo(ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER);
      assertThat(manifest.getPartitionsList()).extracting(p -> p.getId()).containsExactly(0, 1, 2);
      verify(records.subList(5, 8));

      // the slot is confirmed only once Kafka holds the whole barrier, and then it is
      long secondCommit =
          Lsn.parse(TrellaraCodec.decodeManifest(records.get(6).value()).getSourceCommitLsn())
              .value();
      await().atMost(WAIT).until(() -> confirmedFlush(db, scope.slotName()) > secondCommit);

      // operator surfaces speak the wire vocabulary; with a zero budget every change went through a
      // spill file
      ObjectName bean =
          new ObjectName("io.trellara:type=source-task,connector=" + name + ",task=0");
      MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
      assertThat(jmx.getAttribute(bean, "BoundaryMode"))
          .isEqualTo("strict_chunked_transaction_order");
      await().atMost(WAIT).until(() -> (Long) jmx.getAttribute(bean, "SpilledBytes") > 0);
      assertThat((Long) jmx.getAttribute(bean, "SpilledTransactions")).isEqualTo(2);
    }
  }

  @Test
  void partitionedModeRoutesLanesByOwnershipKeyAndPutsBarriersOnTheStrictTopicInCommitOrder() {
    try (TestScope scope = STACK.newScope("partitioned")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE account (tenant int, id int, balance bigint, PRIMARY KEY (tenant, id))");
      String strict = scope.createTopic("strict", 1);
      String lanes = scope.createTopic("lanes", 6);
      SourceConnectorIT.deploy(
          scope,
          db,
          strict,
          "public.account",
          Map.of(
              "dataset.mode",
              "partitioned_scale_mode",
              "topic.partitioned",
              lanes,
              "dataset.partitioned.partition_count",
              "6",
              "dataset.partitioned.ownership_keys",
              "public.account:tenant",
              "dataset.partitioned.max_changes_per_chunk",
              "4"));
      db.execute(
          "INSERT INTO account SELECT t, i, 100 FROM generate_series(1, 12) t, generate_series(1, 5) i");
      db.executeInTransaction(
          "UPDATE account SET balance = balance - 10 WHERE tenant = 1 AND id = 1",
          "UPDATE account SET balance = balance + 10 WHERE tenant = 2 AND id = 1",
          "UPDATE account SET tenant = 3, id = 99 WHERE tenant = 4 AND id = 5"); // an ownership
      // move

      await()
          .atMost(WAIT)
          .until(
              () ->
                  STACK.broker().readAll(strict).stream()
                          .filter(r -> "commit_marker".equals(header(r, MessageKind.HEADER)))
                          .count()
                      == 2);
      List<KafkaRecord> barriers = STACK.broker().readAll(strict);
      assertThat(barriers)
          .extracting(r -> header(r, MessageKind.HEADER))
          .containsExactly("manifest", "commit_marker", "manifest", "commit_marker");
      List<KafkaRecord> chunkRecords = STACK.broker().readAll(lanes);
      assertThat(chunkRecords)
          .allSatisfy(
              r -> {
                assertThat(header(r, MessageKind.HEADER)).isEqualTo("chunk");
                assertThat(TrellaraCodec.decodeChunk(r.value()).getPartitionId())
                    .isEqualTo(r.partition());
              });
      List<TransactionManifest> manifests = new ArrayList<>();
      for (int i = 0; i < barriers.size(); i += 2) {
        TransactionManifest m = TrellaraCodec.decodeManifest(barriers.get(i).value());
        TransactionCommitMarker k = TrellaraCodec.decodeCommitMarker(barriers.get(i + 1).value());
        List<PartitionChunk> chunks =
            chunkRecords.stream()
                .map(r -> TrellaraCodec.decodeChunk(r.value()))
                .filter(c -> c.getTransactionId().equals(m.getTransactionId()))
                .toList();
        BarrierVerifier.verify(m, k, chunks);
        assertThat(m.getBoundaryMode()).isEqualTo(ManifestBoundaryMode.PARTITIONED_SCALE_MODE);
        assertThat(m.getPartitionCount()).isEqualTo(6);
        manifests.add(m);
      }
      assertThat(Lsn.parse(manifests.get(0).getSourceCommitLsn()))
          .isLessThan(Lsn.parse(manifests.get(1).getSourceCommitLsn()));
      assertThat(manifests.get(0).getGlobalEventCount()).isEqualTo(60);
      assertThat(manifests.get(0).getPartitionsCount())
          .isGreaterThan(6); // lanes filled several chunks
      // the move: a delete and an insert, 4 events for 3 updates
      TransactionManifest second = manifests.get(1);
      assertThat(second.getGlobalEventCount()).isEqualTo(4);
      List<ChangeRecord> moved =
          chunkRecords.stream()
              .map(r -> TrellaraCodec.decodeChunk(r.value()))
              .filter(c -> c.getTransactionId().equals(second.getTransactionId()))
              .flatMap(c -> c.getChangesList().stream())
              .toList();
      assertThat(moved)
          .extracting(ChangeRecord::getOperation)
          .contains(Operation.OPERATION_DELETE, Operation.OPERATION_INSERT);
      assertThat(moved).allSatisfy(c -> assertThat(c.getPartitionOrder()).isPositive());
    }
  }

  /**
   * quarantine fails closed end to end: the task stops naming the rule and the event, nothing of it
   * is out. (A TRUNCATE or DDL is not a row without a key: null_key_policy=quarantine lets it
   * through, on lane 0; a row without an ownership value, from a nullable non-key ownership column
   * under REPLICA IDENTITY FULL, is shown in OwnershipByReplicaIdentityIT.)
   */
  @Test
  void quarantinePoliciesStopTheTaskNamingTheEventAndPublishNothingOfIt() {
    for (String[] c :
        new String[][] {
          {
            "dataset.partitioned.key_change_policy",
            "UPDATE account SET tenant = tenant + 100",
            "ownership_key_change"
          }
        }) {
      try (TestScope scope = STACK.newScope("quarantine")) {
        PostgresDatabase db = scope.sourceDatabase();
        db.execute(
            "CREATE TABLE account (tenant int, id int, balance bigint, PRIMARY KEY (tenant, id))",
            "INSERT INTO account SELECT t, 1, 100 FROM generate_series(1, 20) t");
        String strict = scope.createTopic("strict", 1);
        String lanes = scope.createTopic("lanes", 6);
        String name =
            SourceConnectorIT.deploy(
                scope,
                db,
                strict,
                "public.account",
                Map.of(
                    "dataset.mode",
                    "partitioned_scale_mode",
                    "topic.partitioned",
                    lanes,
                    "dataset.partitioned.ownership_keys",
                    "public.account:tenant",
                    c[0],
                    "quarantine",
                    "snapshot.mode",
                    "never")); // the seeded rows stay out of the record counts below
        db.execute(
            "INSERT INTO account VALUES (99, 1, 5)"); // a transaction the policy lets through
        await().atMost(WAIT).until(() -> STACK.broker().readAll(strict).size() == 2);
        db.execute(c[1]);
        String trace = STACK.rest().awaitFailed(name).firstTrace();
        assertThat(trace).as(c[2]).contains(c[2]).contains("public.account").contains("quarantine");
        // nothing of the refused transaction was published, the first one stays whole
        assertThat(STACK.broker().readAll(strict)).hasSize(2);
        assertThat(STACK.broker().readAll(lanes)).hasSize(1);
      }
    }
  }

  @Test
  void validateRefusesPlansThePartitionPlannerCannotKeep() {
    try (TestScope scope = STACK.newScope("partitionedValidate")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE account (tenant int, id int, region text, PRIMARY KEY (tenant, id))");
      Map<String, String> config =
          new java.util.HashMap<>(
              io.trellara.testplatform.ConnectorConfigs.source(
                  scope, db, "t", "public.account", Map.of()));
      config.put("dataset.mode", "partitioned_scale_mode");
      config.put("dataset.partitioned.ownership_keys", "public.account:region, public.missing:id");
      config.put("dataset.partitioned.key_change_policy", "forbid");
      config.put("dataset.strict_chunking.max_changes_per_chunk", "10");
      String messages =
          String.join(
              "\n",
              STACK
                  .rest()
                  .validate(io.trellara.testplatform.ConnectorConfigs.SOURCE_CLASS, config)
                  .messages());
      assertThat(messages)
          .contains("forbid is a declared policy name without a planner")
          .contains("Strict chunking is a sub-option of strict_transaction_order");

      // with the settings consistent, the live checks judge the ownership keys against the tables
      config.put("dataset.partitioned.key_change_policy", "emit_move");
      config.remove("dataset.strict_chunking.max_changes_per_chunk");
      messages =
          String.join(
              "\n",
              STACK
                  .rest()
                  .validate(io.trellara.testplatform.ConnectorConfigs.SOURCE_CLASS, config)
                  .messages());
      assertThat(messages)
          .contains("Ownership column \"region\" of public.account is not a primary-key column")
          .contains("public.missing, which is not captured");

      config.put("dataset.partitioned.ownership_keys", "public.account:tenant");
      assertThat(
              STACK
                  .rest()
                  .validate(io.trellara.testplatform.ConnectorConfigs.SOURCE_CLASS, config)
                  .errorCount())
          .isZero();
    }
  }

  private static TransactionManifest verify(List<KafkaRecord> barrier) {
    List<PartitionChunk> chunks = new ArrayList<>();
    TransactionManifest m = null;
    TransactionCommitMarker k = null;
    for (KafkaRecord r : barrier) {
      switch (header(r, MessageKind.HEADER)) {
        case "chunk" -> chunks.add(TrellaraCodec.decodeChunk(r.value()));
        case "manifest" -> m = TrellaraCodec.decodeManifest(r.value());
        case "commit_marker" -> k = TrellaraCodec.decodeCommitMarker(r.value());
        default -> throw new AssertionError(header(r, MessageKind.HEADER));
      }
    }
    BarrierVerifier.verify(m, k, chunks);
    return m;
  }
}
