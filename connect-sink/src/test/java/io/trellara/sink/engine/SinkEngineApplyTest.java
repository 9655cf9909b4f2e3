package io.trellara.sink.engine;

import static io.trellara.sink.postgres.Feed.concat;
import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.TargetStream;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.Barriers;
import io.trellara.sink.postgres.Feed;
import io.trellara.sink.postgres.Tx;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The engine alone, against the in-memory target port: ordering, grouping, durable positions, the
 * three ways a barrier goes (whole in memory, streamed, staged), duplicates, rebalances mid-barrier
 * and mid-stream, and every fail-closed rule of the barrier in both deliveries (one batch; one
 * record per batch). No database: these run in milliseconds; the same paths against PostgreSQL are
 * BarrierApplyTest, BarrierFailClosedTest and StreamedBarrierTest.
 */
class SinkEngineApplyTest {
  private static final TopicPartitionKey STRICT = new TopicPartitionKey(Feed.STRICT, 0);
  private static final io.trellara.protocol.v1.RelationId ACCOUNTS = Tx.rel("app", "accounts");

  private static TransactionEnvelope opens(long lsn, int from, int to, String balance) {
    Tx t = tx(lsn);
    for (int id = from; id <= to; id++) {
      t.insert(
          ACCOUNTS, key("id", "integer", Integer.toString(id)), val("balance", "numeric", balance));
    }
    return t.build();
  }

  private static TransactionEnvelope sets(long lsn, int id, String balance) {
    return tx(lsn)
        .update(
            ACCOUNTS,
            null,
            key("id", "integer", Integer.toString(id)),
            val("balance", "numeric", balance))
        .build();
  }

  private final InMemoryTarget target = new InMemoryTarget();
  private final List<BarrierResult> barriers = new ArrayList<>();
  private final SinkEngine pipeline =
      new SinkEngine(
              target,
              new SinkEngine.Listener() {
                @Override
                public void barrierApplied(
                    io.trellara.protocol.v1.TransactionManifest m, BarrierResult r) {
                  barriers.add(r);
                }

                @Override
                public void streamRetried() {
                  target.metrics().countRetry();
                }
              },
              3,
              64 << 20,
              0)
          .time(io.trellara.connect.common.Ticker.SYSTEM, target::pause);

  private static Barriers strict(TransactionEnvelope e) {
    return Barriers.strictChunked(e, 2);
  }

  private static Barriers lanes(TransactionEnvelope e) {
    return Barriers.partitioned(
        e,
        3,
        2,
        event -> Integer.parseInt(((ChangeRecord) event).getAfter().getColumns(0).getText()) % 3);
  }

  private static Barriers.Published envelope(TransactionEnvelope e) {
    return Feed.envelope(TrellaraCodec.encode(e).bytes(), e.getCommitLsn());
  }

  @Test
  void envelopesApplyInOrderOnceAndProgressFollowsThem() {
    Feed feed = new Feed();
    pipeline.accept(
        feed.inputs(List.of(envelope(opens(0x100, 1, 2, "1")), envelope(opens(0x200, 3, 4, "1")))));
    pipeline.accept(
        feed.inputs(List.of(envelope(opens(0x100, 1, 2, "1")), envelope(opens(0x300, 5, 5, "1")))));
    assertThat(target.committedLsns()).containsExactly("0/100", "0/200", "0/300");
    assertThat(target.metrics().duplicatesSkipped()).isEqualTo(1);
    assertThat(pipeline.durablePositions()).containsEntry(STRICT, 4L);
    assertThat(target.progress()).containsEntry(STRICT, 4L);
  }

  @Test
  void aStrictChunkedTransactionInOneBatchIsVerifiedInMemoryAndGroupedWithItsNeighbours() {
    Feed feed = new Feed();
    pipeline.accept(
        feed.inputs(
            concat(
                List.of(envelope(opens(0x100, 1, 1, "1"))),
                strict(opens(0x200, 2, 6, "1")).all())));
    assertThat(target.committedLsns()).containsExactly("0/100", "0/200");
    assertThat(target.stagedChunks()).isZero();
    assertThat(target.openStreams()).isZero();
    assertThat(target.metrics().barriersApplied()).isEqualTo(1);
  }

