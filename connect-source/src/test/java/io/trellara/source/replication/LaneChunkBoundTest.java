package io.trellara.source.replication;

import static io.trellara.source.capture.SyntheticStream.begin;
import static io.trellara.source.capture.SyntheticStream.commit;
import static io.trellara.source.capture.SyntheticStream.insert;
import static io.trellara.source.capture.SyntheticStream.relation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.source.capture.ChunkTooLargeException;
import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import io.trellara.source.routing.OwnershipKeys;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stream's path: a committed transaction with large values, re-read (from its spill file) into
 * lane chunks that are cut by bytes as well as by changes, so none is larger than {@code
 * dataset.chunk.max_bytes}, the bound the source announces; a change too large for a chunk of its
 * own is refused by name with the setting to raise, and the transaction gets no barrier.
 */
class LaneChunkBoundTest {
  private static final long DOCS = 16_500;
  private static final int LANES = 4;
  private static final long BOUND = 1_000_000;

  @TempDir Path spill;

  private final List<Outbound> out = new ArrayList<>();

  private TransactionPipeline pipeline(long chunkBytes) {
    BoundarySettings partitioned =
        new BoundarySettings(
            true,
            5_000,
            chunkBytes,
            LANES,
            OwnershipKeys.none(),
            NullKeyPolicy.ROUTE_TO_SINGLETON_PARTITION,
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
            1 << 20, // the transactions below spill: the re-read comes from the file
            1 << 20,
            16,
            1 << 20,
            partitioned,
            CapturedTables.NONE.withDdlRoles(Set.of("app_owner")));
    return StrictPipeline.factory(s).apply(out::add);
  }

  private static void feed(TransactionPipeline p, PgOutputMessage... messages) {
    for (PgOutputMessage m : messages) {
      p.accept(m, null, 0x100);
    }
  }

  private static PgOutputMessage docs() {
    return relation(0, DOCS, "docs", 'd', "id:23:k", "body:25");
  }

  private static int size(Outbound o) {
    return ((EncodedMessage) o.value()).bytes().length;
  }

  @Test
  void lanesOf100kBRowsBelowTheirChangeLimitAreCutByBytesWithinTheBound() {
    try (TransactionPipeline p = pipeline(BOUND)) {
      feed(p, docs(), begin(0x2000, 700));
      for (int i = 1; i <= 200; i++) {
        feed(p, insert(0, DOCS, Integer.toString(i), "x".repeat(100 * 1024)));
      }
      feed(p, commit(0x2000));
      assertThat(p.spilledTransactions()).isEqualTo(1);
    }
    List<Outbound> chunks = out.stream().filter(o -> o.kind() == MessageKind.CHUNK).toList();
    // 200 rows of 100 kB in 4 lanes: about 20 MB, far below 5,000 changes a lane
    assertThat(chunks).hasSizeGreaterThanOrEqualTo(20);
    assertThat(chunks).allSatisfy(c -> assertThat((long) size(c)).isLessThanOrEqualTo(BOUND));
    assertThat(out.stream().filter(o -> o.kind() != MessageKind.CHUNK))
        .allSatisfy(c -> assertThat((long) size(c)).isLessThanOrEqualTo(BOUND));
    assertThat(PublishedBarrier.verified(out).manifest().getGlobalEventCount()).isEqualTo(200);
  }

  @Test
  void aFiveMegabyteRowTravelsAloneWhenTheBoundIsRaised() {
    long bound = 8_000_000;
    try (TransactionPipeline p = pipeline(bound)) {
      feed(p, docs(), begin(0x2000, 700));
      for (int i = 1; i <= 40; i++) {
        feed(p, insert(0, DOCS, Integer.toString(i), "y".repeat(100 * 1024)));
      }
      feed(p, insert(0, DOCS, "41", "z".repeat(5 << 20)), commit(0x2000));
    }
    List<Outbound> chunks = out.stream().filter(o -> o.kind() == MessageKind.CHUNK).toList();
    assertThat(chunks).allSatisfy(c -> assertThat((long) size(c)).isLessThanOrEqualTo(bound));
    assertThat(chunks).anySatisfy(c -> assertThat(size(c)).isGreaterThan(5 << 20));
    assertThat(PublishedBarrier.verified(out).manifest().getGlobalEventCount()).isEqualTo(41);
  }

  @Test
  void aRowTooLargeForAChunkOfItsOwnIsRefusedNamingTheSettingAndGetsNoBarrier() {
    try (TransactionPipeline p = pipeline(BOUND)) {
      feed(p, docs(), begin(0x2000, 700));
      feed(p, insert(0, DOCS, "1", "small"));
      feed(p, insert(0, DOCS, "2", "z".repeat(5 << 20)));
      assertThatThrownBy(() -> feed(p, commit(0x2000)))
          .isInstanceOfSatisfying(
              ChunkTooLargeException.class,
              e -> {
                assertThat(e.rule()).isEqualTo(ChunkTooLargeException.EVENT_TOO_LARGE);
                assertThat(e.setting()).isEqualTo("dataset.chunk.max_bytes");
                assertThat(e.field()).isEqualTo("total_order 2");
                assertThat(e.neededBytes()).isGreaterThan(5 << 20);
              })
          .hasMessageContaining("a change of public.docs (total_order 2)")
          .hasMessageContaining("pg-test/testdb:0/2000:700")
          .hasMessageContaining("Set dataset.chunk.max_bytes to at least");
    }
    assertThat(out)
        .as("no manifest or commit marker: no sink applies any of the transaction")
        .noneMatch(o -> o.kind() == MessageKind.MANIFEST || o.kind() == MessageKind.COMMIT_MARKER);
  }

  /**
   * A spilled transaction stages its records in a 64 KiB frame buffer: a large row arriving while
   * small ones are staged made the buffer write them out and forget whose it was, so the large row
   * was never written and the re-read at commit failed the task ("holds 20 records, 21 were
   * written"), again after every restart.
   */
  @Test
  void aLargeRowAfterSmallOnesInASpilledTransactionIsReadBackFromTheSpillFile() {
    try (TransactionPipeline p = pipeline(BOUND)) {
      feed(p, docs(), begin(0x2000, 700));
      for (int i = 1; i <= 12; i++) { // 1.2 MB: above the 1 MiB memory budget, so it spills
        feed(p, insert(0, DOCS, Integer.toString(i), "w".repeat(100 * 1024)));
      }
      for (int i = 13; i <= 20; i++) {
        feed(p, insert(0, DOCS, Integer.toString(i), "small " + i));
      }
      feed(p, insert(0, DOCS, "21", "v".repeat(100 * 1024)), commit(0x2000));
      assertThat(p.spilledTransactions()).isEqualTo(1);
    }
    assertThat(PublishedBarrier.verified(out).manifest().getGlobalEventCount()).isEqualTo(21);
  }
}
