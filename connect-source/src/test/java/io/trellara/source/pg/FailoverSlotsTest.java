package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FailoverSlotsTest {

  @Test
  void theStandbySlotsOfTheSettingAreItsCommaSeparatedNamesUnquoted() {
    assertThat(FailoverSlots.standbySlots("")).isEmpty();
    assertThat(FailoverSlots.standbySlots(null)).isEmpty();
    assertThat(FailoverSlots.standbySlots("standby1")).containsExactly("standby1");
    assertThat(FailoverSlots.standbySlots(" standby1 , \"Standby 2\","))
        .containsExactly("standby1", "Standby 2");
  }
}
