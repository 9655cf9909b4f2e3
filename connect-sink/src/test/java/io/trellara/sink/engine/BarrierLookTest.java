package io.trellara.sink.engine;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.port.StagingSignal;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.Barriers;
import io.trellara.sink.postgres.Feed;
import io.trellara.sink.postgres.Tx;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Cross-task barriers against the in-memory port: every waiting barrier of a queue is looked at in
 * one look, those read back complete apply from memory grouped in one target transaction, a damaged
 * read-back stops apply naming the rule, and the staging signal (not a poll interval) wakes them.
 */
class BarrierLookTest {
  private static final TopicPartitionKey STRICT = new TopicPartitionKey(Feed.STRICT, 0);
  private static final io.trellara.protocol.v1.RelationId ACCOUNTS = Tx.rel("app", "accounts");

  private final InMemoryTarget target = new InMemoryTarget();

  {
    target.readsBack = true;
  }

  private static TransactionEnvelope opens(long lsn, int from, int to) {
    Tx t = tx(lsn);
    for (int id = from; id <= to; id++) {
      t.insert(
          ACCOUNTS, key("id", "integer", Integer.toString(id)), val("balance", "numeric", "1"));
    }
    return t.build();
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

  /** The task holding the strict partition, polled at a long interval unless woken. */
  private SinkEngine strictTask() {
    return new SinkEngine(target, null, 10_000, 64 << 20, 60_000);
  }

  /** The task holding the lanes: stages their chunks. */
  private SinkEngine laneTask() {
    return new SinkEngine(target, null, 10_000, 64 << 20, 0);
  }

  @Test
  void manyBarriersWaitingForLanesAnotherTaskStagesApplyInOneLookAndOneTargetTransaction() {
    List<Barriers> txs = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      txs.add(lanes(opens(0x100 + 0x100L * i, 10 * i + 1, 10 * i + 9)));
    }
    Feed feed = new Feed();
    List<Barriers.Published> closings = new ArrayList<>();
    List<Barriers.Published> chunks = new ArrayList<>();
    txs.forEach(
        b -> {
          closings.addAll(b.closing());
          chunks.addAll(b.chunkMessages());
        });
    closings.add(
        envelope(
            tx(0x9000)
                .update(ACCOUNTS, null, key("id", "integer", "1"), val("balance", "numeric", "2"))
                .build()));
    SinkEngine strict = strictTask();
    strict.accept(feed.inputs(closings));
    assertThat(strict.waiting()).isTrue();
    assertThat(target.commits()).isEmpty();
    laneTask().accept(feed.inputs(chunks));
    assertThat(target.stagedChunks()).isEqualTo(chunks.size());

    int looks = target.looks;
    int applies = target.applyCalls();
    strict.wakeOn(signal(true));
    strict.poll();

    assertThat(target.looks - looks).as("one look for the 20 waiting barriers").isEqualTo(1);
    assertThat(target.applyCalls() - applies).as("one target transaction").isEqualTo(1);
    assertThat(target.committedLsns()).hasSize(21).endsWith("0/9000");
    assertThat(target.metrics().barriersApplied()).isEqualTo(20);
    assertThat(target.stagedChunks()).as("swept with their apply").isZero();
    assertThat(strict.durablePositions()).containsEntry(STRICT, feed.next(STRICT));
    assertThat(strict.waiting()).isFalse();
  }

  @Test
  void aBarrierWithSomeLanesHeldHereAndTheOthersStagedAppliesFromMemory() {
    Barriers b = lanes(opens(0x100, 1, 9));
    Feed feed = new Feed();
    List<Input> all = feed.inputs(b.chunkMessages());
    List<Input> here = all.stream().filter(in -> in.partition().partition() == 0).toList();
    List<Input> there = all.stream().filter(in -> in.partition().partition() != 0).toList();
    SinkEngine strict = strictTask().wakeOn(signal(true));
    List<Input> mine = new ArrayList<>(here);
    mine.addAll(feed.inputs(b.closing()));
    strict.accept(mine);
    assertThat(target.commits()).isEmpty();
    laneTask().accept(there);
    strict.poll();
    assertThat(target.committedLsns()).containsExactly("0/100");
    assertThat(target.commits().get(0).orders())
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    assertThat(target.heldReads()).as("not the staged way").isZero();
    assertThat(target.stagedChunks()).isZero();
    TopicPartitionKey lane0 = new TopicPartitionKey(Feed.LANES, 0);
    assertThat(target.progress()).containsEntry(lane0, feed.next(lane0));
  }

  @Test
  void aDamagedStagedChunkReadBackStopsApplyNamingTheRuleWithNothingApplied() {
    Barriers b = lanes(opens(0x100, 1, 9));
    Feed feed = new Feed();
    SinkEngine strict = strictTask().wakeOn(signal(true));
    strict.accept(feed.inputs(b.closing()));
    laneTask().accept(feed.inputs(b.chunkMessages()));
    target.damageStaged();
    Throwable t = catchThrowable(strict::poll);
    assertThat(t).isInstanceOf(ProtocolViolationException.class);
    assertThat(((ProtocolViolationException) t).rule()).isNotNull();
    assertThat(target.commits()).isEmpty();
  }

  @Test
  void aWaitingBarrierIsLookedAtWhenTheStagingSignalsNotAtThePollInterval() {
    Barriers b = lanes(opens(0x100, 1, 9));
    Feed feed = new Feed();
    Signal signal = signal(false);
    SinkEngine strict = strictTask().wakeOn(signal);
    strict.accept(feed.inputs(b.closing()));
    assertThat(strict.recheckWithinMillis()).as("Connect calls put at once").isEqualTo(1);
    strict.poll(); // the one look owed to the listening's start: still waiting
    assertThat(target.commits()).isEmpty();
    laneTask().accept(feed.inputs(b.chunkMessages()));
    int looks = target.looks;
    strict.poll(); // no signal: the 60 s recheck interval has not passed
    assertThat(target.looks).isEqualTo(looks);
    assertThat(target.commits()).isEmpty();
    signal.pending = true;
    strict.poll();
    assertThat(target.looks).isEqualTo(looks + 1);
    assertThat(target.committedLsns()).containsExactly("0/100");
  }

  @Test
  void withoutASignalAWaitingBarrierIsPolledFastAtFirst() {
    SinkEngine strict = new SinkEngine(target, null); // StagingSignal.NONE
    strict.accept(new Feed().inputs(lanes(opens(0x100, 1, 9)).closing()));
    assertThat(strict.recheckWithinMillis())
        .isEqualTo(io.trellara.sink.buffer.SinkBuffer.FAST_RECHECK_MILLIS);
  }

  private static Signal signal(boolean pending) {
    Signal s = new Signal();
    s.pending = pending;
    return s;
  }

  /** A staging signal the test fires. */
  private static final class Signal implements StagingSignal {
    boolean pending;

    @Override
    public boolean listening() {
      return true;
    }

    @Override
    public boolean await(long millis) {
      boolean was = pending;
      pending = false;
      return was;
    }

    @Override
    public void close() {}
  }
}
