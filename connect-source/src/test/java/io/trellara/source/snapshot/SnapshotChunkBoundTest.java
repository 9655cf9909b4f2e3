package io.trellara.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.source.capture.ChunkTooLargeException;
import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.replication.BarrierPipeline;
import io.trellara.source.replication.BoundarySettings;
import io.trellara.source.replication.Outbound;
import io.trellara.source.replication.PublishedBarrier;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.replication.StrictPipeline;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import io.trellara.source.routing.OwnershipKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot's path: COPY rows of 100 kB and 5 MB become lane chunks that are cut by bytes as
 * well as by changes, within the bound the flow announces (partitioned: {@code
 * dataset.chunk.max_bytes}; a plain strict flow: its envelope cap), and a row too large for a chunk
 * of its own is refused with the setting to raise.
 */
class SnapshotChunkBoundTest {
  private static final long CONSISTENT_POINT = 0x3_0000_0028L;
  private static final int ENVELOPE_CAP = 64 * 1024 * 1024 - 16 * 1024;

  @TempDir Path spill;

  private final List<Outbound> out = new ArrayList<>();

  private BarrierPipeline pipeline(BoundarySettings boundary) {
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
            ENVELOPE_CAP,
            16,
            1 << 20,
            boundary,
            CapturedTables.NONE);
    return StrictPipeline.snapshotFactory(s).apply(out::add);
  }

  private static BoundarySettings partitioned(long chunkBytes) {
    return new BoundarySettings(
        true,
        5_000,
        chunkBytes,
        4,
        OwnershipKeys.none(),
        NullKeyPolicy.ROUTE_TO_SINGLETON_PARTITION,
        KeyChangePolicy.EMIT_MOVE);
  }

  private static SnapshotTable docs() {
    return new SnapshotTable(
        16_384,
        "public",
        "docs",
        'd',
        false,
        0,
        null,
        List.of(
            new SnapshotTable.Column("id", 23, -1, true),
            new SnapshotTable.Column("body", 25, -1, false)),
        List.of(new SnapshotTable.KeyColumn(0, "integer")));
  }

  /** Publishes the snapshot of {@code docs} with one row per body length. */
  private void snapshot(BoundarySettings boundary, int... bodyLengths) {
    try (BarrierPipeline p = pipeline(boundary)) {
      BarrierPipeline.Publication snapshot = p.snapshot(CONSISTENT_POINT, 1_767_225_600_000L);
      SnapshotEvents events = new SnapshotEvents("pg-test", CONSISTENT_POINT, snapshot.events());
      events.table(docs());
      for (int i = 0; i < bodyLengths.length; i++) {
        byte[] row = ((i + 1) + "\t" + "b".repeat(bodyLengths[i]) + "\n").getBytes(UTF8);
        events.row(row, row.length, true);
      }
      snapshot.commit();
    }
  }

  private static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  private static int size(Outbound o) {
    return ((EncodedMessage) o.value()).bytes().length;
  }

  private List<Outbound> chunks() {
    return out.stream().filter(o -> o.kind() == MessageKind.CHUNK).toList();
  }

  private static int[] lengths(int rows, int each) {
    int[] l = new int[rows];
    java.util.Arrays.fill(l, each);
    return l;
  }

  @Test
  void aPartitionedSnapshotOf100kBRowsIsCutByBytesWithinTheBound() {
    snapshot(partitioned(1_000_000), lengths(300, 100 * 1024));
    assertThat(chunks()).hasSizeGreaterThanOrEqualTo(30);
    assertThat(out).allSatisfy(o -> assertThat(size(o)).isLessThanOrEqualTo(1_000_000));
    assertThat(PublishedBarrier.verified(out).manifest().getGlobalEventCount()).isEqualTo(300);
  }

  @Test
  void aPartitionedSnapshotCarriesA5MbRowAloneWhenTheBoundAdmitsIt() {
    int[] rows = lengths(60, 100 * 1024);
    rows[30] = 5 << 20;
    snapshot(partitioned(8_000_000), rows);
    assertThat(out).allSatisfy(o -> assertThat(size(o)).isLessThanOrEqualTo(8_000_000));
    assertThat(PublishedBarrier.verified(out).manifest().getGlobalEventCount()).isEqualTo(60);
  }

  @Test
  void aPartitionedSnapshotRefusesARowTooLargeForAChunkOfItsOwnNamingTheSetting() {
    int[] rows = lengths(20, 100 * 1024);
    rows[10] = 5 << 20;
    assertThatThrownBy(() -> snapshot(partitioned(1_000_000), rows))
        .isInstanceOfSatisfying(
            ChunkTooLargeException.class,
            e -> {
              assertThat(e.rule()).isEqualTo(ChunkTooLargeException.EVENT_TOO_LARGE);
              assertThat(e.setting()).isEqualTo("dataset.chunk.max_bytes");
              assertThat(e.field()).isEqualTo("total_order 11");
            })
        .hasMessageContaining("a change of public.docs")
        .hasMessageContaining("pg-test/testdb:3/28:snapshot");
    assertThat(out).noneMatch(o -> o.kind() == MessageKind.MANIFEST);
  }

  /**
   * A plain strict flow publishes its snapshot in 1 MB chunks, but announces its envelope cap as
   * its largest record: a 5 MB row travels alone, the other chunks stay at 1 MB.
   */
  @Test
  void aPlainStrictSnapshotCarriesA5MbRowAloneWithinTheEnvelopeCap() {
    int[] rows = lengths(40, 100 * 1024);
    rows[20] = 5 << 20;
    snapshot(BoundarySettings.strict(), rows);
    List<Outbound> chunks = chunks();
    assertThat(chunks).filteredOn(c -> size(c) > 1_000_000).singleElement();
    assertThat(chunks).allSatisfy(c -> assertThat(size(c)).isLessThanOrEqualTo(ENVELOPE_CAP));
    assertThat(PublishedBarrier.verified(out).manifest().getGlobalEventCount()).isEqualTo(40);
  }
}
