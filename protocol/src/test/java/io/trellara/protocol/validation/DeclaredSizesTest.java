package io.trellara.protocol.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.boundary.ChunkedBarrier;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A size the wire declares costs memory only in proportion to what was received: a forged barrier
 * whose one small chunk carries total_order 2^31-2 is judged without a bit per order up to it.
 */
class DeclaredSizesTest {
  private static final long HUGE = Integer.MAX_VALUE - 1L; // 2^31-2

  /** What this thread allocated while {@code r} ran (HotSpot's per-thread counter). */
  private static long allocated(Runnable r) {
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    long before = threads.getThreadAllocatedBytes(id);
    r.run();
    return threads.getThreadAllocatedBytes(id) - before;
  }

  /**
   * The barrier of the finding: one chunk (a couple of hundred bytes) consistent with its manifest
   * entry, whose one change is at total_order 2^31-2; the other entry's chunk never comes.
   */
  private static Object[] forgedBarrier() {
    ChunkedBarrier.Barrier b =
        ChunkedBarrier.strictChunked(SampleTransactions.envelope(2, false), 1);
    PartitionChunk real = TrellaraCodec.decodeChunk(b.chunks().get(1).bytes());
    PartitionChunk chunk =
        TrellaraCodec.withChecksum(
            real.toBuilder()
                .setChecksum(0)
                .setChanges(0, real.getChanges(0).toBuilder().setTotalOrder(HUGE))
                .build());
    TransactionManifest m0 = TrellaraCodec.decodeManifest(b.manifest().bytes());
    TransactionManifest manifest =
        TrellaraCodec.withChecksum(
            m0.toBuilder()
                .setChecksum(0)
                .setGlobalEventCount(HUGE)
                .clearPartitions()
                .addPartitions(
                    ManifestPartition.newBuilder()
                        .setId(0)
                        .setEventCount(HUGE - 1)
                        .setFirstTotalOrder(1)
                        .setLastTotalOrder(HUGE - 1))
                .addPartitions(
                    ManifestPartition.newBuilder()
                        .setId(real.getPartitionId())
                        .setEventCount(1)
                        .setFirstTotalOrder(HUGE)
                        .setLastTotalOrder(HUGE)
                        .setChecksum(chunk.getChecksum()))
                .build());
    TransactionCommitMarker k0 = TrellaraCodec.decodeCommitMarker(b.commitMarker().bytes());
    TransactionCommitMarker marker =
        TrellaraCodec.withChecksum(
            k0.toBuilder()
                .setChecksum(0)
                .setGlobalEventCount(HUGE)
                .setParticipatingPartitionCount(BarrierVerifier.participatingPartitions(manifest))
                .setManifestChecksum(manifest.getChecksum())
                .build());
    assertThat(chunk.getSerializedSize()).isLessThan(1024);
    return new Object[] {manifest, marker, chunk};
  }

  @Test
  void aChunkAtTotalOrderTwoToTheThirtyOneIsJudgedWithoutAllocatingABitPerOrder() {
    Object[] f = forgedBarrier();
    TransactionManifest m = (TransactionManifest) f[0];
    TransactionCommitMarker k = (TransactionCommitMarker) f[1];
    PartitionChunk c = (PartitionChunk) f[2];
    Violations v = Violations.collecting();
    long bytes = allocated(() -> BarrierVerifier.verify(m, k, List.of(c), v));
    // the chunk verifies against its entry; what is wrong is the chunk that never came
    assertThat(v.rules()).containsExactly(ProtocolRule.MISSING_CHUNK);
    // a bit per order up to 2^31-2 is 256 MiB; the whole judgement stays under 4 MiB
    assertThat(bytes).isLessThan(4L << 20);
  }

  @Test
  void theStreamingVerifierTakesTheSameChunkWithoutTheBitset() {
    Object[] f = forgedBarrier();
    PartitionChunk c = (PartitionChunk) f[2];
    StreamingBarrierVerifier streaming = new StreamingBarrierVerifier(c);
    long bytes = allocated(() -> streaming.chunk(c));
    assertThat(bytes).isLessThan(1L << 20);
  }

  /** An order first kept in the set is still known once the window has grown past it. */
  @Test
  void anOrderOutsideTheWindowIsStillADuplicateOnceTheWindowCoversIt() {
    BarrierVerifier.TotalOrders orders = new BarrierVerifier.TotalOrders();
    assertThat(orders.mark(5000)).isTrue(); // beyond the first window: the set
    for (int i = 1; i <= 100; i++) {
      assertThat(orders.mark(i)).isTrue();
    }
    assertThat(orders.windowBits()).isGreaterThan(5000);
    assertThat(orders.mark(5000)).isFalse();
    assertThat(orders.mark(50)).isFalse();
  }
}
