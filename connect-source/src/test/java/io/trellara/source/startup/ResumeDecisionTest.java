package io.trellara.source.startup;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.source.connect.TrellaraSourceConfig;
import io.trellara.source.kafka.SourcePosition;
import io.trellara.source.pg.ServerIdentity;
import io.trellara.source.startup.ResumeDecision.Verdict;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResumeDecisionTest {
  static final ServerIdentity SERVER = new ServerIdentity("7390000000000000001", 1);
  static final long END = 0x1_6B37_4D48L;

  private static Map<String, Object> offsetOf(ServerIdentity identity) {
    return new StoredOffset.At(
            new SourcePosition("1/6B374D40", END, "742", identity.systemId(), identity.timeline()))
        .toMap();
  }

  /** Decides on {@code offset} as Connect gives it back (a map). */
  private static ResumeDecision decide(Map<String, ?> offset, boolean accept) {
    return ResumeDecision.decide(StoredOffset.of(offset), SERVER, accept, "orders-source");
  }

  @Test
  void everyOffsetRecordsTheServersSystemIdentifierAsTextAndItsTimeline() {
    assertThat(offsetOf(SERVER))
        .containsEntry("system_id", "7390000000000000001")
        .containsEntry("timeline", 1L)
        .containsEntry("end_lsn", END)
        .containsEntry("commit_lsn", "1/6B374D40")
        .containsEntry("transaction_id", "742");
  }

  @Test
  void withoutAnOffsetTheSlotDecides() {
    ResumeDecision d = decide(null, false);
    assertThat(d.verdict()).isEqualTo(Verdict.NO_OFFSET);
    assertThat(d.startLsn()).isZero();
  }

  @Test
  void anOffsetOfTheSameServerResumesAtItsEndLsn() {
    ResumeDecision d = decide(offsetOf(SERVER), false);
    assertThat(d.verdict()).isEqualTo(Verdict.SAME_SERVER);
    assertThat(d.startLsn()).isEqualTo(END);
  }

  @Test
  void anOffsetReadBackFromKafkaWithIntegerTimelineStillMatches() {
    Map<String, Object> offset = new HashMap<>(offsetOf(SERVER));
    offset.put("timeline", 1); // the JSON converter may give back an Integer
    assertThat(decide(offset, false).verdict()).isEqualTo(Verdict.SAME_SERVER);
  }

  @Test
  void anOffsetOfAnOlderVersionWithoutIdentityIsTrustedAsBefore() {
    Map<String, Object> legacy =
        Map.of("commit_lsn", "1/6B374D40", "end_lsn", END, "transaction_id", "742");
    ResumeDecision d = decide(legacy, false);
    assertThat(d.verdict()).isEqualTo(Verdict.UNIDENTIFIED_OFFSET);
    assertThat(d.startLsn()).isEqualTo(END);
    assertThat(d.message()).contains("older version");
  }

  @Test
  void anotherTimelineOfTheSameSystemIsAcceptedAtTheOffsetNamingBothTimelines() {
    ResumeDecision d = decide(offsetOf(new ServerIdentity(SERVER.systemId(), 3)), false);
    assertThat(d.verdict()).isEqualTo(Verdict.NEW_TIMELINE);
    assertThat(d.startLsn()).isEqualTo(END);
    assertThat(d.message()).contains("timeline 3", "timeline 1", "promoted standby");
  }

  @Test
  void anotherSystemIdentifierIsRefusedNamingBothServersAndTheWaysOut() {
    ResumeDecision d = decide(offsetOf(new ServerIdentity("7280000000000000009", 2)), false);
    assertThat(d.verdict()).isEqualTo(Verdict.REFUSE);
    assertThat(d.message())
        .contains(
            "7280000000000000009",
            "7390000000000000001",
            "restored backup",
            "skip or duplicate transactions silently",
            "offsets.accept.new.history=true",
            "DELETE /connectors/orders-source/offsets");
  }

  @Test
  void anotherSystemIdentifierWithTheSettingStartsAtTheSlotsPosition() {
    ResumeDecision d = decide(offsetOf(new ServerIdentity("7280000000000000009", 1)), true);
    assertThat(d.verdict()).isEqualTo(Verdict.NEW_HISTORY_ACCEPTED);
    assertThat(d.startLsn()).isZero();
    assertThat(d.message())
        .contains("7280000000000000009", "7390000000000000001", "slot's own position");
  }

  @Test
  void theSettingChangesNothingOnTheSameServer() {
    ResumeDecision d = decide(offsetOf(SERVER), true);
    assertThat(d.verdict()).isEqualTo(Verdict.SAME_SERVER);
    assertThat(d.startLsn()).isEqualTo(END);
  }

  @Test
  void theSettingIsDefinedInTheReplicationGroupDefaultingToFalse() {
    var key =
        TrellaraSourceConfig.CONFIG_DEF
            .configKeys()
            .get(TrellaraSourceConfig.OFFSETS_ACCEPT_NEW_HISTORY);
    assertThat(key.group).isEqualTo("Replication");
    assertThat(key.defaultValue).isEqualTo(false);
    assertThat(key.displayName).isNotBlank();
  }
}
