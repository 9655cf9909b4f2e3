package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.*;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The commit barrier's cross-message rules: a manifest, its commit marker and every chunk it lists, each
 * already verified and validated on its own. Passing means the transaction is complete and unambiguous.
 */
public final class BarrierVerifier {

    private BarrierVerifier() {
    }

    /** Marker binds manifest: identity, counts and manifest_checksum. */
    public static void verifyMarker(TransactionManifest m, TransactionCommitMarker k) {
        String key = m.getSourceId() + ':' + m.getSourceCommitLsn() + ':' + m.getTransactionId();
        if (!k.getTransactionId().equals(m.getTransactionId())) {
            throw new ProtocolViolationException(TRANSACTION_ID_MISMATCH, "commit_marker.transaction_id", key,
                    "marker names '" + k.getTransactionId() + "'");
        }
        mismatch(!k.getSourceId().equals(m.getSourceId()), "source_id", key);
        mismatch(!k.getDatabaseId().equals(m.getDatabaseId()), "database_id", key);
        mismatch(!k.getDatasetId().equals(m.getDatasetId()), "dataset_id", key);
        mismatch(!k.getSourceCommitLsn().equals(m.getSourceCommitLsn()), "source_commit_lsn", key);
        mismatch(k.getSourceCommitTimestampMs() != m.getSourceCommitTimestampMs(), "source_commit_timestamp_ms", key);
        mismatch(k.getGlobalEventCount() != m.getGlobalEventCount(), "global_event_count", key);
        mismatch(k.getParticipatingPartitionCount() != participatingPartitions(m), "participating_partition_count",
                key);
        if (k.getManifestChecksum() != m.getChecksum()) {
            throw new ProtocolViolationException(MARKER_MANIFEST_CHECKSUM_MISMATCH, "commit_marker.manifest_checksum",
                    key, "marker binds " + Long.toUnsignedString(k.getManifestChecksum(), 16) + ", manifest is "
                            + Long.toUnsignedString(m.getChecksum(), 16));
        }
    }

    private static void mismatch(boolean differs, String field, String key) {
        if (differs) {
            throw new ProtocolViolationException(MARKER_IDENTITY_MISMATCH, "commit_marker." + field, key,
                    field + " differs from the manifest");
        }
    }

    /** Distinct partition ids listed by the manifest. */
    public static int participatingPartitions(TransactionManifest m) {
        return (int) m.getPartitionsList().stream().mapToInt(ManifestPartition::getId).distinct().count();
    }

    /** A chunk against the manifest entry that lists it. */
    public static ManifestPartition verifyChunk(TransactionManifest m, PartitionChunk c) {
        String key = m.getSourceId() + ':' + m.getSourceCommitLsn() + ':' + m.getTransactionId();
        String where = "chunk " + c.getPartitionId() + "/" + c.getChunkSequence();
        verifyIdentity(m, c);
        ManifestPartition entry = null;
        for (ManifestPartition p : m.getPartitionsList()) {
            if (p.getId() == c.getPartitionId() && p.getChunkSequence() == c.getChunkSequence()) {
                entry = p;
                break;
            }
        }
        if (entry == null) {
            throw new ProtocolViolationException(UNLISTED_CHUNK, "chunk.partition_id", key,
                    where + " is not listed by the manifest");
        }
        if (entry.getChecksum() != c.getChecksum()) {
            throw new ProtocolViolationException(CHUNK_CHECKSUM_MISMATCH, "chunk.checksum", key,
                    where + " has checksum " + Long.toUnsignedString(c.getChecksum(), 16) + ", the manifest lists "
                            + Long.toUnsignedString(entry.getChecksum(), 16));
        }
        long events = (long) c.getChangesCount() + c.getDdlEventsCount();
        if (events != entry.getEventCount()) {
            throw new ProtocolViolationException(EVENT_COUNT_MISMATCH, "chunk.changes", key,
                    where + " holds " + events + " events, the manifest lists " + entry.getEventCount());
        }
        for (ChangeRecord r : c.getChangesList()) {
            inRange(entry, r.getTotalOrder(), key, where);
        }
        for (DdlEvent d : c.getDdlEventsList()) {
            inRange(entry, d.getTotalOrder(), key, where);
        }
        return entry;
    }

