package io.trellara.source.kafka;

import io.trellara.protocol.Lsn;

/**
 * The verdict of a topic's tail, from its records fed newest first (pure; {@link TopicTailReader}
 * reads them). On the strict partition the scan ends at the newest closing record of this source:
 * stamped with its offset ({@link OffsetHeaders}, same source id and slot), or, written by an
 * earlier version, without one. Chunks and manifests of this source met before it (they are newer)
 * belong to transactions whose commit marker is not on the topic; the newest such snapshot, and the
 * newest snapshot chunk on each lane of the partitioned topic, tell a snapshot that did not finish.
 */
final class TailScan {
  /** One record of the tail, without its value: where it is and whose it is. */
  record Entry(String where, OffsetHeaders.Stamp stamp, MessageIdentity identity) {}

  private final String sourceId;
  private final String slot;
  private OffsetHeaders.Stamp closing;
  private String closingAt = "";
  private boolean closingWithoutOffset;
  private long newestSnapshotChunk;
  private long scanned;

  TailScan(String sourceId, String slot) {
    this.sourceId = sourceId;
    this.slot = slot;
  }

  /** A record of the strict partition, newest first; true once the scan has its answer. */
  boolean strict(Entry e) {
    scanned++;
    if (e.stamp() != null) {
      if (e.stamp().of(sourceId, slot)) {
        closing = e.stamp();
        closingAt = e.where();
        return true;
      }
      return false; // another source's closing record
    }
    MessageIdentity id = e.identity();
    if (id == null || !id.sourceId().equals(sourceId)) {
      return false;
    }
    if (id.closes()) {
      closingWithoutOffset = true;
      closingAt = e.where();
      return true;
    }
    snapshotChunk(id);
    return false;
  }

  /**
   * A record of a lane of the partitioned topic, newest first; true at the first of this source.
   */
  boolean lane(Entry e) {
    scanned++;
    MessageIdentity id = e.identity();
    if (id == null || !id.sourceId().equals(sourceId)) {
      return false;
    }
    snapshotChunk(id);
    return true;
  }

  private void snapshotChunk(MessageIdentity id) {
    Lsn lsn = id.isSnapshot() ? Lsn.parseOrNull(id.commitLsn()) : null;
    if (lsn != null && lsn.value() > newestSnapshotChunk) {
      newestSnapshotChunk = lsn.value();
    }
  }

  long scanned() {
    return scanned;
  }

  /**
   * @param empty the strict partition holds no record
   * @param strictConcluded its scan found the closing record or reached the partition's beginning
   * @param lanesConcluded every lane's scan found a record of this source or reached the beginning
   * @param note what was read, for the log
   */
  TopicTail result(boolean empty, boolean strictConcluded, boolean lanesConcluded, String note) {
    long closedAt = closing == null ? 0 : closing.position().commitLsnValue();
    long open = newestSnapshotChunk > closedAt ? newestSnapshotChunk : 0;
    boolean complete = strictConcluded && lanesConcluded;
    TopicTail.Status status;
    if (closing != null) {
      status = TopicTail.Status.FOUND;
    } else if (closingWithoutOffset) {
      status = TopicTail.Status.WITHOUT_OFFSET;
    } else if (empty) {
      status = TopicTail.Status.EMPTY;
    } else {
      status = strictConcluded ? TopicTail.Status.NOT_FOUND : TopicTail.Status.INCOMPLETE;
    }
    return new TopicTail(
        status,
        closing == null ? null : closing.position(),
        closingAt,
        open,
        complete,
        scanned,
        note);
  }
}
