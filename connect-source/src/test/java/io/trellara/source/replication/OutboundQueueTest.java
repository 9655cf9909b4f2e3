package io.trellara.source.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.EventCounts;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.TransactionBoundaryKey;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutboundQueueTest {
  private static final TransactionBoundaryKey KEY =
      new TransactionBoundaryKey("src", "db", "0/10", "7");

  private static Outbound record(MessageKind kind, int bytes, long endLsn) {
    return new Outbound(
        Outbound.Destination.PARTITIONED,
        0,
        kind,
        new byte[0],
        KEY,
        "partitioned_scale_mode",
        1L,
        new EventCounts(1, 0),
        1,
        endLsn,
        bytes,
        false);
  }

  @Test
  void aSmallTransactionWakesThePublisherOnceWhenItIsWhole() throws Exception {
    OutboundQueue queue = new OutboundQueue(1024, 1L << 20);
    for (int lane = 0; lane < 4; lane++) {
      queue.offer(record(MessageKind.CHUNK, 200, 0), 10);
    }
    queue.offer(record(MessageKind.MANIFEST, 150, 0), 10);
    assertThat(queue.wakeUps()).isZero();
    queue.offer(record(MessageKind.COMMIT_MARKER, 120, 0x10), 10);
    assertThat(queue.wakeUps()).isEqualTo(1);

    List<Outbound> out = new ArrayList<>();
    queue.drainTo(out, 0);
    assertThat(out).hasSize(6);
    assertThat(out.get(5).closesTransaction()).isTrue();
  }

  @Test
  void recordsNotYetWokenForAreStillDrainedByTheNextPoll() throws Exception {
    OutboundQueue queue = new OutboundQueue(1024, 1L << 20);
    queue.offer(record(MessageKind.CHUNK, 200, 0), 10);
    List<Outbound> out = new ArrayList<>();
    queue.drainTo(out, 0); // a poll that does not wait finds what is queued
    assertThat(out).hasSize(1);
  }

  @Test
  void aLargeTransactionWakesThePublisherAsItsChunksCome() throws Exception {
    OutboundQueue queue = new OutboundQueue(1024, 1L << 30);
    queue.offer(record(MessageKind.CHUNK, (int) OutboundQueue.WAKE_BYTES, 0), 10);
    assertThat(queue.wakeUps()).isEqualTo(1);
    for (int i = 0; i < OutboundQueue.WAKE_RECORDS; i++) {
      queue.offer(record(MessageKind.CHUNK, 10, 0), 10);
    }
    assertThat(queue.wakeUps()).isEqualTo(2);
  }

  @Test
  void aFullQueueWakesThePublisherBeforeItWaitsForRoom() throws Exception {
    OutboundQueue queue = new OutboundQueue(2, 1L << 30);
    queue.offer(record(MessageKind.CHUNK, 10, 0), 10);
    queue.offer(record(MessageKind.CHUNK, 10, 0), 10);
    assertThat(queue.wakeUps()).isZero();
    // nobody polls: the third record waits for room in vain, but the publisher was woken first
    assertThat(queue.offer(record(MessageKind.CHUNK, 10, 0), 20)).isFalse();
    assertThat(queue.wakeUps()).isEqualTo(1);
    List<Outbound> out = new ArrayList<>();
    queue.drainTo(out, 0);
    assertThat(out).hasSize(2);
  }
}