  @Test
  void aStrictChunkedTransactionAcrossBatchesStreamsAndIsVisibleOnlyAtItsMarker() {
    Barriers b = strict(opens(0x100, 1, 9, "1"));
    List<Input> in = new Feed().inputs(b.all());
    for (int i = 0; i < in.size() - 1; i++) {
      pipeline.accept(List.of(in.get(i)));
      assertThat(target.commits()).isEmpty();
      assertThat(pipeline.durablePositions()).containsEntry(STRICT, 0L);
    }
    assertThat(target.openStreams()).isEqualTo(1);
    pipeline.accept(List.of(in.get(in.size() - 1)));
    assertThat(target.committedLsns()).containsExactly("0/100");
    assertThat(target.commits().get(0).orders())
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    assertThat(target.stagedChunks()).isZero();
    assertThat(target.progress()).containsEntry(STRICT, (long) in.size());
    assertThat(barriers).singleElement().satisfies(r -> assertThat(r.chunks()).isEqualTo(5));
  }

  @Test
  void aPartitionRevokedMidStreamLeavesNothingAndItsNextOwnerAppliesItOnce() {
    Barriers b = strict(opens(0x100, 1, 9, "1"));
    Feed.oneByOne(pipeline, new Feed().inputs(b.chunkMessages().subList(0, 3)));
    pipeline.close(List.of(STRICT));
    assertThat(target.openStreams()).isZero();
    assertThat(target.commits()).isEmpty();
    pipeline.open(List.of(STRICT));
    Feed.oneByOne(pipeline, new Feed().inputs(b.all()));
    assertThat(target.committedLsns()).containsExactly("0/100");
  }

  @Test
  void aCutConnectionMidStreamIsRetriedFromTheFirstChunkAfterABackoff() {
    Barriers b = strict(opens(0x100, 1, 9, "1"));
    target.failStreamWritesAfter(3);
    Feed.oneByOne(pipeline, new Feed().inputs(b.all()));
    assertThat(target.committedLsns()).containsExactly("0/100");
    assertThat(target.commits().get(0).orders()).hasSize(9);
    assertThat(target.pauses()).hasSize(1);
    assertThat(target.metrics().retries()).isEqualTo(1);
  }

  @Test
  void aStreamWhoseNextChunkDoesNotComeWithinTheBoundIsRolledBackAndAppliedTheStagedWay() {
    java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
    SinkEngine p =
        new SinkEngine(target, null, 3, 64 << 20, 0)
            .time(now::get, target::pause)
            .maxStreamIdle(java.time.Duration.ofSeconds(10));
    Barriers b = strict(opens(0x100, 1, 9, "1"));
    List<Input> inputs = new Feed().inputs(b.all());
    Feed.oneByOne(p, inputs.subList(0, 2)); // two chunks streamed into one open target transaction
    assertThat(target.openStreams()).isEqualTo(1);
    now.addAndGet(9_000_000_000L);
    p.poll();
    assertThat(p.takeRewinds()).as("within the bound: the stream stays open").isEmpty();
    now.addAndGet(2_000_000_000L);
    p.poll(); // its next chunk has not come for 11 s
    assertThat(p.takeRewinds()).containsEntry(STRICT, 0L);
    assertThat(target.committedLsns()).isEmpty();
    Feed.oneByOne(p, inputs); // delivered again from its first chunk: the staged way
    assertThat(target.committedLsns()).containsExactly("0/100");
    assertThat(target.metrics().chunksStaged()).as("its chunks were staged").isPositive();
    assertThat(target.openStreams()).as("no target transaction left open").isZero();
  }

