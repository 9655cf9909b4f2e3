package io.trellara.source.signal;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.source.signal.KafkaSignalInbox.Received;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class KafkaSignalInboxTest {
  private final Deque<Received> arrived = new ArrayDeque<>();
  private final List<String> committed = new ArrayList<>();
  private final AtomicLong acknowledged = new AtomicLong();
  private final List<Signal> carried = new ArrayList<>();

  /** A fake of OnlineSnapshots: a snapshot signal waits until published; others pass. */
  private boolean pending;

  private final KafkaSignalInbox inbox =
      new KafkaSignalInbox(
          "signals",
          "orders-source",
          arrived::poll,
          (p, o) -> committed.add(p + "@" + o),
          acknowledged::get);

  private void take(long handedOnEnd) {
    inbox.take(
        (s, lsn) -> {
          carried.add(s);
          if (s.action() == Signal.Action.SNAPSHOT && !pending) {
            pending = true;
          } else if (s.action() == Signal.Action.STOP_SNAPSHOT) {
            pending = false;
          }
        },
        () -> !pending,
        100,
        handedOnEnd);
  }

  private void arrive(int partition, long offset, String key, String value) {
    arrived.add(
        new Received(
            partition, offset, key, value == null ? null : value.getBytes(StandardCharsets.UTF_8)));
  }

  private static String snapshot(String id) {
    return "{\"id\":\"" + id + "\",\"type\":\"snapshot\",\"data\":\"public.orders\"}";
  }

  @Test
  void aSnapshotSignalsOffsetIsCommittedOnlyOnceItsSnapshotIsPublishedAndAcknowledged() {
    arrive(0, 7, "orders-source", snapshot("s-1"));
    take(1_000);
    assertThat(carried).extracting(Signal::id).containsExactly("s-1");
    assertThat(committed).as("waiting for its consistent point").isEmpty();
    assertThat(inbox.unsettled()).isEqualTo(1);

    // published before the next transaction: its commit marker at 2_000 was handed on
    pending = false;
    take(2_000);
    assertThat(committed).as("published, not yet acknowledged by Kafka").isEmpty();
    acknowledged.set(1_999);
    take(2_000);
    assertThat(committed).isEmpty();
    acknowledged.set(2_000);
    take(2_000);
    assertThat(committed).containsExactly("0@8");
    assertThat(inbox.unsettled()).isZero();
  }

  @Test
  void otherConnectorsAndMalformedRecordsAreSkippedAndCommittedAtOnce() {
    arrive(0, 1, "billing-source", snapshot("theirs"));
    arrive(0, 2, null, snapshot("no-key"));
    arrive(0, 3, "orders-source", "{not json");
    arrive(0, 4, "orders-source", "{\"id\":\"x\",\"type\":\"explode\"}");
    arrive(0, 5, "orders-source", null);
    take(0);
    assertThat(carried).isEmpty();
    assertThat(inbox.skipped()).isEqualTo(5);
    assertThat(committed).containsExactly("0@6");
  }

  @Test
  void recordsAfterAnUnsettledSnapshotWaitForItsCommitSoARestartReadsThemAllAgain() {
    arrive(0, 10, "orders-source", snapshot("s-1"));
    arrive(0, 11, "billing-source", snapshot("theirs"));
    arrive(1, 3, "orders-source", snapshot("s-2"));
    take(500);
    // s-2 reaches the carrier while s-1 waits: it refuses it (logged), so it is settled
    assertThat(carried).extracting(Signal::id).containsExactly("s-1", "s-2");
    assertThat(committed).isEmpty();
    assertThat(inbox.unsettled()).isEqualTo(1);
    pending = false;
    acknowledged.set(600);
    take(600);
    assertThat(committed).containsExactlyInAnyOrder("0@12", "1@4");
  }

  @Test
  void aStopSignalCancelsTheWaitingSnapshotAndSettlesIt() {
    arrive(0, 0, "orders-source", snapshot("s-1"));
    take(300);
    arrive(0, 1, "orders-source", "{\"id\":\"stop-1\",\"type\":\"stop-snapshot\"}");
    take(300);
    acknowledged.set(300);
    take(300);
    assertThat(carried).extracting(Signal::id).containsExactly("s-1", "stop-1");
    assertThat(committed).last().isEqualTo("0@2");
  }

  @Test
  void nothingArrivedNothingCommitted() {
    take(0);
    take(10);
    assertThat(committed).isEmpty();
    assertThat(carried).isEmpty();
  }
}
