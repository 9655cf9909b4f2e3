package io.trellara.sink.engine;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.Barriers;
import io.trellara.sink.postgres.Feed;
import io.trellara.sink.postgres.Tx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The buffer's side of a transaction set aside past its flow's staging bound, against the in-memory
 * target (which sets aside the transactions it is told to): the other transactions of the same
 * partitions go on, no position passes the set-aside transaction's first chunk until its barrier
 * comes (STAGING_FLOW_FULL, naming it) or the retention passes (then the hold goes), and its later
 * chunks, on any lane, are not staged and hold their lane too.
 */
class SetAsideTest {
  private static final RelationId ACCOUNTS = Tx.rel("app", "accounts");
  private static final TopicPartitionKey LANE0 = new TopicPartitionKey(Feed.LANES, 0);
  private static final TopicPartitionKey LANE1 = new TopicPartitionKey(Feed.LANES, 1);
  private static final TopicPartitionKey STRICT = new TopicPartitionKey(Feed.STRICT, 0);

  private final InMemoryTarget target = new InMemoryTarget();
  private final AtomicLong now = new AtomicLong(1);
  private final SinkEngine pipeline =
      new SinkEngine(target, null, 1000, 64 << 20, 0)
          .holdLanes(Duration.ZERO, 0) // stage every lane chunk, as a task without the strict one
          .stagingRetention(Duration.ofSeconds(10))
          .time(now::get, millis -> now.addAndGet(millis * 1_000_000L));
  private final Feed feed = new Feed();

  /** A transaction of {@code dataset} over two lanes: ids {@code id} (lane 0), {@code id+1} (1). */
  private static Barriers twoLanes(String dataset, long lsn, int id) {
    TransactionEnvelope e =
        tx("pg-test", lsn, Long.toString(lsn))
            .dataset(dataset)
            .insert(
                ACCOUNTS, key("id", "integer", Integer.toString(id)), val("balance", "text", "a"))
            .insert(
                ACCOUNTS,
                key("id", "integer", Integer.toString(id + 1)),
                val("balance", "text", "b"))
            .build();
    int[] n = {0};
    return Barriers.partitioned(e, 2, 10, ev -> n[0]++ % 2);
  }

  private static FlowKey keyOf(Barriers b) {
    return FlowKey.of(b.manifest());
  }

  @Test
  void junkSetAsideHoldsItsLanesUntilTheRetentionWhileTheRealFlowApplies() {
    Barriers junk = twoLanes("invented", 0x100, 1000);
    Set<FlowKey> seen = new HashSet<>();
    // the target sets the junk aside the first time it sees it; its lane-1 chunk comes later and
    // must never reach the target (the buffer keeps it out)
    target.setAside = k -> k.equals(keyOf(junk)) && seen.add(k);
    List<Input> inputs = new ArrayList<>(feed.inputs(List.of(junk.chunkMessages().get(0))));
    Barriers real1 = twoLanes("public", 0x1000, 1);
    inputs.addAll(feed.inputs(real1.all()));
    inputs.addAll(feed.inputs(List.of(junk.chunkMessages().get(1))));
    Barriers real2 = twoLanes("public", 0x2000, 3);
    inputs.addAll(feed.inputs(real2.all()));

    Feed.oneByOne(pipeline, inputs);

    assertThat(target.isApplied(keyOf(real1))).isTrue();
    assertThat(target.isApplied(keyOf(real2))).isTrue();
    assertThat(target.isApplied(keyOf(junk))).isFalse();
    assertThat(target.metrics().chunksStaged.get())
        .as("four chunks of the real flow; none of the junk")
        .isEqualTo(4);
    assertThat(pipeline.durablePositions())
        .as("each lane held at the junk's first chunk there; the strict partition goes on")
        .containsEntry(LANE0, 0L)
        .containsEntry(LANE1, 1L)
        .containsEntry(STRICT, feed.next(STRICT));
    assertThat(target.recordedPositions().getOrDefault(LANE0, 0L)).isZero();
    assertThat(target.recordedPositions().getOrDefault(LANE1, 1L)).isLessThanOrEqualTo(1L);

    now.addAndGet(Duration.ofSeconds(11).toNanos());
    pipeline.poll();

    assertThat(pipeline.durablePositions())
        .as("past the retention the junk is dropped and the holds go")
        .containsEntry(LANE0, feed.next(LANE0))
        .containsEntry(LANE1, feed.next(LANE1));
  }

  @Test
  void theBarrierOfASetAsideTransactionFailsClosedByNameWithNothingApplied() {
    Barriers real = twoLanes("public", 0x1000, 1);
    Barriers after = twoLanes("public", 0x2000, 3);
    target.setAside = k -> k.equals(keyOf(real));
    List<Input> inputs = new ArrayList<>(feed.inputs(real.all()));
    inputs.addAll(feed.inputs(after.all()));

    Throwable t = catchThrowable(() -> Feed.oneByOne(pipeline, inputs));

    assertThat(t).isInstanceOf(ApplyException.class);
    ApplyException e = (ApplyException) t;
    assertThat(e.reason()).isEqualTo(ApplyException.Reason.STAGING_FLOW_FULL);
    assertThat(e.eventKey()).isEqualTo(keyOf(real).eventKey());
    assertThat(e.getMessage()).contains("staging.flow.max.bytes").contains("restart");
    assertThat(target.isApplied(keyOf(real))).isFalse();
    assertThat(target.isApplied(keyOf(after))).isFalse();
    assertThat(target.recordedPositions().getOrDefault(LANE0, 0L)).isZero();
    assertThat(target.recordedPositions().getOrDefault(LANE1, 0L)).isZero();
    assertThat(target.recordedPositions().getOrDefault(STRICT, 0L)).isZero();
  }
}