  @Test
  void aTransientFailurePersistingBeyondTheRetryTimeStopsThePartitionAtTheFirstChunk() {
    SinkEngine p =
        new SinkEngine(
                new InMemoryTarget() {
                  @Override
                  public TargetStream openStream(io.trellara.protocol.v1.PartitionChunk first) {
                    throw new TargetStream.TransientFailure("target down", null);
                  }
                },
                null,
                3,
                64 << 20,
                0)
            .retryPolicy(
                io.trellara.connect.common.retry.Backoff.Policy.of(
                    java.time.Duration.ofMillis(1),
                    java.time.Duration.ofMillis(1),
                    java.time.Duration.ZERO,
                    0));
    Throwable t =
        catchThrowable(
            () -> Feed.oneByOne(p, new Feed().inputs(strict(opens(0x100, 1, 9, "1")).all())));
    assertThat(t).isInstanceOf(ApplyException.class).hasMessageContaining("RETRIES_EXHAUSTED");
    assertThat(p.durablePositions()).containsEntry(STRICT, 0L);
  }

  @Test
  void aTransactionPublishedAgainFromItsStartReplacesThePartialStream() {
    TransactionEnvelope e = opens(0x100, 1, 9, "1");
    Feed.oneByOne(
        pipeline,
        new Feed()
            .inputs(
                concat(
                    strict(e).chunkMessages().subList(0, 3), Barriers.strictChunked(e, 4).all())));
    assertThat(target.committedLsns()).containsExactly("0/100");
    assertThat(target.commits().get(0).orders()).hasSize(9);
  }

  @Test
  void aPartitionedBarrierWaitsForLanesAnotherTaskStagesAndAppliesOnce() {
    Barriers b = lanes(opens(0x100, 1, 9, "1"));
    SinkEngine other = new SinkEngine(target, null, 3, 64 << 20, 0); // the task holding the lanes
    Feed feed = new Feed();
    pipeline.accept(feed.inputs(concat(b.closing(), List.of(envelope(sets(0x200, 1, "2"))))));
    assertThat(pipeline.waiting()).isTrue();
    assertThat(target.commits()).isEmpty();
    assertThat(pipeline.durablePositions()).containsEntry(STRICT, 0L);
    other.accept(feed.inputs(b.chunkMessages()));
    assertThat(target.stagedChunks()).isEqualTo(b.chunks().size());
    pipeline.poll();
    assertThat(target.committedLsns()).containsExactly("0/100", "0/200");
    assertThat(target.stagedChunks()).isZero();
    assertThat(pipeline.durablePositions()).containsEntry(STRICT, 3L);
  }

  @Test
  void partitionedTransactionsWhoseLanesAreAllHereApplyFromMemoryGroupedWithoutStaging() {
    Barriers t1 = lanes(opens(0x100, 1, 9, "1"));
    Barriers t2 = lanes(opens(0x200, 11, 19, "2"));
    Feed feed = new Feed();
    pipeline.accept(
        feed.inputs(
            concat(
                t1.chunkMessages(),
                t2.chunkMessages(),
                t1.closing(),
                t2.closing(),
                List.of(envelope(sets(0x300, 1, "3"))))));
    assertThat(target.committedLsns()).containsExactly("0/100", "0/200", "0/300");
    assertThat(target.commits().get(0).orders())
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    assertThat(target.metrics().chunksStaged.get()).isZero();
    assertThat(target.applyCalls()).isEqualTo(1); // one target transaction for all three
    for (int lane = 0; lane < 3; lane++) {
      TopicPartitionKey tp = new TopicPartitionKey(Feed.LANES, lane);
      assertThat(pipeline.durablePositions()).containsEntry(tp, feed.next(tp));
      assertThat(target.progress()).containsEntry(tp, feed.next(tp));
    }
    assertThat(pipeline.durablePositions()).containsEntry(STRICT, 5L);
  }

