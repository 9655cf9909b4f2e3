package io.trellara.source.startup;

import io.trellara.source.snapshot.SnapshotMode;
import io.trellara.source.snapshot.SnapshotPlan;

/**
 * Whether the task snapshots before it streams ({@code snapshot.mode}), given the position it
 * resumes from ({@link StartDecision}: Connect's offset or its topic's tail, after {@link
 * ResumeDecision}), whether a snapshot did not finish, and the slot. Records of a snapshot carry
 * the offset {@code snapshot=running} until its commit marker, which carries the ordinary offset at
 * the consistent point: a snapshot whose commit marker is neither in Connect's offsets nor on the
 * topic did not finish, and is taken again from the beginning.
 *
 * @param plan what the engine does
 * @param dropSlot an existing slot must be dropped first (the snapshot creates the slot with its
 *     snapshot)
 * @param message what to log
 */
public record SnapshotDecision(SnapshotPlan plan, boolean dropSlot, String message) {

  /**
   * @param position the position the task resumes from (None: none, or one of another WAL history)
   * @param unfinished why the last snapshot did not finish (it is taken again), or null when none
   *     is unfinished
   * @param slotStatus the slot's wal_status; null when the slot does not exist
   */
  public static SnapshotDecision decide(
      SnapshotMode mode, StoredOffset position, String unfinished, String slotStatus, String slot) {
    boolean resumable = unfinished == null && position instanceof StoredOffset.At;
    boolean slotExists = slotStatus != null;
    boolean slotLost = "lost".equals(slotStatus);
    String why =
        unfinished != null
            ? "the last snapshot did not finish (" + unfinished + ")"
            : "neither Connect's offsets nor the strict topic hold a position of this source (it"
                + " never published a transaction, or its offsets and records are gone)";
    return switch (mode) {
      case NEVER ->
          stream(
              "snapshot.mode=never: no snapshot; streaming from "
                  + (position instanceof StoredOffset.At ? "the position" : "the slot's position")
                  + (unfinished == null ? "" : " although " + why));
      case INITIAL ->
          resumable
              ? stream("A position exists: streaming, no snapshot" + slotNote(slotStatus, slot))
              : snapshot(SnapshotPlan.SNAPSHOT_THEN_STREAM, slotExists, why, slot);
      case INITIAL_ONLY ->
          resumable
              ? new SnapshotDecision(
                  SnapshotPlan.NOTHING,
                  false,
                  "snapshot.mode=initial_only and the snapshot completed: nothing to do")
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
                  + ", so the changes after the position cannot be streamed",
              slot);
        }
        yield stream(
            "A position exists and slot " + slot + " can continue it: streaming, no snapshot");
      }
    };
  }

  /** What initial does about a slot that cannot continue the position: it streams anyway. */
  private static String slotNote(String slotStatus, String slot) {
    if (slotStatus == null) {
      return "; slot "
          + slot
          + " does not exist, so it is created now and what committed after the position and"
          + " before now is not captured (snapshot.mode=when_needed would snapshot again instead)";
    }
    if ("lost".equals(slotStatus)) {
      return "; slot "
          + slot
          + " was invalidated by PostgreSQL (wal_status lost), so streaming it will fail"
          + " (snapshot.mode=when_needed would snapshot again instead)";
    }
    return "";
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
                    + " is dropped and created again with an exported snapshot (a snapshot is"
                    + " consistent only with the slot created with it)"
                : "")
            + (plan.stream() ? "" : "; snapshot.mode=initial_only: nothing is streamed after it"));
  }
}
