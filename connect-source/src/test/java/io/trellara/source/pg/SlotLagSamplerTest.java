package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SlotLagSamplerTest {
  private static SlotLagSampler.Sample sample(String walStatus, long safeWalBytes) {
    return new SlotLagSampler.Sample(
        300L << 20, "0/5000000", "0/1000000", 1L, walStatus, safeWalBytes, 42, "10GB");
  }

  @Test
  void saysNothingWhileTheSlotsWalIsReservedAndFarFromTheLimit() {
    assertThat(SlotLagSampler.warning("s", sample("reserved", -1), 1L << 30)).isNull();
    assertThat(SlotLagSampler.warning("s", sample("extended", 1L << 30), 1L << 30)).isNull();
    assertThat(SlotLagSampler.warning("s", sample(null, -1), 1L << 30)).isNull();
  }

  @Test
  void warnsNearTheLimitWhenWalIsNoLongerReservedAndWhenItIsLost() {
    assertThat(SlotLagSampler.warning("s", sample("reserved", 100L << 20), 1L << 30))
        .contains("100 MiB from max_slot_wal_keep_size")
        .contains("retained WAL 300 MiB");
    assertThat(SlotLagSampler.warning("s", sample("unreserved", 0), 1L << 30))
        .contains("next checkpoint may remove WAL it still needs");
    assertThat(SlotLagSampler.warning("s", sample("lost", -1), 1L << 30))
        .contains("has lost WAL")
        .contains("re-create");
  }

  @Test
  void warnsAboveSlotLagWarnBytesNamingTheLagAndTheLimit() {
    assertThat(SlotLagSampler.warning("s", sample("reserved", -1), 200L << 20))
        .contains("retains 300 MiB of WAL (about 42 s behind the server)")
        .contains("above slot.lag.warn.bytes (200 MiB; max_slot_wal_keep_size 10GB)");
    assertThat(SlotLagSampler.warning("s", sample("reserved", -1), 0)).isNull();
  }

  @Test
  void theFirstSampleReportsTheLimitAndWhatInvalidationDoes() {
    assertThat(SlotLagSampler.limitReport("s", sample("reserved", -1), 1L << 30))
        .contains("max_slot_wal_keep_size is 10GB")
        .contains("snapshot.mode=when_needed snapshots again")
        .contains("warns above 1024 MiB");
    SlotLagSampler.Sample unlimited =
        new SlotLagSampler.Sample(0, "0/1", "0/1", 1L, "reserved", -1, 0, "-1");
    assertThat(SlotLagSampler.limitReport("s", unlimited, 0))
        .contains("bounded only by the source's disk")
        .contains("no warning");
  }
}