  @Test
  void aHeldLaneChunkIsNotDurableUntilItsTransactionCommits() {
    Barriers t1 = lanes(opens(0x100, 1, 9, "1"));
    Feed feed = new Feed();
    pipeline.accept(feed.inputs(concat(List.of(envelope(sets(0x50, 1, "0"))), t1.chunkMessages())));
    TopicPartitionKey lane0 = new TopicPartitionKey(Feed.LANES, 0);
    assertThat(pipeline.durablePositions()).containsEntry(lane0, 0L);
    assertThat(target.progress()).doesNotContainKey(lane0);
    assertThat(pipeline.waiting())
        .isTrue(); // put() again soon: held chunks are staged when they wait long
    pipeline.accept(feed.inputs(t1.closing()));
    assertThat(target.committedLsns()).containsExactly("0/50", "0/100");
    assertThat(target.progress()).containsEntry(lane0, feed.next(lane0));
    assertThat(target.stagedChunks()).isZero();
    assertThat(pipeline.waiting()).isFalse();
  }

  @Test
  void aBarrierWithSomeLanesHereReadsThemFromMemoryAndTheOthersFromStaging() {
    Barriers b = lanes(opens(0x100, 1, 9, "1"));
    SinkEngine other = new SinkEngine(target, null, 3, 64 << 20, 0); // holds lanes 1 and 2
    Feed feed = new Feed();
    List<Input> chunks = feed.inputs(b.chunkMessages());
    List<Input> here = chunks.stream().filter(in -> in.partition().partition() == 0).toList();
    List<Input> there = chunks.stream().filter(in -> in.partition().partition() != 0).toList();
    List<Input> mine = new ArrayList<>(here);
    mine.addAll(feed.inputs(b.closing()));
    pipeline.accept(mine);
    assertThat(target.commits()).isEmpty();
    other.accept(there);
    assertThat(target.stagedChunks()).isEqualTo(there.size());
    pipeline.poll();
    assertThat(target.committedLsns()).containsExactly("0/100");
    assertThat(target.heldReads()).isEqualTo(here.size());
    assertThat(target.stagedChunks()).isZero();
    assertThat(target.progress())
        .containsEntry(
            new TopicPartitionKey(Feed.LANES, 0), feed.next(new TopicPartitionKey(Feed.LANES, 0)));
  }

  /**
   * A task behind by more than the hold time, its barrier queued and waiting for another task's
   * lanes: what it holds is not staged (it would cost every transaction a staged row, a read-back
   * and a sweep), and the barrier applies from memory and staging once the other lanes are staged.
   */
  @Test
  void heldLaneChunksWhoseBarrierIsQueuedHereAreNotStagedPastTheHoldTime() {
    pipeline.holdLanes(java.time.Duration.ofMillis(20), 64 << 20);
    Barriers b = lanes(opens(0x100, 1, 9, "1"));
    SinkEngine other = new SinkEngine(target, null, 3, 64 << 20, 0); // holds lanes 1 and 2
    Feed feed = new Feed();
    List<Input> chunks = feed.inputs(b.chunkMessages());
    List<Input> here = chunks.stream().filter(in -> in.partition().partition() == 0).toList();
    List<Input> there = chunks.stream().filter(in -> in.partition().partition() != 0).toList();
    List<Input> mine = new ArrayList<>(here);
    mine.addAll(feed.inputs(b.closing()));
    pipeline.accept(mine);
    long heldSince = System.nanoTime();
    while (System.nanoTime() - heldSince < 100_000_000L) { // five times the hold time
      pipeline.poll(); // as Connect calls put() while the barrier waits
    }
    assertThat(target.stagedChunks()).isZero();
    other.accept(there);
    pipeline.poll();
    assertThat(target.committedLsns()).containsExactly("0/100");
    assertThat(target.heldReads()).isEqualTo(here.size());
    assertThat(target.stagedChunks()).isZero();
  }