    /** The chunk names the manifest's transaction: transaction id, source, dataset, LSN, timestamp, mode. */
    public static void verifyIdentity(TransactionManifest m, PartitionChunk c) {
        String key = m.getSourceId() + ':' + m.getSourceCommitLsn() + ':' + m.getTransactionId();
        String where = "chunk " + c.getPartitionId() + "/" + c.getChunkSequence();
        if (!c.getTransactionId().equals(m.getTransactionId())) {
            throw new ProtocolViolationException(TRANSACTION_ID_MISMATCH, "chunk.transaction_id", key,
                    where + " names transaction '" + c.getTransactionId() + "'");
        }
        if (!c.getSourceId().equals(m.getSourceId()) || !c.getDatasetId().equals(m.getDatasetId())
                || !c.getDatabaseId().equals(m.getDatabaseId()) || !c.getCommitLsn().equals(m.getSourceCommitLsn())
                || c.getCommitTimestampMs() != m.getSourceCommitTimestampMs()
                || c.getBoundaryMode() != m.getBoundaryMode()) {
            throw new ProtocolViolationException(CHUNK_IDENTITY_MISMATCH, "chunk", key,
                    where + " differs from its manifest in source, dataset, LSN, timestamp or boundary mode");
        }
    }

    private static void inRange(ManifestPartition entry, long order, String key, String where) {
        if (Long.compareUnsigned(order, entry.getFirstTotalOrder()) < 0
                || Long.compareUnsigned(order, entry.getLastTotalOrder()) > 0) {
            throw new ProtocolViolationException(CHUNK_RANGE_MISMATCH, "chunk.total_order", key + ":" + order,
                    where + " holds total_order " + order + " outside " + entry.getFirstTotalOrder() + ".."
                            + entry.getLastTotalOrder());
        }
    }

    /**
     * The whole barrier held in memory: marker binds manifest, every listed chunk present exactly once and
     * consistent, counts add up to global_event_count, no total_order repeats across all chunks.
     */
    public static void verify(TransactionManifest m, TransactionCommitMarker k, List<PartitionChunk> chunks) {
        String key = m.getSourceId() + ':' + m.getSourceCommitLsn() + ':' + m.getTransactionId();
        verifyMarker(m, k);
        if (chunks.isEmpty() || m.getGlobalEventCount() == 0) {
            throw new ProtocolViolationException(EMPTY_BARRIER, "partitions", key, "no chunk or no event");
        }
        Map<Long, PartitionChunk> byEntry = new HashMap<>();
        long events = 0;
        BitSet orders = new BitSet();
        for (PartitionChunk c : chunks) {
            verifyChunk(m, c);
            long id = ((long) c.getPartitionId() << 32) | (c.getChunkSequence() & 0xFFFFFFFFL);
            if (byEntry.putIfAbsent(id, c) != null) {
                throw new ProtocolViolationException(MANIFEST_DUPLICATE_CHUNK, "chunk.partition_id", key,
                        "chunk " + c.getPartitionId() + "/" + c.getChunkSequence() + " is held twice");
            }
            for (ChangeRecord r : c.getChangesList()) {
                mark(orders, r.getTotalOrder(), key);
            }
            for (DdlEvent d : c.getDdlEventsList()) {
                mark(orders, d.getTotalOrder(), key);
            }
            events += c.getChangesCount() + c.getDdlEventsCount();
        }
        for (ManifestPartition p : m.getPartitionsList()) {
            long id = ((long) p.getId() << 32) | (p.getChunkSequence() & 0xFFFFFFFFL);
            if (!byEntry.containsKey(id)) {
                throw new ProtocolViolationException(MISSING_CHUNK, "partitions", key,
                        "chunk " + p.getId() + "/" + p.getChunkSequence() + " listed by the manifest is missing");
            }
        }
        if (events != m.getGlobalEventCount()) {
            throw new ProtocolViolationException(EVENT_COUNT_MISMATCH, "global_event_count", key,
                    "chunks hold " + events + " events, global_event_count is " + m.getGlobalEventCount());
        }
    }

    private static void mark(BitSet orders, long order, String key) {
        // ranges were checked against global_event_count, so order fits an int index for any sane barrier
        int index = (int) Math.min(order, Integer.MAX_VALUE);
        if (orders.get(index)) {
            throw new ProtocolViolationException(DUPLICATE_TOTAL_ORDER, "total_order", key + ":" + order,
                    "total_order " + order + " appears in more than one event of the transaction");
        }
        orders.set(index);
    }
}
