package io.trellara.source.startup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DatasetGuardTest {
  @Test
  void aStartUnderAnotherDatasetThanTheOffsetsIsRefusedNamingBoth() {
    String refusal =
        DatasetGuard.refusal(
            Map.of("end_lsn", 42L, "dataset_id", "orders-v1"), "orders-v2", "orders-source");
    assertThat(refusal).contains("'orders-v2'", "'orders-v1'", "orders-source", "applied a second");
  }

  @Test
  void theSameDatasetNoOffsetOrAnOffsetWithoutOneStarts() {
    assertThat(DatasetGuard.refusal(Map.of("dataset_id", "d"), "d", "c")).isNull();
    assertThat(DatasetGuard.refusal(null, "d", "c")).isNull();
    assertThat(DatasetGuard.refusal(Map.of("end_lsn", 42L), "d", "c")).isNull();
  }
}
