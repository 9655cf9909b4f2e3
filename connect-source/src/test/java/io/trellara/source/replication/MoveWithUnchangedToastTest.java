package io.trellara.source.replication;

import static io.trellara.source.capture.SyntheticStream.TOAST;
import static io.trellara.source.capture.SyntheticStream.begin;
import static io.trellara.source.capture.SyntheticStream.commit;
import static io.trellara.source.capture.SyntheticStream.relation;
import static io.trellara.source.capture.SyntheticStream.update;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.identity.ColumnType;
import io.trellara.identity.OwnershipRouting;
import io.trellara.identity.RowIdentityDomain;
import io.trellara.identity.RowIdentityEncoder;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import io.trellara.source.routing.OwnershipKeys;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * emit_move of an update that left a TOASTed column unsent ('u'): under REPLICA IDENTITY FULL the
 * insert half takes the value from the old row and is a complete insert; under DEFAULT the insert
 * half keeps the column UNCHANGED_TOAST and carries the old key as its before, for the sink to
 * carry the value over from the row the delete half removes. Neither stops the task.
 */
class MoveWithUnchangedToastTest {
  private static final long DOCS = 16_500;
  private static final int LANES = 4;
  private static final String BIG = "0123456789abcdef".repeat(6400); // 100 kB

  @TempDir Path spill;

  private final List<Outbound> out = new ArrayList<>();

