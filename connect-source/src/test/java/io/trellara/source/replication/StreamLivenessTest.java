package io.trellara.source.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.connect.common.liveness.Stall;
import io.trellara.connect.common.liveness.Watchdog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StreamLivenessTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final Watchdog dog = Watchdog.manual("source", now::get, Duration.ofSeconds(20));
  private final List<Stall> stalls = new ArrayList<>();
  private final StreamLiveness stream =
      new StreamLiveness(dog, now::get, "orders_slot", stalls::add);

  private void advance(long seconds) {
    now.addAndGet(seconds * 1_000_000_000L);
    dog.check();
  }

  @Test
  void aStreamSilentPastTheBoundStallsOnceNamingTheStageAndTheSlot() {
    stream.streaming();
    stream.received(0x16B3748L);
    advance(19);
    assertThat(stalls).isEmpty();
    assertThat(stream.stage().secondsSinceProgress()).isEqualTo(19);
    advance(2);
    assertThat(stalls).hasSize(1);
    assertThat(stalls.get(0).stage()).isEqualTo("replication stream");
    assertThat(stalls.get(0).describe())
        .contains("replication stream of slot orders_slot", "bound 20000 ms");
    assertThat(stream.lastLsn()).isEqualTo("0/16B3748");
    advance(30);
    assertThat(stalls).as("once per wait").hasSize(1);
  }

  @Test
  void everyMessageKeepalivesIncludedIsProgress() {
    stream.streaming();
    for (int i = 0; i < 10; i++) {
      advance(15);
      stream.received(0); // a keepalive: the position need not move
    }
    assertThat(stalls).isEmpty();
  }

  @Test
  void waitingForThePublisherIsNotTheServersSilence() {
    stream.streaming();
    for (int i = 0; i < 10; i++) {
      advance(15);
      stream.handingOver();
    }
    assertThat(stalls).isEmpty();
  }

  @Test
  void aQuietStreamIsProbedEveryQuarterOfTheBoundAtMostEveryTenSeconds() {
    stream.streaming();
    advance(4);
    assertThat(stream.probeDue()).isFalse();
    advance(1);
    assertThat(stream.probeDue()).isTrue();
    assertThat(stream.probeDue()).as("the probe restarts the interval").isFalse();
    advance(5);
    assertThat(stream.probeDue()).isTrue();
    Watchdog hour = Watchdog.manual("h", now::get, Duration.ofHours(1));
    StreamLiveness slow = new StreamLiveness(hour, now::get, "s", s -> {});
    slow.streaming();
    now.addAndGet(10_000_000_000L);
    assertThat(slow.probeDue()).isTrue();
  }

  @Test
  void noStreamOpenNothingStalls() {
    stream.streaming();
    stream.stopped(); // reconnecting: the reconnect deadline bounds that
    advance(100);
    assertThat(stalls).isEmpty();
    assertThat(stream.stage().secondsSinceProgress()).isZero();
    assertThat(stream.stage().waitingFor()).isNull();
  }
}