  /**
   * The strict partition paused behind waiting barriers: a lane held here that delivered chunks
   * past every queued barrier pauses too (nothing queued needs more of it), instead of running on
   * and having all it holds staged once the hold time passes.
   */
  @Test
  void aHeldLaneThatRanAheadOfEveryBarrierQueuedBehindAPausedStrictPartitionPausesToo() {
    Feed feed = new Feed();
    TopicPartitionKey lane0 = new TopicPartitionKey(Feed.LANES, 0);
    for (int i = 1; i <= 4; i++) { // lanes 1 and 2 never come: every barrier waits
      Barriers b = lanes(opens(0x100L * i, 3 * i, 3 * i + 2, "1"));
      pipeline.accept(
          feed.inputs(concat(b.chunkMessages(), b.closing())).stream()
              .filter(
                  in -> !in.partition().topic().equals(Feed.LANES) || in.partition().equals(lane0))
              .toList());
    }
    assertThat(pipeline.backlogged()).containsExactly(STRICT); // lane 0 is not past barrier 0/400
    Barriers fifth = lanes(opens(0x500, 15, 17, "1"));
    pipeline.accept(
        feed.inputs(fifth.chunkMessages()).stream()
            .filter(in -> in.partition().equals(lane0))
            .toList());
    assertThat(pipeline.backlogged()).containsExactlyInAnyOrder(STRICT, lane0);
    pipeline.holdLanes(java.time.Duration.ofMillis(20), 64 << 20);
    long heldSince = System.nanoTime();
    while (System.nanoTime() - heldSince < 100_000_000L) { // its barrier comes here, after these
      pipeline.poll();
    }
    assertThat(target.stagedChunks()).isZero();
  }

  @Test
  void heldLaneChunksWaitingLongerThanTheHoldTimeAreStagedAndTheirBarrierGoesTheStagedWay() {
    pipeline.holdLanes(java.time.Duration.ofMillis(20), 64 << 20);
    Barriers b = lanes(opens(0x100, 1, 9, "1"));
    Feed feed = new Feed();
    pipeline.accept(feed.inputs(concat(List.of(envelope(sets(0x50, 1, "0"))), b.chunkMessages())));
    assertThat(target.stagedChunks()).isZero();
    await()
        .atMost(java.time.Duration.ofSeconds(5))
        .pollInterval(java.time.Duration.ofMillis(5))
        .until(
            () -> {
              pipeline.poll(); // as Connect calls put() while the pipeline waits
              return target.stagedChunks() == b.chunks().size();
            });
    TopicPartitionKey lane0 = new TopicPartitionKey(Feed.LANES, 0);
    assertThat(target.progress()).containsEntry(lane0, feed.next(lane0));
    pipeline.accept(feed.inputs(b.closing()));
    assertThat(target.committedLsns()).containsExactly("0/50", "0/100");
    assertThat(barriers).hasSize(1); // applied from staging
    assertThat(target.heldReads()).isZero();
  }

  @Test
  void heldLaneChunksBeyondTheByteBoundAreStaged() {
    pipeline.holdLanes(java.time.Duration.ofSeconds(60), 1);
    Barriers b = lanes(opens(0x100, 1, 9, "1"));
    Feed feed = new Feed();
    pipeline.accept(feed.inputs(concat(List.of(envelope(sets(0x50, 1, "0"))), b.chunkMessages())));
    assertThat(target.stagedChunks()).isEqualTo(b.chunks().size());
    pipeline.accept(feed.inputs(b.closing()));
    assertThat(target.committedLsns()).containsExactly("0/50", "0/100");
  }

  @Test
  void heldLaneChunksAreStagedOnceTheStrictPartitionIsAnotherTasks() {
    Barriers b = lanes(opens(0x100, 1, 9, "1"));
    Feed feed = new Feed();
    pipeline.accept(feed.inputs(concat(List.of(envelope(sets(0x50, 1, "0"))), b.chunkMessages())));
    assertThat(target.stagedChunks()).isZero();
    pipeline.close(List.of(STRICT));
    pipeline.poll();
    assertThat(target.stagedChunks()).isEqualTo(b.chunks().size());
    SinkEngine next =
        new SinkEngine(target, null, 3, 64 << 20, 0); // the strict partition's new owner
    next.accept(feed.inputs(b.closing()));
    assertThat(target.committedLsns()).containsExactly("0/50", "0/100");
  }

