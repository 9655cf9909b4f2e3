package io.trellara.sink.postgres.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.StagedChunk;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The set-aside decision alone ({@link StagingLimits#choose}): over any batch of chunks of a few
 * flows and transactions, what is kept never takes a flow past the bound, a transaction is kept or
 * set aside whole, and a transaction is set aside only when it would not have fitted where it came.
 */
class StagingLimitsChooseTest {

  private static StagedChunk chunk(int flow, int tx, int bytes) {
    return new StagedChunk(
        "src",
        "db",
        "flow" + flow,
        "0/" + Integer.toHexString(0x100 + tx),
        "tx" + tx,
        ManifestBoundaryMode.PARTITIONED_SCALE_MODE,
        0,
        0,
        0,
        1,
        0,
        0,
        new byte[bytes]);
  }

  @Provide
  Arbitrary<List<int[]>> batches() {
    Arbitrary<int[]> one =
        Arbitraries.integers()
            .between(0, 2)
            .flatMap(
                f ->
                    Arbitraries.integers()
                        .between(0, 4)
                        .flatMap(
                            t ->
                                Arbitraries.integers()
                                    .between(1, 120)
                                    .map(b -> new int[] {f, t, b})));
    return one.list().ofMinSize(0).ofMaxSize(30);
  }

  @Property(tries = 500)
  void keptNeverPassesTheBoundAndTransactionsGoWhole(
      @ForAll("batches") List<int[]> spec,
      @ForAll @IntRange(min = 0, max = 200) int staged,
      @ForAll @IntRange(min = 1, max = 400) int max) {
    List<StagedChunk> chunks = new ArrayList<>();
    for (int[] s : spec) {
      chunks.add(chunk(s[0], s[1], s[2]));
    }
    List<StagingLimits.SetAside> aside = StagingLimits.choose(chunks, f -> staged, max);
    Set<FlowKey> asideKeys =
        aside.stream().map(StagingLimits.SetAside::transaction).collect(Collectors.toSet());
    assertThat(asideKeys).hasSameSizeAs(aside);

    // walk the transactions in order of their first chunk, as the rule says, and check each verdict
    Map<FlowKey, Long> bytes = new LinkedHashMap<>();
    chunks.forEach(c -> bytes.merge(c.flowKey(), (long) c.payload().length, Long::sum));
    Map<FlowKey.Flow, Long> kept = new HashMap<>();
    for (Map.Entry<FlowKey, Long> t : bytes.entrySet()) {
      long before = kept.getOrDefault(t.getKey().flow(), (long) staged);
      if (asideKeys.contains(t.getKey())) {
        assertThat(before + t.getValue())
            .as("set aside only when it would not fit")
            .isGreaterThan(max);
      } else {
        assertThat(before + t.getValue()).as("kept only when it fits").isLessThanOrEqualTo(max);
        kept.put(t.getKey().flow(), before + t.getValue());
      }
    }
    for (StagingLimits.SetAside a : aside) {
      assertThat(a.addedBytes()).isEqualTo(bytes.get(a.transaction()));
      assertThat(a.maxBytes()).isEqualTo(max);
    }
  }

  @Test
  void aFlowsJunkIsSetAsideWhileAnotherFlowOfTheBatchIsKept() {
    List<StagedChunk> chunks =
        List.of(chunk(0, 1, 60), chunk(1, 2, 60), chunk(0, 1, 60), chunk(0, 3, 10));
    List<StagingLimits.SetAside> aside = StagingLimits.choose(chunks, f -> 0L, 100);
    assertThat(aside)
        .extracting(a -> a.transaction().transaction().transactionId())
        .containsExactly("tx1");
    assertThat(aside.get(0).stagedBytes()).isZero();
    assertThat(aside.get(0).addedBytes()).isEqualTo(120);
  }
}
