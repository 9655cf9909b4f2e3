package io.trellara.sink.engine;

import static io.trellara.sink.postgres.Feed.concat;
import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.codec.ReceivedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.Barriers;
import io.trellara.sink.postgres.Feed;
import io.trellara.sink.postgres.Tx;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The engine behind the task, against the in-memory target and a consumer that records what it is
 * asked: where partitions resume, pauses and resumes, calls again, Kafka positions, and reading
 * everything again after the target lost asynchronous commits.
 */
class SinkEngineTest {
  private static final TopicPartitionKey STRICT = new TopicPartitionKey(Feed.STRICT, 0);
  private static final io.trellara.protocol.v1.RelationId ACCOUNTS = Tx.rel("app", "accounts");

  /** Records the engine's requests. */
  private static final class Recorder implements SinkEngine.Consumer {
    final Map<TopicPartitionKey, Long> seeks = new LinkedHashMap<>();
    final Set<TopicPartitionKey> paused = new LinkedHashSet<>();
    final List<Long> callsAgain = new ArrayList<>();
    final Set<TopicPartitionKey> assigned = new LinkedHashSet<>();

    @Override
    public void seek(TopicPartitionKey partition, long offset) {
      seeks.put(partition, offset);
    }

    @Override
    public void pause(List<TopicPartitionKey> partitions) {
      paused.addAll(partitions);
    }

    @Override
    public void resume(List<TopicPartitionKey> partitions) {
      partitions.forEach(paused::remove);
    }

    @Override
    public void callAgainWithin(long millis) {
      callsAgain.add(millis);
    }

    @Override
    public Collection<TopicPartitionKey> assignment() {
      return assigned;
    }
  }

  private final InMemoryTarget target = new InMemoryTarget();
  private final Recorder consumer = new Recorder();

  /** The engine's clock: tests move it past the retry time instead of sleeping. */
  private final java.util.concurrent.atomic.AtomicLong clock =
      new java.util.concurrent.atomic.AtomicLong();

  private final SinkEngine engine =
      new SinkEngine(target, null, 2, 64 << 20, 0).attach("fake", consumer, clock::get);

  private static TransactionEnvelope opens(long lsn, int id) {
    return tx(lsn)
        .insert(
            ACCOUNTS, key("id", "integer", Integer.toString(id)), val("balance", "numeric", "1"))
        .build();
  }

  private static Barriers.Published envelope(TransactionEnvelope e) {
    return Feed.envelope(TrellaraCodec.encode(e).bytes(), e.getCommitLsn());
  }

  private void assign(TopicPartitionKey... partitions) {
    consumer.assigned.addAll(List.of(partitions));
    engine.open(List.of(partitions));
  }

  @Test
  void aPartitionResumesWhereTheTargetsProgressSaysAndKafkaGetsOnlyWhatIsDurable() {
    assign(STRICT);
    assertThat(consumer.seeks)
        .containsEntry(STRICT, 0L); // no progress yet: the earliest record, not the group's
    Feed feed = new Feed();
    engine.put(feed.inputs(List.of(envelope(opens(0x100, 1)), envelope(opens(0x200, 2)))));
    assertThat(engine.committable()).containsEntry(STRICT, 2L);
    engine.close(List.of(STRICT));
    assign(STRICT);
    assertThat(consumer.seeks).containsEntry(STRICT, 2L);
  }

  @Test
  void aWaitingBarrierAsksToBeCalledAgainAndItsBacklogPausesThePartitionUntilItDrains() {
    assign(STRICT);
    Barriers b =
        Barriers.partitioned(
            opens(0x100, 1),
            3,
            2,
            e -> Integer.parseInt(((ChangeRecord) e).getAfter().getColumns(0).getText()) % 3);
    Feed feed = new Feed();
    SinkEngine lanes = new SinkEngine(target, null, 2, 64 << 20, 0); // another task holds the lanes
    engine.put(
        feed.inputs(
            concat(b.closing(), List.of(envelope(opens(0x200, 2)), envelope(opens(0x300, 3))))));
    assertThat(consumer.callsAgain).isNotEmpty();
    assertThat(consumer.paused).containsExactly(STRICT);
    assertThat(engine.committable()).containsEntry(STRICT, 0L);
    lanes.accept(feed.inputs(b.chunkMessages()));
    engine.put(List.of());
    assertThat(target.committedLsns()).containsExactly("0/100", "0/200", "0/300");
    assertThat(consumer.paused).isEmpty();
    assertThat(engine.committable()).containsEntry(STRICT, 4L);
  }