  @Test
  void aRevokedLaneDropsWhatItHeldAndItsNextOwnerAppliesTheTransactionOnce() {
    Barriers b = lanes(opens(0x100, 1, 9, "1"));
    Feed feed = new Feed();
    List<Input> inputs =
        feed.inputs(concat(List.of(envelope(sets(0x50, 1, "0"))), b.chunkMessages()));
    pipeline.accept(inputs);
    TopicPartitionKey lane0 = new TopicPartitionKey(Feed.LANES, 0);
    pipeline.close(List.of(lane0));
    assertThat(pipeline.durablePositions()).doesNotContainKey(lane0);
    SinkEngine next = new SinkEngine(target, null, 3, 64 << 20, 0); // lane 0's new owner stages it
    next.accept(inputs.stream().filter(in -> in.partition().equals(lane0)).toList());
    pipeline.accept(feed.inputs(b.closing()));
    assertThat(target.committedLsns()).containsExactly("0/50", "0/100");
    assertThat(target.commits().get(1).orders()).hasSize(9);
  }

  @Test
  void aLaneWithTooMuchStagedBehindAWaitingBarrierPausesAndALaneItStillNeedsDoesNot() {
    Barriers t1 = lanes(opens(0x100, 1, 9, "1"));
    Barriers t2 = lanes(opens(0x200, 11, 19, "2"));
    SinkEngine laneTask =
        new SinkEngine(target, null, 3, 64 << 20, 0).maxStagedPerLane(1, java.time.Duration.ZERO);
    Feed feed = new Feed();
    // T1's chunks on lane 0 have not come yet; lanes 1 and 2 brought T1's and then T2's
    List<Input> chunks = feed.inputs(concat(t1.chunkMessages(), t2.chunkMessages()));
    TopicPartitionKey lane0 = new TopicPartitionKey(Feed.LANES, 0);
    laneTask.accept(chunks.stream().filter(in -> !in.partition().equals(lane0)).toList());
    assertThat(laneTask.backlogged())
        .containsExactlyInAnyOrder(
            new TopicPartitionKey(Feed.LANES, 1), new TopicPartitionKey(Feed.LANES, 2));
    assertThat(laneTask.waiting()).isTrue(); // looked at again while paused
    pipeline.accept(feed.inputs(concat(t1.closing(), t2.closing())));
    laneTask.accept(chunks.stream().filter(in -> in.partition().equals(lane0)).toList());
    pipeline.poll();
    assertThat(target.committedLsns()).containsExactly("0/100", "0/200");
    laneTask.poll();
    assertThat(laneTask.backlogged()).isEmpty();
  }

  @Test
  void aBarrierThatJustBeganWaitingIsLookedAtAgainSoonerThanOneThatHasWaitedASecond() {
    SinkEngine p = new SinkEngine(target, null); // the default recheck interval
    Barriers b = lanes(opens(0x100, 1, 9, "1"));
    p.accept(new Feed().inputs(b.closing()));
    assertThat(p.waiting()).isTrue();
    assertThat(p.recheckWithinMillis())
        .isEqualTo(io.trellara.sink.buffer.SinkBuffer.FAST_RECHECK_MILLIS);
    await()
        .atMost(java.time.Duration.ofSeconds(5))
        .pollInterval(java.time.Duration.ofMillis(50))
        .until(
            () ->
                p.recheckWithinMillis()
                    == io.trellara.sink.buffer.SinkBuffer.DEFAULT_RECHECK_MILLIS);
  }

  @Test
  void aPartitionRevokedWhileItsBarrierWaitsIsReadAgainByItsNextOwner() {
    Barriers b = lanes(opens(0x100, 1, 9, "1"));
    pipeline.accept(new Feed().inputs(b.closing()));
    pipeline.close(List.of(STRICT));
    assertThat(pipeline.durablePositions()).doesNotContainKey(STRICT);
    SinkEngine next = new SinkEngine(target, null, 3, 64 << 20, 0);
    next.accept(new Feed().inputs(concat(b.chunkMessages(), b.closing())));
    assertThat(target.committedLsns()).containsExactly("0/100");
  }

