package io.trellara.connect.common.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private final AtomicLong now = new AtomicLong();

  private Backoff backoff(Duration stable, double jitter, double random) {
    Backoff.Policy p =
        new Backoff.Policy(
            Duration.ofMillis(100), Duration.ofMillis(800), Duration.ofSeconds(5), stable, jitter);
    return new Backoff(p, now::get, () -> random);
  }

  private void advance(long millis) {
    now.addAndGet(millis * 1_000_000L);
  }

  @Test
  void doublesUpToTheMaximumAndGivesUpAtTheDeadline() {
    Backoff b = backoff(Duration.ZERO, 0, 0);
    long total = 0;
    StringBuilder delays = new StringBuilder();
    for (long d = b.nextDelayMillis(); d >= 0; d = b.nextDelayMillis()) {
      delays.append(d).append(' ');
      advance(d);
      total += d;
    }
    assertThat(delays.toString()).startsWith("100 200 400 800 800 ");
    assertThat(total).isEqualTo(5_000); // the last attempt happens at the deadline
  }

  @Test
  void aSuccessEndsTheOutage() {
    Backoff b = backoff(Duration.ZERO, 0, 0);
    b.nextDelayMillis();
    b.nextDelayMillis();
    b.succeeded();
    assertThat(b.inOutage()).isFalse();
    assertThat(b.nextDelayMillis()).isEqualTo(100);
  }

  @Test
  void aConnectionThatBreaksAtOnceContinuesTheSameOutage() {
    Backoff b = backoff(Duration.ofSeconds(30), 0, 0);
    assertThat(b.nextDelayMillis()).isEqualTo(100);
    b.connected();
    advance(1_000);
    assertThat(b.nextDelayMillis()).isEqualTo(200); // not stable for 30 s: the same outage
    b.connected();
    advance(31_000);
    assertThat(b.nextDelayMillis()).isEqualTo(100); // stayed up: a new outage
  }

  @Test
  void jitterTakesOffAtMostItsShare() {
    Backoff b = backoff(Duration.ZERO, 0.5, 1.0);
    assertThat(b.nextDelayMillis()).isEqualTo(50);
    assertThat(b.nextDelayMillis()).isEqualTo(100);
  }

  @Test
  void logsTheFirstFailuresThenEveryThirtySeconds() {
    Backoff b = backoff(Duration.ZERO, 0, 0);
    for (int i = 0; i < 3; i++) {
      b.nextDelayMillis();
      assertThat(b.worthLogging()).isTrue();
    }
    b.nextDelayMillis();
    assertThat(b.worthLogging()).isFalse();
    advance(30_000);
    assertThat(b.worthLogging()).isTrue();
  }
}
