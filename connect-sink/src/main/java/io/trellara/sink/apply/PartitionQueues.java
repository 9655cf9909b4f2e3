package io.trellara.sink.apply;

import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * {@link ApplyPipeline}'s bookkeeping per input partition: the queue of envelopes, barriers, orphan markers and
 * poison in arrival order, the manifest waiting for its marker, and the durable position they imply.
 */
final class PartitionQueues {
    private PartitionQueues() {
    }


    static final class PartitionState {
        final TopicPartitionKey tp;
        final ArrayDeque<Item> queue = new ArrayDeque<>();
        PendingManifest pendingManifest;
        /** The offset after the last record taken from this partition; -1 none yet. */
        long next = -1;
        /** Carried an envelope, manifest or marker: not a pure lane. */
        boolean boundaries;
        boolean poisoned;
        long queuedBytes;

        PartitionState(TopicPartitionKey tp) {
            this.tp = tp;
        }

        void seen(long offset) {
            next = offset + 1;
        }

        boolean carriesBoundaries() {
            return boundaries;
        }

        /** Nothing queued or pending: every record taken so far is durable. */
        boolean idle() {
            return queue.isEmpty() && pendingManifest == null;
        }

        long durable() {
            if (!queue.isEmpty()) {
                return queue.peek().firstOffset();
            }
            return pendingManifest != null ? pendingManifest.offset() : next;
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

    record PendingManifest(TransactionManifest manifest, long offset) {
    }

    abstract static class Item {
        abstract long firstOffset();

        abstract long bytes();
    }

    /** An envelope, or a whole strict-chunked barrier reassembled into one (offsets: first chunk to marker). */
    static final class EnvelopeItem extends Item {
        final TransactionEnvelope envelope;
        final long offset;
        final long lastOffset;
        final boolean assembled;
        private long bytes;

        EnvelopeItem(TransactionEnvelope envelope, long offset, long lastOffset, long bytes, boolean assembled) {
            this.envelope = envelope;
            this.offset = offset;
            this.lastOffset = lastOffset;
            this.bytes = bytes;
            this.assembled = assembled;
        }

        @Override
        long firstOffset() {
            return offset;
        }

        @Override
        long bytes() {
            if (bytes < 0) {
                bytes = envelope.getSerializedSize(); // only for envelopes that wait: most never do
            }
            return bytes;
        }
    }

    static final class BarrierItem extends Item {
        final TransactionManifest manifest;
        final long manifestOffset;
        final long markerOffset;
        BarrierState.Verdict verdict;
        long checkedAt;
        long checkedGeneration;

        BarrierItem(TransactionManifest manifest, long manifestOffset, long markerOffset) {
            this.manifest = manifest;
            this.manifestOffset = manifestOffset;
            this.markerOffset = markerOffset;
        }

        @Override
        long firstOffset() {
            return manifestOffset;
        }

        @Override
        long bytes() {
            return manifest.getSerializedSize();
        }
    }

    static final class OrphanMarkerItem extends Item {
        final TransactionCommitMarker marker;
        final long offset;
        final String where;

        OrphanMarkerItem(TransactionCommitMarker marker, ApplyPipeline.Input in) {
            this.marker = marker;
            this.offset = in.offset();
            this.where = in.where();
        }

        @Override
        long firstOffset() {
            return offset;
        }

        @Override
        long bytes() {
            return 0;
        }
    }

    static final class PoisonItem extends Item {
        final RuntimeException error;
        final long offset;

        PoisonItem(RuntimeException error, long offset) {
            this.error = error;
            this.offset = offset;
        }

        @Override
        long firstOffset() {
            return offset;
        }

        @Override
        long bytes() {
            return 0;
        }
    }
}