  @Test
  void envelopesQueuedBehindAWaitingBarrierPauseThePartitionPastTheBound() {
    Barriers b = lanes(opens(0x100, 1, 9, "1"));
    Feed feed = new Feed();
    pipeline.accept(
        feed.inputs(
            concat(
                b.closing(),
                List.of(
                    envelope(sets(0x200, 1, "2")),
                    envelope(sets(0x300, 1, "3")),
                    envelope(sets(0x400, 1, "4"))))));
    assertThat(pipeline.backlogged()).containsExactly(STRICT);
    pipeline.accept(feed.inputs(b.chunkMessages()));
    assertThat(pipeline.backlogged()).isEmpty();
    assertThat(target.committedLsns()).containsExactly("0/100", "0/200", "0/300", "0/400");
  }

  @Test
  void aReplayedMarkerOfAnAppliedTransactionIsSkippedAndAnUnknownOneStops() {
    Barriers b = lanes(opens(0x100, 1, 9, "1"));
    Feed feed = new Feed();
    pipeline.accept(feed.inputs(concat(b.chunkMessages(), b.closing())));
    pipeline.accept(feed.inputs(b.closing().subList(1, 2)));
    assertThat(target.committedLsns()).containsExactly("0/100");
    Barriers other = lanes(opens(0x200, 11, 12, "1"));
    Throwable t = catchThrowable(() -> pipeline.accept(feed.inputs(other.closing().subList(1, 2))));
    assertThat(t)
        .isInstanceOf(ApplyException.class)
        .hasMessageContaining("a commit marker without its manifest");
  }

  @Test
  void aLaneChunkOnAnotherKafkaPartitionThanItsLaneIsRefused() {
    Barriers b = lanes(opens(0x100, 1, 9, "1"));
    Barriers.Published c = b.chunkMessages().get(0);
    Feed feed = new Feed();
    Throwable t =
        catchThrowable(
            () ->
                pipeline.accept(
                    List.of(
                        feed.input(
                            new TopicPartitionKey(Feed.LANES, c.lane() + 1),
                            c.kind(),
                            c.bytes(),
                            c.key()))));
    assertThat(t).isInstanceOf(ApplyException.class).hasMessageContaining("BARRIER_SEQUENCE");
  }

  // ---- every fail-closed rule, both deliveries
  // ----------------------------------------------------------

  private static TransactionEnvelope t2() {
    return opens(0x200, 11, 15, "200");
  }

