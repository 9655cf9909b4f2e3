package io.trellara.sink.engine;

import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.port.BarrierState;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.TargetStream;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * {@link ApplyPipeline}'s bookkeeping per input partition: the queue of envelopes, barriers, orphan
 * markers and poison in arrival order, the manifest waiting for its marker, and the durable
 * position they imply.
 */
final class PartitionQueues {
  private PartitionQueues() {}

  static final class PartitionState {
    final TopicPartitionKey tp;
    final ArrayDeque<Item> queue = new ArrayDeque<>();
    PendingManifest pendingManifest;

    /** The offset after the last record taken from this partition; -1 none yet. */
    long next = -1;

    /** The offset of the first record taken from this partition; -1 none yet. */
    long first = -1;

    /** Carried an envelope, manifest or marker: not a pure lane. */
    boolean boundaries;

    boolean poisoned;
    long queuedBytes;

    /** The strict-chunked transaction being applied as its chunks arrive, or null. */
    TargetStream stream;

    /** A lane: the flow its chunks belong to (the newest seen), or null. */
    FlowKey.Flow laneFlow;

    /**
     * Lane chunks held in memory ({@link LaneBuffer}), in offset order: durable only once applied.
     */
    final ArrayDeque<LaneBuffer.Held> held = new ArrayDeque<>();

    /** The offset of the stream's first chunk: durable up to there until it commits. */
    long streamFirstOffset = -1;

    /**
     * Records before this offset are skipped (the consumer was asked to deliver again from it); -1
     * none.
     */
    long rewindTo = -1;

    /**
     * A transaction to apply the staged way when it comes again (streaming it did not work), or
     * null.
     */
    io.trellara.protocol.TransactionBoundaryKey stageTransaction;

    /** Since when streamed attempts keep failing transiently (System.nanoTime), or 0. */
    long streamFailingSince;

    long streamBackoffMillis;

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
        return streamFirstOffset;
      }
      return rewindTo >= 0 ? rewindTo : next;
    }

    /** The durable position once the first {@code items} queued items are applied. */
    long positionAfter(int items) {
      Iterator<Item> it = queue.iterator();
      for (int i = 0; i < items; i++) {
        it.next();
      }
      if (it.hasNext()) {
        return it.next().firstOffset();
      }
      return pendingManifest != null ? pendingManifest.offset() : next;
    }
  }

  record PendingManifest(TransactionManifest manifest, long offset) {}

  /**
   * What the buffer hands on, in arrival order: a whole envelope (or a whole barrier reassembled
   * into one), a barrier (manifest bound to its marker, ready once its chunks are staged), a marker
   * without its manifest, or a poison. Queued at {@code firstOffset}: the partition is durable up
   * to there until it is applied.
   */
  abstract static sealed class Item
      permits EnvelopeItem, BarrierItem, OrphanMarkerItem, PoisonItem {
    final long firstOffset;

    Item(long firstOffset) {
      this.firstOffset = firstOffset;
    }

    long firstOffset() {
      return firstOffset;
    }

    /** Bytes held in memory while it waits. */
    long bytes() {
      return 0;
    }
  }

  /**
   * An envelope, or a whole strict-chunked barrier reassembled into one (offsets: first chunk to
   * marker).
   */
  static final class EnvelopeItem extends Item {
    final TransactionEnvelope envelope;
    final long lastOffset;
    final boolean assembled;

    /** Assembled from lane chunks held in memory: they are released once it commits. */
    final boolean fromHeldLanes;

    private long bytes;

    EnvelopeItem(
        TransactionEnvelope envelope, long offset, long lastOffset, long bytes, boolean assembled) {
      this(envelope, offset, lastOffset, bytes, assembled, false);
    }

    EnvelopeItem(
        TransactionEnvelope envelope,
        long offset,
        long lastOffset,
        long bytes,
        boolean assembled,
        boolean fromHeldLanes) {
      super(offset);
      this.envelope = envelope;
      this.lastOffset = lastOffset;
      this.bytes = bytes;
      this.assembled = assembled;
      this.fromHeldLanes = fromHeldLanes;
    }

    @Override
    long bytes() {
      if (bytes < 0) {
        bytes = envelope.getSerializedSize(); // only for envelopes that wait: most never do
      }
      return bytes;
    }
  }

  /** A manifest bound to its commit marker, from the manifest's offset. */
  static final class BarrierItem extends Item {
    final TransactionManifest manifest;
    final TransactionCommitMarker marker;
    final long markerOffset;

    /** Its held lane chunks did not verify in memory: the staged way judges it. */
    boolean notInMemory;

    BarrierState.Verdict verdict;
    long checkedAt;
    long checkedGeneration;

    /** When this barrier was first found waiting for chunks (System.nanoTime), or 0. */
    long waitingSince;

    boolean waitLogged;

    /** How many listed chunks it lacked at its last check (fewer now: progress). */
    int absentChunks = Integer.MAX_VALUE;

    BarrierItem(
        TransactionManifest manifest,
        long manifestOffset,
        TransactionCommitMarker marker,
        long markerOffset) {
      super(manifestOffset);
      this.manifest = manifest;
      this.marker = marker;
      this.markerOffset = markerOffset;
    }

    @Override
    long bytes() {
      return manifest.getSerializedSize();
    }
  }

  /** A commit marker without its manifest: fine only as the replay of an applied transaction. */
  static final class OrphanMarkerItem extends Item {
    final TransactionCommitMarker marker;
    final String where;

    OrphanMarkerItem(TransactionCommitMarker marker, ApplyPipeline.Input in) {
      super(in.offset());
      this.marker = marker;
      this.where = in.where();
    }
  }

  /** A failure thrown when everything queued before it is applied. */
  static final class PoisonItem extends Item {
    final RuntimeException error;

    PoisonItem(RuntimeException error, long offset) {
      super(offset);
      this.error = error;
    }
  }
}
