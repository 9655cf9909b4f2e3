package io.trellara.source.replication;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IdleWaitTest {
  private static final long MS = 1_000_000L;

  @Test
  void neverPausesWhileMessagesFlowedLately() {
    IdleWait w = new IdleWait(0);
    assertThat(w.pauseNanos(0)).isZero();
    assertThat(w.pauseNanos(999 * MS)).isZero();
    w.message(900 * MS);
    assertThat(w.pauseNanos(1_800 * MS)).isZero();
  }

  @Test
  void pausesBetweenLooksOnceTheStreamHasBeenQuiet() {
    IdleWait w = new IdleWait(0);
    assertThat(w.pauseNanos(1_000 * MS)).isEqualTo(IdleWait.QUIET_PAUSE_NANOS);
    assertThat(w.pauseNanos(60_000 * MS)).isEqualTo(IdleWait.QUIET_PAUSE_NANOS);
    w.message(60_000 * MS);
    assertThat(w.pauseNanos(60_001 * MS)).isZero();
  }
}
