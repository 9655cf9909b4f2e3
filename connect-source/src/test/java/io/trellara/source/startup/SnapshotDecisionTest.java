package io.trellara.source.startup;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.source.kafka.SourcePosition;
import io.trellara.source.snapshot.SnapshotMode;
import io.trellara.source.snapshot.SnapshotPlan;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotDecisionTest {
  static final Map<String, Object> DONE =
      new StoredOffset.At(
              new SourcePosition("0/16B3748", 0x16B3790L, "771", "7390000000000000001", 1L))
          .toMap();

  /** The offset of a snapshot's records before its marker. */
  static final Map<String, Object> RUNNING_OFFSET = new StoredOffset.Running(0).toMap();

  /** Decides on {@code offset} as Connect gives it back (a map), as the start does. */
  private static SnapshotDecision decide(
      SnapshotMode mode, Map<String, ?> offset, String slotStatus) {
    StoredOffset o = StoredOffset.of(offset);
    String unfinished =
        o instanceof StoredOffset.Running ? "Connect's offset says it was running" : null;
    return SnapshotDecision.decide(mode, o, unfinished, slotStatus, "trellara");
  }

  @Test
  void initialSnapshotsWithoutOffsetsInANewSlot() {
    SnapshotDecision d = decide(SnapshotMode.INITIAL, null, null);
    assertThat(d.plan()).isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
    assertThat(d.dropSlot()).isFalse();
    SnapshotDecision existing = decide(SnapshotMode.INITIAL, null, "reserved");
    assertThat(existing.dropSlot())
        .as("a snapshot is consistent only with the slot created with it")
        .isTrue();
    assertThat(existing.message()).contains("dropped and created again");
  }

  @Test
  void anUnfinishedSnapshotIsTakenAgainFromTheBeginning() {
    SnapshotDecision d = decide(SnapshotMode.INITIAL, RUNNING_OFFSET, "reserved");
    assertThat(d.plan()).isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
    assertThat(d.dropSlot()).isTrue();
    assertThat(d.message()).contains("did not finish");
  }

  @Test
  void offsetsStreamWithoutASnapshot() {
    assertThat(decide(SnapshotMode.INITIAL, DONE, "reserved").plan())
        .isEqualTo(SnapshotPlan.STREAM);
    // initial warns about a vanished slot (the task does) but does not snapshot again; when_needed
    // does
    assertThat(decide(SnapshotMode.INITIAL, DONE, null).plan()).isEqualTo(SnapshotPlan.STREAM);
    assertThat(decide(SnapshotMode.WHEN_NEEDED, DONE, null).plan())
        .isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
    SnapshotDecision lost = decide(SnapshotMode.WHEN_NEEDED, DONE, "lost");
    assertThat(lost.plan()).isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
    assertThat(lost.dropSlot()).isTrue();
    assertThat(lost.message()).contains("wal_status lost");
    assertThat(decide(SnapshotMode.WHEN_NEEDED, DONE, "extended").plan())
        .isEqualTo(SnapshotPlan.STREAM);
  }

  @Test
  void neverStreamsAndInitialOnlyStopsAfterItsSnapshot() {
    assertThat(decide(SnapshotMode.NEVER, null, null).plan()).isEqualTo(SnapshotPlan.STREAM);
    assertThat(decide(SnapshotMode.NEVER, RUNNING_OFFSET, "reserved").plan())
        .isEqualTo(SnapshotPlan.STREAM);
    assertThat(decide(SnapshotMode.INITIAL_ONLY, null, null).plan())
        .isEqualTo(SnapshotPlan.SNAPSHOT_ONLY);
    assertThat(SnapshotPlan.SNAPSHOT_ONLY.temporarySlot()).isTrue();
    assertThat(decide(SnapshotMode.INITIAL_ONLY, DONE, null).plan())
        .isEqualTo(SnapshotPlan.NOTHING);
  }

  @Test
  void modesParseFromTheirConfigNames() {
    assertThat(SnapshotMode.names())
        .containsExactly("initial", "never", "initial_only", "when_needed");
    assertThat(SnapshotMode.of(" When_Needed ")).isEqualTo(SnapshotMode.WHEN_NEEDED);
  }
}