  private TransactionPipeline pipeline() {
    BoundarySettings boundary =
        new BoundarySettings(
            true,
            100,
            1_000_000,
            LANES,
            OwnershipKeys.parse(List.of("public.docs:tenant")),
            NullKeyPolicy.QUARANTINE,
            KeyChangePolicy.EMIT_MOVE);
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
            1 << 20,
            1 << 20,
            16,
            1 << 20,
            boundary,
            CapturedTables.NONE);
    return StrictPipeline.factory(s).apply(out::add);
  }

  private static PgOutputMessage docs(char identity) {
    return relation(0, DOCS, "docs", identity, "tenant:23:k", "id:23:k", "title:25", "body:25");
  }

  private static int laneOf(int tenant) {
    byte[] key =
        RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(ColumnType.of(23)))
            .encodeStrings(Integer.toString(tenant));
    return OwnershipRouting.partitionFor(key, LANES);
  }

  private static int otherLaneThan(int tenant) {
    int to = tenant + 1;
    while (laneOf(to) == laneOf(tenant)) {
      to++;
    }
    return to;
  }

  /** The published changes by total_order, each with the lane (chunk partition) it went to. */
  private TreeMap<Long, Object[]> published() {
    PublishedBarrier.verified(out);
    TreeMap<Long, Object[]> byOrder = new TreeMap<>();
    for (Outbound o : out) {
      if (o.kind() == MessageKind.CHUNK) {
        PartitionChunk c = TrellaraCodec.decodeChunk(((EncodedMessage) o.value()).bytes());
        for (ChangeRecord r : c.getChangesList()) {
          byOrder.put(r.getTotalOrder(), new Object[] {c.getPartitionId(), r});
        }
      }
    }
    return byOrder;
  }

  @Test
  void underDefaultIdentityTheInsertHalfKeepsTheMarkerAndCarriesTheOldKey() {
    int to = otherLaneThan(1);
    try (TransactionPipeline p = pipeline()) {
      p.accept(docs('d'), null, 0x100);
      p.accept(begin(0x2000, 700), null, 0x100);
      p.accept(
          update(
              0,
              DOCS,
              'K',
              new String[] {"1", "7", null, null},
              Integer.toString(to),
              "7",
              "renamed",
              TOAST),
          null,
          0x100);
      p.accept(commit(0x2000), null, 0x100);
    }
    TreeMap<Long, Object[]> changes = published();
    assertThat(changes).containsOnlyKeys(1L, 2L);
    ChangeRecord delete = (ChangeRecord) changes.get(1L)[1];
    ChangeRecord insert = (ChangeRecord) changes.get(2L)[1];
    assertThat(changes.get(1L)[0]).isEqualTo(laneOf(1));
    assertThat(changes.get(2L)[0]).isEqualTo(laneOf(to));
    assertThat(delete.getOperation()).isEqualTo(Operation.OPERATION_DELETE);
    assertThat(delete.hasAfter()).isFalse();
    assertThat(delete.getBefore().getColumns(0).getText()).isEqualTo("1");
    assertThat(insert.getOperation()).isEqualTo(Operation.OPERATION_INSERT);
    assertThat(insert.getReplicaIdentity()).isEqualTo(ReplicaIdentity.REPLICA_IDENTITY_DEFAULT);
    assertThat(insert.getAfter().getColumns(0).getText()).isEqualTo(Integer.toString(to));
    assertThat(insert.getAfter().getColumns(2).getText()).isEqualTo("renamed");
    assertThat(insert.getAfter().getColumns(3).getState())
        .isEqualTo(ColumnState.COLUMN_STATE_UNCHANGED_TOAST);
    assertThat(insert.hasBefore()).isTrue();
    assertThat(insert.getBefore()).isEqualTo(delete.getBefore()); // the row the delete removes
    assertThat(insert.getIdempotencyKey()).endsWith(":2");
  }

  /**
   * An old tuple 'O' (the whole old row, as REPLICA IDENTITY FULL sends it: PostgreSQL inlines its
   * TOASTed values). The relation keeps its key flags here: routing a FULL table by its primary
   * key, which the Relation message of a FULL table does not flag, is requirement 2 of issue 34.
   */
  @Test
  void whenTheOldImageIsTheWholeRowTheInsertHalfTakesTheValueFromIt() {
    int to = otherLaneThan(1);
    try (TransactionPipeline p = pipeline()) {
      p.accept(docs('d'), null, 0x100);
      p.accept(begin(0x2000, 700), null, 0x100);
      p.accept(
          update(
              0,
              DOCS,
              'O',
              new String[] {"1", "7", "old title", BIG},
              Integer.toString(to),
              "7",
              "renamed",
              TOAST),
          null,
          0x100);
      p.accept(commit(0x2000), null, 0x100);
    }
    TreeMap<Long, Object[]> changes = published();
    assertThat(changes).containsOnlyKeys(1L, 2L);
    ChangeRecord delete = (ChangeRecord) changes.get(1L)[1];
    ChangeRecord insert = (ChangeRecord) changes.get(2L)[1];
    assertThat(changes.get(1L)[0]).isEqualTo(laneOf(1));
    assertThat(changes.get(2L)[0]).isEqualTo(laneOf(to));
    assertThat(delete.getOperation()).isEqualTo(Operation.OPERATION_DELETE);
    assertThat(delete.getBefore().getColumns(3).getText()).isEqualTo(BIG);
    assertThat(insert.getOperation()).isEqualTo(Operation.OPERATION_INSERT);
    assertThat(insert.hasBefore()).as("a complete insert needs no old image").isFalse();
    assertThat(insert.getAfter().getColumnsList())
        .extracting(v -> v.getState(), v -> v.getText())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                ColumnState.COLUMN_STATE_VALUE, Integer.toString(to)),
            org.assertj.core.groups.Tuple.tuple(ColumnState.COLUMN_STATE_VALUE, "7"),
            org.assertj.core.groups.Tuple.tuple(ColumnState.COLUMN_STATE_VALUE, "renamed"),
            org.assertj.core.groups.Tuple.tuple(ColumnState.COLUMN_STATE_VALUE, BIG));
  }

  @Test
  void aMoveWithoutUnsentColumnsIsACompleteInsertWithoutAnOldImage() {
    int to = otherLaneThan(1);
    try (TransactionPipeline p = pipeline()) {
      p.accept(docs('d'), null, 0x100);
      p.accept(begin(0x2000, 700), null, 0x100);
      p.accept(
          update(
              0,
              DOCS,
              'K',
              new String[] {"1", "7", null, null},
              Integer.toString(to),
              "7",
              "t",
              "small body"),
          null,
          0x100);
      p.accept(commit(0x2000), null, 0x100);
    }
    ChangeRecord insert = (ChangeRecord) published().get(2L)[1];
    assertThat(insert.getOperation()).isEqualTo(Operation.OPERATION_INSERT);
    assertThat(insert.hasBefore()).isFalse();
    assertThat(insert.getAfter().getColumns(3).getText()).isEqualTo("small body");
  }
}
