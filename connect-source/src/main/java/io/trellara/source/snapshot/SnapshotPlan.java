package io.trellara.source.snapshot;

/**
 * What the capture engine does before (or instead of) streaming.
 *
 * @param read create the slot with an exported snapshot and publish the snapshot transaction first
 * @param temporarySlot the slot only serves the snapshot and disappears with it (initial_only)
 * @param stream stream changes from the slot (false: initial_only, which publishes the snapshot and
 *     stops)
 */
public record SnapshotPlan(boolean read, boolean temporarySlot, boolean stream) {
  /** Today's behaviour without a snapshot: stream from the offsets or the slot's position. */
  public static final SnapshotPlan STREAM = new SnapshotPlan(false, false, true);

  /** Snapshot in a new slot, then stream from its consistent point (initial, when_needed). */
  public static final SnapshotPlan SNAPSHOT_THEN_STREAM = new SnapshotPlan(true, false, true);

  /** Snapshot in a temporary slot, then stop (initial_only). */
  public static final SnapshotPlan SNAPSHOT_ONLY = new SnapshotPlan(true, true, false);

  /** initial_only after its snapshot completed: nothing more to do. */
  public static final SnapshotPlan NOTHING = new SnapshotPlan(false, false, false);
}
