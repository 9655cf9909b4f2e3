package io.trellara.sink.buffer;

import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The buffer's bookkeeping per input partition: the queue of envelopes, barriers, orphan markers
 * and poison in arrival order, the manifest waiting for its marker, the strict-chunked transaction
 * streaming from it, the lane chunks held from it, and the durable position they imply.
 */
final class PartitionState {
  final TopicPartitionKey tp;
  final ArrayDeque<Items.Item> queue = new ArrayDeque<>();
  Items.PendingManifest pendingManifest;

  /** The offset after the last record taken from this partition; -1 none yet. */
  long next = -1;

  /** The offset of the first record taken from this partition; -1 none yet. */
  long first = -1;

  /** Carried an envelope, manifest or marker: not a pure lane. */
  boolean boundaries;

  boolean poisoned;
  long queuedBytes;

  /** The strict-chunked transaction being applied as its chunks arrive, or null. */
  StreamCursor stream;

  /** A lane: the flow its chunks belong to (the newest seen), or null. */
  FlowKey.Flow laneFlow;

  /** Lane chunks held in memory ({@link LaneHolds}), in offset order: durable only once applied. */
  final ArrayDeque<LaneHolds.Held> held = new ArrayDeque<>();

  /** Records before this offset are skipped (the consumer was asked to deliver again); -1 none. */
  long rewindTo = -1;

  /** A transaction to apply the staged way when it comes again (streaming failed), or null. */
  TransactionBoundaryKey stageTransaction;

  PartitionState(TopicPartitionKey tp) {
    this.tp = tp;
  }

  void seen(long offset) {
    next = offset + 1;
  }

  boolean carriesBoundaries() {
    return boundaries;
  }

  /** Nothing queued, pending or streaming: every record taken so far is durable. */
  boolean idle() {
    return queue.isEmpty()
        && pendingManifest == null
        && stream == null
        && rewindTo < 0
        && held.isEmpty();
  }

  long durable() {
    if (!held.isEmpty()) {
      return held.peek().offset; // a lane: nothing else is ever queued on it
    }
    if (!queue.isEmpty()) {
      return queue.peek().firstOffset();
    }
    if (pendingManifest != null) {
      return pendingManifest.offset();
    }
    if (stream != null) {
      return stream.firstOffset;
    }
    return rewindTo >= 0 ? rewindTo : next;
  }

  /** The durable position once the first {@code items} queued items are applied. */
  long positionAfter(int items) {
    Iterator<Items.Item> it = queue.iterator();
    for (int i = 0; i < items; i++) {
      it.next();
    }
    if (it.hasNext()) {
      return it.next().firstOffset();
    }
    return pendingManifest != null ? pendingManifest.offset() : next;
  }

  /**
   * A strict-chunked transaction streaming into one open target transaction: where it began, the
   * chunk index due next and its manifest once seen. The buffer alone decides from this what
   * continues the stream; the target's stream only writes.
   */
  static final class StreamCursor {
    final TransactionBoundaryKey key;
    final long firstOffset;
    int nextIndex;
    TransactionManifest manifest;

    /** When the stream last moved (opened, or a record fed to it), on the buffer's clock. */
    long lastProgressNanos;

    StreamCursor(TransactionBoundaryKey key, long firstOffset) {
      this.key = key;
      this.firstOffset = firstOffset;
    }

    /** This chunk continues the transaction: the same identity, the next index, no manifest yet. */
    boolean continuesWith(io.trellara.protocol.v1.PartitionChunk c) {
      return manifest == null
          && c.getPartitionId() == nextIndex
          && c.getTransactionId().equals(key.transactionId())
          && c.getCommitLsn().equals(key.commitLsn())
          && c.getSourceId().equals(key.sourceId());
    }

    /** {@code m} is this transaction's manifest, due now. */
    boolean isManifest(TransactionManifest m) {
      return manifest == null
          && nextIndex > 0
          && m.getTransactionId().equals(key.transactionId())
          && m.getSourceCommitLsn().equals(key.commitLsn())
          && m.getSourceId().equals(key.sourceId());
    }
  }
}
