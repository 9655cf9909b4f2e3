package io.trellara.sink.port;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The missing-chunk rule on its own: when an absent chunk waits and when it is missing for good.
 */
class BarrierStateTest {
  private static final TransactionManifest PARTITIONED =
      manifest(ManifestBoundaryMode.PARTITIONED_SCALE_MODE);
  private static final TransactionManifest STRICT_CHUNKED =
      manifest(ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER);

  private static TransactionManifest manifest(ManifestBoundaryMode mode) {
    return TransactionManifest.newBuilder()
        .setSourceCommitLsn("0/500")
        .setBoundaryMode(mode)
        .addPartitions(ManifestPartition.newBuilder().setId(0).setChunkSequence(0).setChecksum(10))
        .addPartitions(ManifestPartition.newBuilder().setId(0).setChunkSequence(1).setChecksum(11))
        .addPartitions(ManifestPartition.newBuilder().setId(4).setChunkSequence(0).setChecksum(40))
        .build();
  }

  private static BarrierState.Staged staged(long lane, long seq, long checksum) {
    return new BarrierState.Staged(lane, seq, checksum, "1");
  }

  private static final List<BarrierState.Staged> ALL =
      List.of(staged(0, 0, 10), staged(0, 1, 11), staged(4, 0, 40));

  @Test
  void everyListedChunkStagedWithItsChecksumIsReady() {
    assertThat(new BarrierState(false, ALL, Map.of()).evaluate(PARTITIONED).kind())
        .isEqualTo(BarrierState.Kind.READY);
    assertThat(new BarrierState(true, List.of(), Map.of()).evaluate(PARTITIONED).kind())
        .isEqualTo(BarrierState.Kind.ALREADY_APPLIED);
  }

  @Test
  void anAbsentLaneChunkWaitsUntilItsLaneIsStagedPastTheCommit() {
    List<BarrierState.Staged> noLane4 = ALL.subList(0, 2);
    BarrierState.Verdict none = new BarrierState(false, noLane4, Map.of()).evaluate(PARTITIONED);
    assertThat(none.kind()).isEqualTo(BarrierState.Kind.WAITING);
    assertThat(none.absentLanes()).isEqualTo(1);
    // the lane reached this very commit (an earlier chunk of it): its next chunk may still come
    assertThat(
            new BarrierState(false, noLane4, Map.of(4L, Lsn.parse("0/500")))
                .evaluate(PARTITIONED)
                .kind())
        .isEqualTo(BarrierState.Kind.WAITING);
    BarrierState.Verdict past =
        new BarrierState(false, noLane4, Map.of(4L, Lsn.parse("0/501"))).evaluate(PARTITIONED);
    assertThat(past.kind()).isEqualTo(BarrierState.Kind.MISSING);
    assertThat(past.missing().getId()).isEqualTo(4);
    assertThat(past.otherVersion()).isNull();
  }

  @Test
  void inStrictChunkedOrderAnAbsentChunkIsMissingAtOnce() {
    BarrierState.Verdict v =
        new BarrierState(
                false, List.of(staged(0, 0, 10), staged(0, 1, 99), staged(4, 0, 40)), Map.of())
            .evaluate(STRICT_CHUNKED);
    assertThat(v.kind()).isEqualTo(BarrierState.Kind.MISSING);
    assertThat(v.missing().getChunkSequence()).isEqualTo(1);
    assertThat(v.otherVersion()).isEqualTo(staged(0, 1, 99)); // verified to name the precise rule
  }
}
