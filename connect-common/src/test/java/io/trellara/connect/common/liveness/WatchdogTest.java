package io.trellara.connect.common.liveness;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WatchdogTest {
  private final AtomicLong now = new AtomicLong();
  private final List<Stall> stalls = new ArrayList<>();
  private final Watchdog dog = Watchdog.manual("t", now::get, Duration.ofSeconds(10));

  private void advance(long seconds) {
    now.addAndGet(seconds * 1_000_000_000L);
    dog.check();
  }

  @Test
  void aWaitPastItsBoundWithoutProgressIsReportedOnce() {
    Stage s = dog.stage("target statement", stalls::add);
    s.waiting("INSERT into public.accounts");
    advance(9);
    assertThat(stalls).isEmpty();
    assertThat(s.secondsSinceProgress()).isEqualTo(9);
    advance(2);
    assertThat(stalls).hasSize(1);
    assertThat(stalls.get(0).describe())
        .contains("target statement", "INSERT into public.accounts", "bound 10000 ms");
    advance(20);
    assertThat(stalls).hasSize(1);
  }

  @Test
  void progressRestartsTheBound() {
    Stage s = dog.stage("copy", stalls::add);
    s.waiting("COPY public.accounts");
    for (int i = 0; i < 5; i++) {
      advance(8);
      s.progress();
    }
    assertThat(stalls).isEmpty();
  }

  @Test
  void anIdleStageNeverStalls() {
    Stage s = dog.stage("barrier", stalls::add);
    s.waiting("chunk 1/0");
    s.idle();
    advance(100);
    assertThat(stalls).isEmpty();
    assertThat(s.secondsSinceProgress()).isZero();
  }

  @Test
  void aNewWaitAfterAStallIsBoundedAgain() {
    Stage s = dog.stage("producer", stalls::add);
    s.waiting("acks");
    advance(11);
    s.idle();
    s.waiting("acks");
    advance(11);
    assertThat(stalls).hasSize(2);
  }
}