  static Stream<Arguments> badBarriers() {
    Tx same = tx("pg-test", 0x200, "999"); // T2's changes under another transaction id
    for (int id = 11; id <= 15; id++) {
      same.insert(
          ACCOUNTS, key("id", "integer", Integer.toString(id)), val("balance", "numeric", "200"));
    }
    TransactionEnvelope other = same.build();
    TransactionEnvelope withDdl =
        tx(0x200)
            .insert(ACCOUNTS, key("id", "integer", "11"), val("balance", "numeric", "1"))
            .insert(ACCOUNTS, key("id", "integer", "12"), val("balance", "numeric", "1"))
            .ddl("ALTER TABLE app.accounts ADD COLUMN x int", "app.accounts")
            .build();
    DdlEvent ddlAtTwo = withDdl.getDdlEvents(0).toBuilder().setTotalOrder(2).build();
    Supplier<List<Barriers.Published>> duplicateOrder =
        () ->
            Barriers.of(
                    withDdl,
                    ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER,
                    0,
                    List.of(
                        new Barriers.ChunkSpec(0, 0, withDdl.getChangesList(), List.of()),
                        new Barriers.ChunkSpec(1, 0, List.of(), List.of(ddlAtTwo))))
                .all();
    return Stream.of(
        Arguments.of(
            "missing strict chunk", strict(t2()).allWithout(1), ProtocolRule.MISSING_CHUNK),
        Arguments.of(
            "chunk of another transaction",
            strict(t2()).withChunk(1, strict(other).chunks().get(1)).all(),
            ProtocolRule.TRANSACTION_ID_MISMATCH),
        Arguments.of(
            "event count",
            strict(t2())
                .withManifest(
                    m ->
                        m.setPartitions(
                                0,
                                m.getPartitions(0).toBuilder()
                                    .setEventCount(3)
                                    .setLastTotalOrder(3))
                            .setGlobalEventCount(6))
                .all(),
            ProtocolRule.EVENT_COUNT_MISMATCH),
        Arguments.of(
            "chunk checksum flipped",
            strict(t2()).flipChunkByte(1, "200").all(),
            ProtocolRule.CHECKSUM_MISMATCH),
        Arguments.of(
            "manifest checksum flipped",
            strict(t2()).flipManifestByte("pg-test").all(),
            ProtocolRule.CHECKSUM_MISMATCH),
        Arguments.of(
            "chunk differs from its entry",
            strict(t2())
                .withManifest(
                    m ->
                        m.setPartitions(
                            2, m.getPartitions(2).toBuilder().setChecksum(0x1234_5678_9abc_def0L)))
                .all(),
            ProtocolRule.CHUNK_CHECKSUM_MISMATCH),
        Arguments.of(
            "marker binds another manifest (strict)",
            strict(t2()).withMarker(k -> k.setManifestChecksum(42)).all(),
            ProtocolRule.MARKER_MANIFEST_CHECKSUM_MISMATCH),
        Arguments.of(
            "marker binds another manifest (lanes)",
            lanes(t2()).withMarker(k -> k.setManifestChecksum(42)).all(),
            ProtocolRule.MARKER_MANIFEST_CHECKSUM_MISMATCH),
        Arguments.of(
            "empty barrier",
            strict(t2()).withManifest(m -> m.setGlobalEventCount(0)).all(),
            ProtocolRule.EMPTY_BARRIER),
        Arguments.of(
            "repeated total order", duplicateOrder.get(), ProtocolRule.DUPLICATE_TOTAL_ORDER),
        Arguments.of("missing lane chunk", lanes(t2()).allWithout(0), null));
  }

  /**
   * T1 applied, then the bad T2 and a good T3: apply stops naming the rule (in both deliveries), T1
   * is all that was committed, and the partition's durable position stays before T2.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("badBarriers")
  void aBadBarrierStopsApplyNamingItsRuleWithNothingOfItApplied(
      String name, List<Barriers.Published> bad, ProtocolRule rule) {
    for (boolean oneByOne : new boolean[] {false, true}) {
      InMemoryTarget t = new InMemoryTarget();
      SinkEngine p = new SinkEngine(t, null, 1000, 64 << 20, 0);
      Feed feed = new Feed();
      Barriers t1 = strict(opens(0x100, 1, 3, "100"));
      Feed.batched(p, feed.inputs(t1.all()));
      Barriers t3 = strict(opens(0x300, 21, 26, "300"));
      Throwable thrown =
          catchThrowable(
              () -> {
                if (oneByOne) {
                  Feed.oneByOne(p, feed.inputs(concat(bad, t3.all())));
                } else {
                  Feed.batched(p, feed.inputs(concat(bad, t3.all())));
                }
              });
      String how = name + (oneByOne ? ", one record per batch" : ", one batch");
      if (rule
          == null) { // a lane chunk that never came, and no lane moved past it: the barrier waits
        assertThat(thrown).as(how).isNull();
        assertThat(p.waiting()).as(how).isTrue();
      } else {
        assertThat(ruleOf(thrown)).as(how + ": " + thrown).isEqualTo(rule);
      }
      assertThat(t.committedLsns()).as(how).containsExactly("0/100");
      // never past T2's last record: what the target has not made durable is read again after a
      // restart
      long t2End =
          t1.all().size() + bad.stream().filter(Barriers.Published::onStrictTopic).count() - 1;
      assertThat(p.durablePositions().get(STRICT)).as(how).isLessThanOrEqualTo(t2End);
    }
  }

  private static ProtocolRule ruleOf(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ProtocolViolationException pve) {
        return pve.rule();
      }
    }
    return null;
  }
}
