package io.trellara.source.replication.ack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.connect.common.liveness.StalledException;
import io.trellara.connect.common.liveness.Watchdog;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PublishLivenessTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final Watchdog dog = Watchdog.manual("source", now::get, Duration.ofSeconds(30));
  private final AckTracker acks = new AckTracker();
  private final PublishLiveness producer = new PublishLiveness(dog, acks);

  private void advance(long seconds) {
    now.addAndGet(seconds * 1_000_000_000L);
    dog.check();
  }

  @Test
  void recordsKafkaDoesNotAcknowledgePastTheBoundFailTheNextPollNamingTheOldestTheCountAndTopic() {
    acks.sent(1, 0, "orders/db:0/16B3748:771", "trellara.orders.partitioned");
    acks.sent(1, 0x16B3790, "orders/db:0/16B3748:771", "trellara.orders.strict");
    acks.sent(2, 0x16B4000, "orders/db:0/16B3F00:772", "trellara.orders.strict");
    producer.handed();
    advance(29);
    producer.check();
    assertThat(producer.stage().secondsSinceProgress()).isEqualTo(29);
    assertThat(producer.stage().waitingFor()).contains("acknowledge");
    advance(2);
    assertThatThrownBy(producer::check)
        .isInstanceOf(StalledException.class)
        .hasMessageStartingWith("STALLED: stage 'producer' made no progress for")
        .hasMessageContaining("3 record(s) of 2 transaction(s) not acknowledged")
        .hasMessageContaining("the oldest is transaction orders/db:0/16B3748:771")
        .hasMessageContaining("on topic trellara.orders.partitioned");
    assertThatThrownBy(producer::check)
        .as("every poll after it")
        .isInstanceOf(StalledException.class);
  }

  @Test
  void eachAcknowledgementIsProgressAndNothingOutstandingIsNoWait() {
    for (int tx = 1; tx <= 20; tx++) {
      acks.sent(tx, tx * 100L, "k" + tx, "t");
      producer.handed();
      advance(20);
      acks.acknowledged(tx);
      producer.acknowledged();
      producer.check();
    }
    assertThat(producer.stage().waitingFor()).isNull();
    advance(3600);
    producer.check();
  }

  @Test
  void aTransactionWhoseRecordsAreAllAcknowledgedButNotClosedYetIsNoWaitForKafka() {
    acks.sent(1, 0, "k1", "t"); // a chunk; its marker not handed out yet
    producer.handed();
    acks.acknowledged(1);
    producer.acknowledged();
    advance(120);
    producer.check();
    assertThat(acks.outstandingRecords()).isZero();
  }
}
