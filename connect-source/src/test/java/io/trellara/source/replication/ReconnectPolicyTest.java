package io.trellara.source.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.connect.common.retry.Backoff;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The replication connection's reconnect figures on connect-common's Backoff (they were
 * ReconnectBackoff's): the same delays, deadline, stable window and log pacing, plus the jitter.
 */
class ReconnectPolicyTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  /** Without jitter (the random draw is 0), so the figures are exact. */
  private Backoff backoff(long maxDurationMs) {
    return new Backoff(ReconnectPolicy.policy(maxDurationMs), nanos::get, () -> 0.0);
  }

  private void advance(long millis) {
    nanos.addAndGet(millis * 1_000_000L);
  }

  @Test
  void delaysDoubleFromHalfASecondUpToTwoSeconds() {
    Backoff backoff = backoff(600_000);
    List<Long> delays = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      long d = ReconnectPolicy.nextDelayMillis(backoff);
      delays.add(d);
      advance(d);
    }
    assertThat(delays)
        .containsExactly(
            500L, 1_000L, 2_000L, 2_000L, 2_000L, 2_000L, 2_000L, 2_000L, 2_000L, 2_000L);
  }

  @Test
  void givesUpOnceTheOutageLastedTheMaximumAndTheLastAttemptIsAtTheDeadline() {
    Backoff backoff = backoff(10_000);
    long total = 0;
    int attempts = 0;
    long d;
    while ((d = ReconnectPolicy.nextDelayMillis(backoff)) >= 0) {
      attempts++;
      total += d;
      advance(d);
    }
    // 500 + 1000 + 2000 + 2000 + 2000 + 2000, then the remaining 500 ms: the last attempt is at the
    // deadline
    assertThat(attempts).isEqualTo(7);
    assertThat(total).isEqualTo(10_000);
    assertThat(backoff.outageMillis()).isEqualTo(10_000);
  }

  @Test
  void aLongOutageIsLoggedForItsFirstAttemptsThenEveryThirtySeconds() {
    Backoff backoff = backoff(600_000);
    long elapsed = 0;
    int logged = 0;
    while (elapsed < 120_000) {
      long d = ReconnectPolicy.nextDelayMillis(backoff);
      advance(d);
      elapsed += d;
      if (backoff.worthLogging()) {
        logged++;
      }
    }
    assertThat(logged).isBetween(6, 8); // 3 at first, then one per 30 s of the 2 minutes
  }

  @Test
  void zeroMaximumGivesUpAtTheFirstLoss() {
    assertThat(ReconnectPolicy.nextDelayMillis(backoff(0))).isEqualTo(-1);
  }

  @Test
  void aStreamThatBreaksRightAfterOpeningContinuesTheSameOutage() {
    Backoff backoff = backoff(600_000);
    assertThat(ReconnectPolicy.nextDelayMillis(backoff)).isEqualTo(500);
    advance(500);
    backoff.connected();
    advance(100);
    assertThat(ReconnectPolicy.nextDelayMillis(backoff)).isEqualTo(1_000);
    assertThat(backoff.outageMillis()).isEqualTo(600);
  }

  @Test
  void aStreamThatStayedUpEndsTheOutageSoTheNextLossStartsOver() {
    Backoff backoff = backoff(600_000);
    ReconnectPolicy.nextDelayMillis(backoff);
    advance(500);
    ReconnectPolicy.nextDelayMillis(backoff);
    advance(1_000);
    backoff.connected();
    advance(ReconnectPolicy.STABLE_MS);
    assertThat(ReconnectPolicy.nextDelayMillis(backoff)).isEqualTo(500);
    assertThat(backoff.outageMillis()).isZero();
  }

  @Test
  void jitterTakesOffAtMostATenthOfADelay() {
    Backoff backoff = new Backoff(ReconnectPolicy.policy(600_000), nanos::get, () -> 1.0);
    assertThat(ReconnectPolicy.nextDelayMillis(backoff)).isEqualTo(450);
    assertThat(ReconnectPolicy.nextDelayMillis(backoff)).isEqualTo(900);
    Backoff random = ReconnectPolicy.backoff(600_000, nanos::get);
    assertThat(ReconnectPolicy.nextDelayMillis(random)).isBetween(450L, 500L);
  }
}
