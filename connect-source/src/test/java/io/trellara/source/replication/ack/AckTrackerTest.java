package io.trellara.source.replication.ack;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AckTrackerTest {

  @Test
  void aTransactionIsHeldOnlyWhenEveryRecordOfItAndOfEveryEarlierOneIsAcknowledged() {
    AckTracker t = new AckTracker();
    t.sent(1, 0); // chunk on lane 3
    t.sent(1, 0); // chunk on lane 5
    t.sent(1, 0); // manifest
    t.sent(1, 0x100); // marker
    t.sent(2, 0x200); // next transaction: one envelope
    assertThat(t.acknowledged(2)).as("a later transaction cannot release an earlier one").isZero();
    assertThat(t.acknowledged(1)).isZero();
    assertThat(t.acknowledged(1)).isZero();
    assertThat(t.acknowledged(1))
        .as("the lane chunk still in flight holds the transaction")
        .isZero();
    assertThat(t.acknowledged(1)).as("the last record releases both").isEqualTo(0x200);
    assertThat(t.transactionsInFlight()).isZero();
  }

  @Test
  void aTransactionWhoseClosingRecordIsNotYetSentIsNeverReleased() {
    AckTracker t = new AckTracker();
    t.sent(7, 0);
    assertThat(t.acknowledged(7)).isZero();
    t.sent(7, 0x700);
    assertThat(t.acknowledged(7)).isEqualTo(0x700);
  }

  /** After a reconnect the engine re-sends unacknowledged transactions under later sequences. */
  @Test
  void reSentTransactionsReleaseNothingBeforeTheOriginalsAndNeverMoveBack() {
    AckTracker t = new AckTracker();
    t.sent(1, 0x100); // T1
    t.sent(2, 0x200); // T2, then the connection is lost
    t.sent(3, 0x100); // T1 again, from the new stream
    t.sent(4, 0x200); // T2 again
    t.sent(5, 0x300); // T3
    assertThat(t.acknowledged(3)).as("the copy of T1 while T1 is outstanding").isZero();
    assertThat(t.acknowledged(4)).isZero();
    assertThat(t.acknowledged(1)).isEqualTo(0x100);
    assertThat(t.acknowledged(2)).as("T2 and both copies").isEqualTo(0x200);
    assertThat(t.acknowledged(5)).isEqualTo(0x300);
    assertThat(t.transactionsInFlight()).isZero();
  }
}
