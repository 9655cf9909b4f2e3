package io.trellara.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.replication.BarrierPipeline;
import io.trellara.source.replication.BoundarySettings;
import io.trellara.source.replication.Outbound;
import io.trellara.source.replication.PublishedBarrier;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.replication.StrictPipeline;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot transaction of a plain strict flow, published as its rows are read: chunks leave
 * while rows are still coming (no spill, nothing held), and the manifest and commit marker at the
 * consistent point close a barrier a sink verifies like any other.
 */
class SnapshotPublicationTest {
  private static final long CONSISTENT_POINT = 0x3_0000_0028L;

  @TempDir Path spill;

  private final List<Outbound> out = new ArrayList<>();

  private BarrierPipeline pipeline() {
    BoundarySettings strict = BoundarySettings.strict();
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
            strict,
            CapturedTables.NONE);
    return StrictPipeline.snapshotFactory(s).apply(out::add);
  }

  private static SnapshotTable table(long oid, String name) {
    return new SnapshotTable(
        oid,
        "public",
        name,
        'd',
        false,
        0,
        null,
        List.of(
            new SnapshotTable.Column("id", 23, -1, true),
            new SnapshotTable.Column("note", 25, -1, false)),
        List.of(new SnapshotTable.KeyColumn(0, "integer")));
  }

  private static void row(SnapshotEvents events, String copyRow) {
    byte[] row = copyRow.getBytes(StandardCharsets.UTF_8);
    events.row(row, row.length, true);
  }

  @Test
  void chunksLeaveAsRowsAreReadAndTheBarrierClosesAtTheConsistentPoint() {
    int rows = 25_000; // more than one chunk of a plain strict flow's snapshot (10,000 events)
    try (BarrierPipeline p = pipeline()) {
      BarrierPipeline.Publication snapshot = p.snapshot(CONSISTENT_POINT, 1_767_225_600_000L);
      SnapshotEvents events = new SnapshotEvents("pg-test", CONSISTENT_POINT, snapshot.events());
      events.table(table(16_384, "a"));
      for (int i = 1; i <= rows; i++) {
        row(events, i + "\tnote " + i + "\n");
        if (i == 10_001) {
          assertThat(out)
              .as("a full chunk is published while rows are still read")
              .extracting(Outbound::kind)
              .containsExactly(MessageKind.CHUNK);
        }
      }
      events.table(table(16_390, "b"));
      row(events, "1\t\\N\n");
      snapshot.commit();
    }
    assertThat(out)
        .extracting(Outbound::kind)
        .containsExactly(
            MessageKind.CHUNK,
            MessageKind.CHUNK,
            MessageKind.CHUNK,
            MessageKind.MANIFEST,
            MessageKind.COMMIT_MARKER);
    assertThat(out.get(out.size() - 1).endLsn())
        .as("acknowledges the consistent point")
        .isEqualTo(CONSISTENT_POINT);
    PublishedBarrier barrier = PublishedBarrier.verified(out);
    TransactionManifest manifest = barrier.manifest();
    List<PartitionChunk> chunks = barrier.chunks();
    assertThat(manifest.getBoundaryMode())
        .isEqualTo(ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER);
    assertThat(manifest.getTransactionId()).isEqualTo("snapshot");
    assertThat(manifest.getSourceCommitLsn()).isEqualTo("3/28");
    assertThat(manifest.getGlobalEventCount()).isEqualTo(rows + 1);
    assertThat(chunks.get(0).getBeginLsn()).isEqualTo("3/28");
    assertThat(chunks.get(2).getChangesList())
        .last()
        .satisfies(
            c -> {
              assertThat(c.getRelation().getTable()).isEqualTo("b");
              assertThat(c.getTotalOrder()).isEqualTo(rows + 1);
              assertThat(c.getTableOrder()).isEqualTo(1);
            });
  }

  @Test
  void aSnapshotWithoutRowsPublishesNothing() {
    try (BarrierPipeline p = pipeline()) {
      BarrierPipeline.Publication snapshot = p.snapshot(CONSISTENT_POINT, 0);
      SnapshotEvents events = new SnapshotEvents("pg-test", CONSISTENT_POINT, snapshot.events());
      events.table(table(16_384, "empty"));
      snapshot.commit();
    }
    assertThat(out).as("a relay never publishes an empty barrier").isEmpty();
  }
}
