package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SlotLagSamplerTest {
  private static SlotLagSampler.Sample sample(String walStatus, long safeWalBytes) {
    return new SlotLagSampler.Sample(
        300L << 20, "0/5000000", "0/1000000", 1L, walStatus, safeWalBytes);
  }

  @Test
  void saysNothingWhileTheSlotsWalIsReservedAndFarFromTheLimit() {
    assertThat(SlotLagSampler.warning("s", sample("reserved", -1))).isNull();
    assertThat(SlotLagSampler.warning("s", sample("extended", 1L << 30))).isNull();
    assertThat(SlotLagSampler.warning("s", sample(null, -1))).isNull();
  }

  @Test
  void warnsNearTheLimitWhenWalIsNoLongerReservedAndWhenItIsLost() {
    assertThat(SlotLagSampler.warning("s", sample("reserved", 100L << 20)))
        .contains("100 MiB from max_slot_wal_keep_size")
        .contains("retained WAL 300 MiB");
    assertThat(SlotLagSampler.warning("s", sample("unreserved", 0)))
        .contains("next checkpoint may remove WAL it still needs");
    assertThat(SlotLagSampler.warning("s", sample("lost", -1)))
        .contains("has lost WAL")
        .contains("re-create");
  }
}
