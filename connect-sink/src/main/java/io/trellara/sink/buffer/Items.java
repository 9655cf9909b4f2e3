package io.trellara.sink.buffer;

import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.port.BarrierState;

/** What a partition's queue holds, in arrival order (see {@link PartitionState}). */
final class Items {
  private Items() {}

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

    OrphanMarkerItem(TransactionCommitMarker marker, Input in) {
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
