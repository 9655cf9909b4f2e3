package io.trellara.source.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReconnectBackoffTest {

  @Test
  void delaysDoubleFromHalfASecondUpToTwoSeconds() {
    ReconnectBackoff backoff = new ReconnectBackoff(600_000);
    long now = 1_000_000;
    List<Long> delays = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      long d = backoff.lost(now);
      delays.add(d);
      now += d;
    }
    assertThat(delays)
        .containsExactly(
            500L, 1_000L, 2_000L, 2_000L, 2_000L, 2_000L, 2_000L, 2_000L, 2_000L, 2_000L);
  }

  @Test
  void givesUpOnceTheOutageLastedTheMaximumAndTheLastAttemptIsAtTheDeadline() {
    ReconnectBackoff backoff = new ReconnectBackoff(10_000);
    long now = 0;
    long total = 0;
    int attempts = 0;
    long d;
    while ((d = backoff.lost(now)) >= 0) {
      attempts++;
      total += d;
      now += d;
    }
    // 500 + 1000 + 2000 + 2000 + 2000 + 2000, then the remaining 500 ms: the last attempt is at the
    // deadline
    assertThat(attempts).isEqualTo(7);
    assertThat(total).isEqualTo(10_000);
    assertThat(now - backoff.outageStartMs()).isEqualTo(10_000);
  }

  @Test
  void aLongOutageIsLoggedForItsFirstAttemptsThenEveryThirtySeconds() {
    ReconnectBackoff backoff = new ReconnectBackoff(600_000);
    long now = 0;
    int logged = 0;
    while (now < 120_000) {
      now += backoff.lost(now);
      if (backoff.worthLogging(now)) {
        logged++;
      }
    }
    assertThat(logged).isBetween(6, 8); // 3 at first, then one per 30 s of the 2 minutes
  }

  @Test
  void zeroMaximumGivesUpAtTheFirstLoss() {
    assertThat(new ReconnectBackoff(0).lost(42)).isEqualTo(-1);
  }

  @Test
  void aStreamThatBreaksRightAfterOpeningContinuesTheSameOutage() {
    ReconnectBackoff backoff = new ReconnectBackoff(600_000);
    assertThat(backoff.lost(0)).isEqualTo(500);
    backoff.connected(500);
    assertThat(backoff.lost(600)).isEqualTo(1_000);
    assertThat(backoff.outageStartMs()).isZero();
  }

  @Test
  void aStreamThatStayedUpEndsTheOutageSoTheNextLossStartsOver() {
    ReconnectBackoff backoff = new ReconnectBackoff(600_000);
    backoff.lost(0);
    backoff.lost(500);
    backoff.connected(1_500);
    long later = 1_500 + ReconnectBackoff.STABLE_MS;
    assertThat(backoff.lost(later)).isEqualTo(500);
    assertThat(backoff.outageStartMs()).isEqualTo(later);
  }
}
