package io.trellara.source.connect;

import io.trellara.source.snapshot.SnapshotMode;
import io.trellara.source.snapshot.SnapshotPlan;
import java.util.Map;

/**
 * Whether the task snapshots before it streams ({@code snapshot.mode}), given its Kafka offset
 * (after {@link ResumeDecision}) and the slot. Records of a snapshot carry the offset {@code
 * snapshot=running} until its commit marker, which carries the ordinary offset at the consistent
 * point: an offset that says "running" is a snapshot that did not finish, and is taken again from
 * the beginning.
 *
 * @param plan what the engine does
 * @param dropSlot an existing slot must be dropped first (the snapshot creates the slot with its
 *     snapshot)
 * @param message what to log
 */
record SnapshotDecision(SnapshotPlan plan, boolean dropSlot, String message) {
  static final String OFFSET_SNAPSHOT = "snapshot";
  static final String RUNNING = "running";

  /** The offset of a snapshot's records before its commit marker. */
  static final Map<String, Object> RUNNING_OFFSET = Map.of(OFFSET_SNAPSHOT, RUNNING);

  /**
   * @param offset the offset the task resumes from (null: none, or one of another WAL history)
   * @param slotStatus the slot's wal_status; null when the slot does not exist
   */
  static SnapshotDecision decide(
      SnapshotMode mode, Map<String, ?> offset, String slotStatus, String slot) {
    boolean unfinished =
        offset != null && RUNNING.equals(String.valueOf(offset.get(OFFSET_SNAPSHOT)));
    boolean resumable =
        offset != null && offset.get(TrellaraSourceTask.OFFSET_END_LSN) instanceof Number;
    boolean slotExists = slotStatus != null;
    boolean slotLost = "lost".equals(slotStatus);
    String why = unfinished ? "the last snapshot did not finish" : "the connector has no offsets";
    return switch (mode) {
      case NEVER ->
          stream(
              "snapshot.mode=never: no snapshot; streaming from "
                  + (resumable ? "the offsets" : "the slot's position"));
      case INITIAL ->
          resumable
              ? stream("Offsets exist: streaming, no snapshot")
              : snapshot(SnapshotPlan.SNAPSHOT_THEN_STREAM, slotExists, why, slot);
      case INITIAL_ONLY ->
          resumable
              ? new SnapshotDecision(
                  SnapshotPlan.NOTHING,
                  false,
                  "snapshot.mode=initial_only and the snapshot" + " completed: nothing to do")
              : snapshot(SnapshotPlan.SNAPSHOT_ONLY, slotExists, why, slot);
      case WHEN_NEEDED -> {
        if (!resumable) {
          yield snapshot(SnapshotPlan.SNAPSHOT_THEN_STREAM, slotExists, why, slot);
        }
        if (!slotExists || slotLost) {
          yield snapshot(
              SnapshotPlan.SNAPSHOT_THEN_STREAM,
              slotExists,
              "slot "
                  + slot
                  + (slotLost
                      ? " was invalidated by PostgreSQL (wal_status lost: max_slot_wal_keep_size)"
                      : " no longer exists")
                  + ", so the changes after the offsets cannot be streamed",
              slot);
        }
        yield stream(
            "Offsets exist and slot " + slot + " can continue them: streaming, no snapshot");
      }
    };
  }

  private static SnapshotDecision stream(String message) {
    return new SnapshotDecision(SnapshotPlan.STREAM, false, message);
  }

  private static SnapshotDecision snapshot(
      SnapshotPlan plan, boolean slotExists, String why, String slot) {
    return new SnapshotDecision(
        plan,
        slotExists,
        "Snapshot: "
            + why
            + (slotExists
                ? "; slot "
                    + slot
                    + " is dropped and created again with an exported snapshot (a snapshot is consistent only with"
                    + " the slot created with it)"
                : "")
            + (plan.stream()
                ? ""
                : "; snapshot.mode=initial_only: nothing" + " is streamed after it"));
  }
}
