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

  @Test
  void belowPostgreSql17TheSettingIsRefusedWithTheReason() {
    SourceProblem p = FailoverSlots.versionProblem(160004, "16.4");
    assertThat(p.property()).isEqualTo("slot.failover");
    assertThat(p.message())
        .contains("needs PostgreSQL 17 or later, but the server runs 16.4")
        .contains("failover slots");
    assertThat(FailoverSlots.versionProblem(150010, "15.10")).isNotNull();
    assertThat(FailoverSlots.versionProblem(170000, "17.0")).isNull();
    assertThat(FailoverSlots.versionProblem(180001, "18.1")).isNull();
  }
}