  /**
   * A chunk is staged as the bytes it came in: the converter hands over the decoded message with
   * them. A writer's bytes need not be a re-encoding of the message (here a non-minimal varint),
   * and only those bytes hash to the checksum the chunk carries and the manifest lists.
   */
  @Test
  void aChunkIsStagedAsTheBytesItCameInNotAsAReEncoding() {
    assign(STRICT);
    Barriers b =
        Barriers.partitioned(
                opens(0x100, 1),
                3,
                2,
                e -> Integer.parseInt(((ChangeRecord) e).getAfter().getColumns(0).getText()) % 3)
            .withNonMinimalVarintChunk(0);
    SinkEngine lanes = new SinkEngine(target, null, 2, 64 << 20, 0); // another task's lanes
    List<Input> received =
        new Feed()
            .inputs(b.chunkMessages()).stream()
                .map(
                    in ->
                        Input.received(
                            in.partition(),
                            in.offset(),
                            ReceivedMessage.decode(in.kind(), in.bytes()),
                            in.where()))
                .toList();
    lanes.accept(received);
    engine.put(new Feed().inputs(b.closing()));
    assertThat(target.committedLsns()).containsExactly("0/100");

    Input decodedOnly =
        Input.decoded(
            received.get(0).partition(), 0, received.get(0).message(), received.get(0).where());
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                new SinkEngine(new InMemoryTarget(), null, 2, 64 << 20, 0)
                    .accept(List.of(decodedOnly)))
        .hasMessageContaining("CHECKSUM_MISMATCH"); // what a re-encoding would have staged
  }

  @Test
  void aTargetThatLostCommitsHasEveryPartitionReadAgainFromItsRecordedProgress() {
    assign(STRICT);
    Feed feed = new Feed();
    engine.put(feed.inputs(List.of(envelope(opens(0x100, 1)))));
    target.loseProgressOnce();
    engine.put(feed.inputs(List.of(envelope(opens(0x200, 2)))));
    assertThat(consumer.seeks).containsEntry(STRICT, 1L); // the progress recorded with 0/100
    assertThat(target.committedLsns()).containsExactly("0/100");
    engine.put(
        new Feed()
                .inputs(List.of(envelope(opens(0x100, 1)), envelope(opens(0x200, 2))))
                .subList(1, 2)
                .stream()
                .map(in -> Input.raw(STRICT, 1, in.kind(), in.bytes(), in.where()))
                .toList());
    assertThat(target.committedLsns()).containsExactly("0/100", "0/200");
  }

  private static Input at(long offset, TransactionEnvelope e) {
    Input in = new Feed().inputs(List.of(envelope(e))).get(0);
    return Input.raw(STRICT, offset, in.kind(), in.bytes(), in.where());
  }

  @Test
  void aFirstRecordBeyondTheRecordedProgressFailsClosedNamingTheMissingOffsets() {
    assign(STRICT);
    engine.put(new Feed().inputs(List.of(envelope(opens(0x100, 1)), envelope(opens(0x200, 2)))));
    engine.close(List.of(STRICT));
    assign(STRICT); // progress 2; retention removed offsets 2..4
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> engine.put(List.of(at(5, opens(0x300, 3)))))
        .isInstanceOfSatisfying(
            ApplyException.class,
            e -> assertThat(e.reason()).isEqualTo(ApplyException.Reason.PROGRESS_GAP))
        .hasMessageContaining("at offset 2")
        .hasMessageContaining("records 2..4")
        .hasMessageContaining(STRICT.toString());
    assertThat(target.committedLsns()).containsExactly("0/100", "0/200");
  }

  @Test
  void aGapOfOneOffsetIsTakenForTheCommitMarkerOfATransactionalProducer() {
    assign(STRICT);
    engine.put(new Feed().inputs(List.of(envelope(opens(0x100, 1)))));
    engine.close(List.of(STRICT));
    assign(STRICT); // progress 1; offset 1 is a transaction marker no consumer sees
    engine.put(List.of(at(2, opens(0x200, 2))));
    engine.put(
        List.of(
            at(
                9,
                opens(0x300, 3)))); // later offsets are Kafka's business: only the first is checked
    assertThat(target.committedLsns()).containsExactly("0/100", "0/200", "0/300");
  }

  @Test
  void aFencedTaskDropsWhatItHoldsAndPausesUntilKafkaAssignsThePartitionAgain() {
    assign(STRICT);
    engine.put(new Feed().inputs(List.of(envelope(opens(0x100, 1)))));
    target.fenceOnce(); // another task claimed STRICT while this one was busy
    engine.put(List.of(at(1, opens(0x200, 2))));
    assertThat(target.committedLsns()).containsExactly("0/100");
    assertThat(consumer.paused).containsExactly(STRICT);
    assertThat(consumer.callsAgain).isNotEmpty();
    assertThat(engine.committable()).doesNotContainKey(STRICT); // Kafka keeps what it has: offset 1
    engine.put(List.of(at(2, opens(0x300, 3)))); // fetched before the pause took: not taken
    assertThat(target.committedLsns()).containsExactly("0/100");

    engine.close(List.of(STRICT)); // the rebalance: revoked, then assigned to this task again
    assign(STRICT);
    assertThat(consumer.paused).isEmpty();
    assertThat(consumer.seeks).containsEntry(STRICT, 1L);
    engine.put(List.of(at(1, opens(0x200, 2)), at(2, opens(0x300, 3))));
    assertThat(target.committedLsns()).containsExactly("0/100", "0/200", "0/300");
  }

  @Test
  void aTaskStillFencedAfterTheRetryTimeStopsAndAsksAboutASecondDeployment() {
    engine.fenceWait(java.time.Duration.ZERO);
    assign(STRICT);
    target.fenceOnce();
    engine.put(List.of(at(0, opens(0x100, 1))));
    clock.addAndGet(1_000_000L); // 1 ms: past the retry time of zero
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> engine.put(List.of()))
        .isInstanceOfSatisfying(
            ApplyException.class,
            e -> assertThat(e.reason()).isEqualTo(ApplyException.Reason.FENCED))
        .hasMessageContaining("second deployment of sink fake")
        .hasMessageContaining("task other claimed");
    assertThat(target.committedLsns()).isEmpty();
  }

  @Test
  void aFencedTaskWhosePartitionsKafkaRevokedIsNoLongerFencedAndNeverFailsForIt() {
    engine.fenceWait(java.time.Duration.ZERO);
    assign(STRICT);
    target.fenceOnce();
    engine.put(List.of(at(0, opens(0x100, 1))));
    consumer.assigned.remove(STRICT);
    engine.close(List.of(STRICT)); // the rebalance gave it to the task that claimed it
    clock.addAndGet(1_000_000L); // 1 ms: past the retry time of zero
    engine.put(List.of()); // past the retry time: nothing is fenced any more, nothing fails
    assertThat(target.committedLsns()).isEmpty();
  }

  @Test
  void aCooperativeRebalanceClaimsBackTheFencedPartitionsItKeptWithTheNewOnes() {
    TopicPartitionKey other = new TopicPartitionKey(Feed.STRICT, 1);
    assign(STRICT);
    engine.put(List.of(at(0, opens(0x100, 1))));
    target.fenceOnce();
    engine.put(List.of(at(1, opens(0x200, 2))));
    assertThat(consumer.paused).containsExactly(STRICT);
    assign(other); // STRICT kept without being opened again
    assertThat(consumer.paused).isEmpty();
    assertThat(consumer.seeks).containsEntry(STRICT, 1L).containsEntry(other, 0L);
    engine.put(List.of(at(1, opens(0x200, 2))));
    assertThat(target.committedLsns()).containsExactly("0/100", "0/200");
  }
}
