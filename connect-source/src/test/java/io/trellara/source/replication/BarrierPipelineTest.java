package io.trellara.source.replication;

import static io.trellara.source.capture.SyntheticStream.begin;
import static io.trellara.source.capture.SyntheticStream.commit;
import static io.trellara.source.capture.SyntheticStream.ddl;
import static io.trellara.source.capture.SyntheticStream.delete;
import static io.trellara.source.capture.SyntheticStream.insert;
import static io.trellara.source.capture.SyntheticStream.relation;
import static io.trellara.source.capture.SyntheticStream.truncate;
import static io.trellara.source.capture.SyntheticStream.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.identity.ColumnType;
import io.trellara.identity.OwnershipRouting;
import io.trellara.identity.RowIdentityDomain;
import io.trellara.identity.RowIdentityEncoder;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.source.capture.CaptureException;
import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import io.trellara.source.routing.OwnershipKeys;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BarrierPipelineTest {
  private static final long ACCOUNTS = 16_400;
  private static final int LANES = 4;
  private static final String DDL_JSON =
      "{\"command_tag\": \"ALTER TABLE\", \"object_type\": \"table\","
          + " \"object_identity\": \"public.accounts\", \"schema_name\": \"public\","
          + " \"statement\": \"ALTER TABLE accounts ADD COLUMN x int\", \"search_path\": \"public\","
          + " \"relations\": \"\\\"public\\\".\\\"accounts\\\":16400\", \"temporary\": \"false\","
          + " \"role\": \"app_owner\", \"session_user\": \"app_owner\"}";

  @TempDir Path spill;

  private final List<Outbound> out = new ArrayList<>();

  private TransactionPipeline pipeline(BoundarySettings boundary, long spillThreshold) {
    SourceSettings s =
        new SourceSettings(
            null,
            "pg-test",
            "testdb",
            "flow",
            "slot",
            "pub",
            false,
            List.of(),
            2,
            true,
            1000,
            600_000,
            0,
            true,
            false,
            spill,
            spillThreshold,
            1 << 20,
            16,
            1 << 20,
            boundary,
            CapturedTables.NONE.withDdlRoles(Set.of("app_owner")));
    return StrictPipeline.factory(s).apply(out::add);
  }

  private static BoundarySettings chunked(int maxEvents) {
    return new BoundarySettings(
        false,
        maxEvents,
        1_000_000,
        0,
        OwnershipKeys.none(),
        NullKeyPolicy.ROUTE_TO_SINGLETON_PARTITION,
        KeyChangePolicy.EMIT_MOVE);
  }

  private static BoundarySettings partitioned(NullKeyPolicy nulls, KeyChangePolicy moves) {
    return new BoundarySettings(
        true,
        3,
        1_000_000,
        LANES,
        OwnershipKeys.parse(List.of("public.accounts:tenant")),
        nulls,
        moves);
  }

  private static void feed(TransactionPipeline p, PgOutputMessage... messages) {
    for (PgOutputMessage m : messages) {
      p.accept(m, null, 0x100);
    }
  }

  private static PgOutputMessage accounts() {
    return relation(0, ACCOUNTS, "accounts", 'd', "tenant:23:k", "id:23:k", "balance:23");
  }

  private static int laneOf(int tenant) {
    byte[] key =
        RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(ColumnType.of(23)))
            .encodeStrings(Integer.toString(tenant));
    return OwnershipRouting.partitionFor(key, LANES);
  }

  private static TransactionManifest verifiedBarrier(List<Outbound> records) {
    return PublishedBarrier.verified(records).manifest();
  }

  @Test
  void strictChunkingCutsEveryTransactionIntoIndexedChunksThenManifestThenMarker() {
    try (TransactionPipeline p = pipeline(chunked(3), 1 << 20)) {
      feed(p, accounts(), begin(0x2000, 700));
      for (int i = 1; i <= 7; i++) {
        feed(p, insert(0, ACCOUNTS, "1", Integer.toString(i), "100"));
      }
      feed(p, ddl(0, DDL_JSON), commit(0x2000));
      feed(
          p, begin(0x3000, 701), insert(0, ACCOUNTS, "1", "99", "5"), commit(0x3000)); // one change
    }
    List<Outbound> first = out.stream().filter(o -> o.sequence() == 1).toList();
    assertThat(first)
        .extracting(Outbound::kind)
        .containsExactly(
            MessageKind.CHUNK,
            MessageKind.CHUNK,
            MessageKind.CHUNK,
            MessageKind.MANIFEST,
            MessageKind.COMMIT_MARKER);
    assertThat(first)
        .allSatisfy(o -> assertThat(o.destination()).isEqualTo(Outbound.Destination.STRICT));
    assertThat(first)
        .extracting(Outbound::closesTransaction)
        .containsExactly(false, false, false, false, true);
    assertThat(first.get(4).counts().render()).isEqualTo("dml=7 ddl=1 source_total=8");
    assertThat(first.get(0).boundaryMode()).isEqualTo("strict_chunked_transaction_order");
    TransactionManifest m = verifiedBarrier(first);
    assertThat(m.getBoundaryMode())
        .isEqualTo(ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER);
    assertThat(m.getPartitionsList()).extracting(pe -> pe.getId()).containsExactly(0, 1, 2);
    // even a one-change transaction is a barrier
    List<Outbound> second = out.stream().filter(o -> o.sequence() == 2).toList();
    assertThat(second)
        .extracting(Outbound::kind)
        .containsExactly(MessageKind.CHUNK, MessageKind.MANIFEST, MessageKind.COMMIT_MARKER);
    verifiedBarrier(second);
  }

  @Test
  void aSpilledTransactionStreamsItsChunksFromTheSpillFile() {
    try (TransactionPipeline p = pipeline(chunked(500), 4_096)) {
      feed(p, accounts(), begin(0x2000, 700));
      for (int i = 1; i <= 5_000; i++) {
        feed(p, insert(0, ACCOUNTS, "1", Integer.toString(i), "100"));
      }
      feed(p, commit(0x2000));
      assertThat(p.spilledTransactions()).isEqualTo(1);
    }
    assertThat(out.stream().filter(o -> o.kind() == MessageKind.CHUNK)).hasSize(10);
    assertThat(verifiedBarrier(out).getGlobalEventCount()).isEqualTo(5_000);
  }

  @Test
  void partitionedRoutesByOwnershipKeyAndNumbersEachLane() {
    try (TransactionPipeline p =
        pipeline(
            partitioned(NullKeyPolicy.ROUTE_TO_DEAD_LETTER_PARTITION, KeyChangePolicy.EMIT_MOVE),
            1 << 20)) {
      feed(p, accounts(), begin(0x2000, 700));
      for (int t = 1; t <= 12; t++) {
        feed(p, insert(0, ACCOUNTS, Integer.toString(t), "1", "100"));
      }
      feed(p, truncate(0, ACCOUNTS), ddl(0, DDL_JSON), commit(0x2000));
    }
    Map<Integer, List<ChangeRecord>> byLane = new TreeMap<>();
    for (Outbound o : out) {
      if (o.kind() == MessageKind.CHUNK) {
        assertThat(o.destination()).isEqualTo(Outbound.Destination.PARTITIONED);
        PartitionChunk c = TrellaraCodec.decodeChunk(((EncodedMessage) o.value()).bytes());
        assertThat(c.getPartitionId()).isEqualTo(o.partition());
        byLane.computeIfAbsent(o.partition(), k -> new ArrayList<>()).addAll(c.getChangesList());
      } else {
        assertThat(o.destination()).isEqualTo(Outbound.Destination.STRICT);
      }
    }
    byLane.forEach(
        (lane, changes) -> {
          for (int i = 0; i < changes.size(); i++) {
            ChangeRecord c = changes.get(i);
            assertThat(c.getPartitionOrder()).isEqualTo(i + 1);
            if (c.getOperation() == Operation.OPERATION_INSERT) {
              assertThat(laneOf(Integer.parseInt(c.getAfter().getColumns(0).getText())))
                  .isEqualTo(lane);
            } else {
              assertThat(lane).isZero(); // the truncate has no row: lane 0, not the dead letter
            }
          }
        });
    TransactionManifest m = verifiedBarrier(out);
    assertThat(m.getPartitionCount()).isEqualTo(LANES);
    assertThat(m.getGlobalEventCount()).isEqualTo(14);
    assertThat(m.getDdlEventCount()).isEqualTo(1);
  }

  @Test
  void aKeyChangeUnderEmitMoveIsADeleteInTheOldLaneAndAnInsertInTheNew() {
    int from = 1;
    int to = 2;
    while (laneOf(to) == laneOf(from)) {
      to++;
    }
    String[] oldKey = {Integer.toString(from), "7", null}; // K tuples: non-key columns null
    int newLane = laneOf(to);
    try (TransactionPipeline p =
        pipeline(partitioned(NullKeyPolicy.QUARANTINE, KeyChangePolicy.EMIT_MOVE), 1 << 20)) {
      feed(
          p,
          accounts(),
          begin(0x2000, 700),
          insert(0, ACCOUNTS, "5", "5", "1"),
          update(0, ACCOUNTS, 'K', oldKey, Integer.toString(to), "7", "250"),
          delete(0, ACCOUNTS, 'K', "5", "5", null),
          commit(0x2000));
    }
    TransactionManifest m = verifiedBarrier(out);
    assertThat(m.getGlobalEventCount()).isEqualTo(4); // 3 captured changes, the move counts twice
    List<ChangeRecord> all = new ArrayList<>();
    for (Outbound o : out) {
      if (o.kind() == MessageKind.CHUNK) {
        PartitionChunk c = TrellaraCodec.decodeChunk(((EncodedMessage) o.value()).bytes());
        c.getChangesList()
            .forEach(
                r -> {
                  all.add(r);
                  if (r.getTotalOrder() == 2) {
                    assertThat(r.getOperation()).isEqualTo(Operation.OPERATION_DELETE);
                    assertThat(c.getPartitionId()).isEqualTo(laneOf(from));
                  }
                  if (r.getTotalOrder() == 3) {
                    assertThat(r.getOperation()).isEqualTo(Operation.OPERATION_INSERT);
                    assertThat(r.hasBefore()).isFalse();
                    assertThat(c.getPartitionId()).isEqualTo(newLane);
                  }
                });
      }
    }
    assertThat(all)
        .extracting(ChangeRecord::getTotalOrder)
        .containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
    assertThat(all)
        .allSatisfy(r -> assertThat(r.getIdempotencyKey()).endsWith(":" + r.getTotalOrder()));
  }

  @Test
  void aKeyChangeUnderQuarantineFailsClosedNamingTheEvent() {
    int to = 2;
    while (laneOf(to) == laneOf(1)) {
      to++;
    }
    int target = to;
    try (TransactionPipeline p =
        pipeline(partitioned(NullKeyPolicy.QUARANTINE, KeyChangePolicy.QUARANTINE), 1 << 20)) {
      feed(p, accounts(), begin(0x2000, 700));
      assertThatThrownBy(
              () ->
                  feed(
                      p,
                      update(
                          0,
                          ACCOUNTS,
                          'K',
                          new String[] {"1", "7", null},
                          Integer.toString(target),
                          "7",
                          "250"),
                      commit(0x2000)))
          .isInstanceOfSatisfying(
              CaptureException.class,
              e -> {
                assertThat(e.rule()).isEqualTo("ownership_key_change");
                assertThat(e.getMessage())
                    .contains("pg-test:0/2000:700:1")
                    .contains("public.accounts");
              });
    }
    assertThat(out).isEmpty();
  }

  /** A row whose ownership value is NULL is what the null-key policy is for. */
  @Test
  void aRowWithoutAnOwnershipValueIsPlacedByTheNullKeyPolicy() {
    try (TransactionPipeline p =
        pipeline(partitioned(NullKeyPolicy.QUARANTINE, KeyChangePolicy.EMIT_MOVE), 1 << 20)) {
      feed(p, accounts(), begin(0x2000, 700), truncate(0, ACCOUNTS)); // rowless: no refusal
      assertThatThrownBy(() -> feed(p, insert(0, ACCOUNTS, null, "1", "1"), commit(0x2000)))
          .isInstanceOfSatisfying(
              CaptureException.class,
              e -> {
                assertThat(e.rule()).isEqualTo("null_ownership_key");
                assertThat(e.getMessage())
                    .contains("has no ownership key value (COLUMN_STATE_NULL)");
              });
    }
    assertThat(out).isEmpty(); // nothing of the transaction left
    try (TransactionPipeline p =
        pipeline(
            partitioned(NullKeyPolicy.ROUTE_TO_DEAD_LETTER_PARTITION, KeyChangePolicy.EMIT_MOVE),
            1 << 20)) {
      feed(p, accounts(), begin(0x2000, 700), insert(0, ACCOUNTS, null, "1", "1"), commit(0x2000));
    }
    assertThat(out.stream().filter(o -> o.kind() == MessageKind.CHUNK))
        .extracting(Outbound::partition)
        .containsOnly(LANES - 1);
  }

  /** Rowless events are not rows without a key: lane 0 under every null-key policy. */
  @Test
  void everyNullKeyPolicyPlacesRowlessEventsOnLaneZero() {
    for (NullKeyPolicy policy : NullKeyPolicy.values()) {
      out.clear();
      try (TransactionPipeline p =
          pipeline(partitioned(policy, KeyChangePolicy.EMIT_MOVE), 1 << 20)) {
        feed(
            p,
            accounts(),
            begin(0x2000, 700),
            truncate(0, ACCOUNTS),
            ddl(0, DDL_JSON),
            commit(0x2000));
      }
      assertThat(out.stream().filter(o -> o.kind() == MessageKind.CHUNK))
          .extracting(Outbound::partition)
          .as(policy.configName())
          .containsOnly(0);
      verifiedBarrier(out);
    }
  }

  @Test
  void anEmptyTransactionPublishesNoBarrier() {
    try (TransactionPipeline p = pipeline(chunked(10), 1 << 20)) {
      feed(p, accounts(), begin(0x2000, 700), commit(0x2000));
    }
    assertThat(out).isEmpty();
  }
}
