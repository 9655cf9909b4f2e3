package io.trellara.protocol.boundary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BarrierPlannerTest {
  private static final TransactionEnvelope TX = SampleTransactions.envelope(25, true);

  private static BarrierPlanner.TransactionHeader header() {
    return new BarrierPlanner.TransactionHeader(
        1,
        TX.getSourceId(),
        TX.getDatabaseId(),
        TX.getDatasetId(),
        TX.getTransactionId(),
        TX.getBeginLsn(),
        TX.getCommitLsn(),
        TX.getCommitTimestampMs());
  }

  private static List<Object> inTotalOrder() {
    List<Object> all = new ArrayList<>(TX.getChangesList());
    all.addAll(TX.getDdlEventsList());
    all.sort(
        java.util.Comparator.comparingLong(
            e -> e instanceof ChangeRecord c ? c.getTotalOrder() : ((DdlEvent) e).getTotalOrder()));
    return all;
  }

  @Test
  void partitionedLanesStreamChunksAsTheyFillAndTheBarrierVerifies() {
    List<BarrierPlanner.PlannedChunk> planned = new ArrayList<>();
    BarrierPlanner planner =
        BarrierPlanner.partitioned(header(), 3, 4, Long.MAX_VALUE, planned::add);
    int added = 0;
    for (Object e : inTotalOrder()) {
      if (e instanceof ChangeRecord c) {
        planner.addChange((int) (c.getTotalOrder() % 3), c, TX.getSchemaVersions(0));
      } else {
        planner.addDdl(0, (DdlEvent) e);
      }
      if (++added == 12) {
        // chunks leave while the transaction is still being planned: lanes of 4 filled by now
        assertThat(planned).isNotEmpty();
      }
    }
    BarrierPlanner.Closing closing = planner.finish();

    List<PartitionChunk> chunks =
        planned.stream().map(p -> TrellaraCodec.decodeChunk(p.message().bytes())).toList();
    TransactionManifest manifest = TrellaraCodec.decodeManifest(closing.manifest().bytes());
    TransactionCommitMarker marker =
        TrellaraCodec.decodeCommitMarker(closing.commitMarker().bytes());
    BarrierVerifier.verify(manifest, marker, chunks);

    assertThat(manifest.getBoundaryMode()).isEqualTo(ManifestBoundaryMode.PARTITIONED_SCALE_MODE);
    assertThat(manifest.getPartitionCount()).isEqualTo(3);
    assertThat(manifest.getGlobalEventCount())
        .isEqualTo(TX.getChangesCount() + TX.getDdlEventsCount());
    assertThat(manifest.getDdlEventCount()).isEqualTo(TX.getDdlEventsCount());
    assertThat(marker.getParticipatingPartitionCount()).isEqualTo(3);
    assertThat(chunks)
        .allSatisfy(
            c -> assertThat(c.getChangesCount() + c.getDdlEventsCount()).isLessThanOrEqualTo(4));
    // a lane's chunks are numbered 0,1,2.. and each lane stays in total order
    for (int lane = 0; lane < 3; lane++) {
      int l = lane;
      List<PartitionChunk> ofLane = chunks.stream().filter(c -> c.getPartitionId() == l).toList();
      for (int i = 0; i < ofLane.size(); i++) {
        assertThat(ofLane.get(i).getChunkSequence()).isEqualTo(i);
      }
    }
    assertThat(planned)
        .extracting(BarrierPlanner.PlannedChunk::checksum)
        .containsExactlyElementsOf(chunks.stream().map(PartitionChunk::getChecksum).toList());
  }

  @Test
  void strictChunkedNumbersChunksAsIndexesAndCutsByBytes() {
    List<BarrierPlanner.PlannedChunk> planned = new ArrayList<>();
    BarrierPlanner planner = BarrierPlanner.strictChunked(header(), 1_000, 2_000, planned::add);
    for (Object e : inTotalOrder()) {
      if (e instanceof ChangeRecord c) {
        planner.addChange(7, c, TX.getSchemaVersions(0));
      } else {
        planner.addDdl(7, (DdlEvent) e);
      }
    }
    BarrierPlanner.Closing closing = planner.finish();
    assertThat(planned.size()).isGreaterThan(1);
    for (int i = 0; i < planned.size(); i++) {
      assertThat(planned.get(i).partitionId()).isEqualTo(i);
      assertThat(planned.get(i).chunkSequence()).isZero();
      assertThat(planned.get(i).message().bytes().length).isLessThan(2_000 + 1_000);
    }
    assertThat(closing.manifestMessage().getPartitionCount()).isZero();
    assertThat(closing.manifestMessage().getBoundaryMode())
        .isEqualTo(ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER);
  }

  @Test
  void anEmptyBarrierIsRejectedAtPlanning() {
    BarrierPlanner planner =
        BarrierPlanner.partitioned(
            header(),
            2,
            10,
            Long.MAX_VALUE,
            c -> {
              throw new AssertionError("nothing to publish");
            });
    assertThatThrownBy(planner::finish)
        .isInstanceOfSatisfying(
            ProtocolViolationException.class,
            e -> assertThat(e.rule()).isEqualTo(ProtocolRule.EMPTY_BARRIER));
  }

  @Test
  void theInMemoryFormEqualsTheStreamedForm() {
    ChunkedBarrier.Barrier b = ChunkedBarrier.strictChunked(TX, 5);
    TransactionManifest m = TrellaraCodec.decodeManifest(b.manifest().bytes());
    BarrierVerifier.verify(
        m,
        TrellaraCodec.decodeCommitMarker(b.commitMarker().bytes()),
        b.chunks().stream().map(c -> TrellaraCodec.decodeChunk(c.bytes())).toList());
    assertThat(b.chunks())
        .hasSize((int) Math.ceil((TX.getChangesCount() + TX.getDdlEventsCount()) / 5.0));
  }
}
