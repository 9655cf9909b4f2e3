package io.trellara.protocol.boundary;

import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.AffectedTable;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cuts a whole transaction into strict-chunked-order chunks (partition_id = chunk index), then its manifest
 * and commit marker, each encoded through the one codec. The in-memory form, for transactions that fit in
 * memory; the source's streaming planner produces the same bytes chunk by chunk.
 */
public final class ChunkedBarrier {

    /** The messages in publication order: chunks, then the manifest, then the commit marker. */
    public record Barrier(List<EncodedMessage> chunks, EncodedMessage manifest, EncodedMessage commitMarker) {
        public List<EncodedMessage> inOrder() {
            List<EncodedMessage> all = new ArrayList<>(chunks);
            all.add(manifest);
            all.add(commitMarker);
            return all;
        }
    }

    private ChunkedBarrier() {
    }

    public static Barrier strictChunked(TransactionEnvelope tx, int maxEventsPerChunk) {
        if (maxEventsPerChunk <= 0) {
            throw new IllegalArgumentException("maxEventsPerChunk must be positive");
        }
        List<Object> events = mergeByTotalOrder(tx);
        List<EncodedMessage> chunks = new ArrayList<>();
        TransactionManifest.Builder manifest = TransactionManifest.newBuilder()
                .setProtocolVersion(tx.getProtocolVersion())
                .setSourceId(tx.getSourceId()).setDatabaseId(tx.getDatabaseId()).setDatasetId(tx.getDatasetId())
                .setTransactionId(tx.getTransactionId()).setSourceCommitLsn(tx.getCommitLsn())
                .setSourceCommitTimestampMs(tx.getCommitTimestampMs())
                .setGlobalEventCount(events.size()).setDdlEventCount(tx.getDdlEventsCount())
                .setBoundaryMode(ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER);
        for (int from = 0, index = 0; from < events.size(); from += maxEventsPerChunk, index++) {
            List<Object> slice = events.subList(from, Math.min(events.size(), from + maxEventsPerChunk));
            PartitionChunk.Builder chunk = PartitionChunk.newBuilder()
                    .setProtocolVersion(tx.getProtocolVersion())
                    .setSourceId(tx.getSourceId()).setDatabaseId(tx.getDatabaseId()).setDatasetId(tx.getDatasetId())
                    .setTransactionId(tx.getTransactionId()).setCommitLsn(tx.getCommitLsn())
                    .setBeginLsn(tx.getBeginLsn()).setCommitTimestampMs(tx.getCommitTimestampMs())
                    .setBoundaryMode(ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER)
                    .setPartitionId(index).addAllSchemaVersions(tx.getSchemaVersionsList());
            for (Object e : slice) {
                if (e instanceof ChangeRecord c) {
                    chunk.addChanges(c);
                } else {
                    chunk.addDdlEvents((DdlEvent) e);
                }
            }
            EncodedMessage encoded = TrellaraCodec.encode(chunk.build());
            chunks.add(encoded);
            manifest.addPartitions(ManifestPartition.newBuilder().setId(index).setEventCount(slice.size())
                    .setFirstTotalOrder(order(slice.get(0))).setLastTotalOrder(order(slice.get(slice.size() - 1)))
                    .setChecksum(encoded.checksum()));
        }
        manifest.addAllAffectedTables(affectedTables(tx));
        EncodedMessage encodedManifest = TrellaraCodec.encode(manifest.build());
        TransactionManifest m = manifest.setChecksum(encodedManifest.checksum()).build();
        TransactionCommitMarker marker = TransactionCommitMarker.newBuilder()
                .setProtocolVersion(tx.getProtocolVersion())
                .setSourceId(tx.getSourceId()).setDatabaseId(tx.getDatabaseId()).setDatasetId(tx.getDatasetId())
                .setTransactionId(tx.getTransactionId()).setSourceCommitLsn(tx.getCommitLsn())
                .setSourceCommitTimestampMs(tx.getCommitTimestampMs()).setGlobalEventCount(events.size())
                .setParticipatingPartitionCount(BarrierVerifier.participatingPartitions(m))
                .setManifestChecksum(encodedManifest.checksum()).build();
        return new Barrier(chunks, encodedManifest, TrellaraCodec.encode(marker));
    }

    private static List<Object> mergeByTotalOrder(TransactionEnvelope tx) {
        List<Object> all = new ArrayList<>(tx.getChangesCount() + tx.getDdlEventsCount());
        int i = 0;
        int j = 0;
        while (i < tx.getChangesCount() || j < tx.getDdlEventsCount()) {
            boolean takeChange = j >= tx.getDdlEventsCount() || (i < tx.getChangesCount()
                    && tx.getChanges(i).getTotalOrder() < tx.getDdlEvents(j).getTotalOrder());
            all.add(takeChange ? tx.getChanges(i++) : tx.getDdlEvents(j++));
        }
        return all;
    }

    private static long order(Object event) {
        return event instanceof ChangeRecord c ? c.getTotalOrder() : ((DdlEvent) event).getTotalOrder();
    }

    private static List<AffectedTable> affectedTables(TransactionEnvelope tx) {
        Map<String, AffectedTable.Builder> tables = new LinkedHashMap<>();
        for (ChangeRecord c : tx.getChangesList()) {
            RelationId r = c.getRelation();
            AffectedTable.Builder b = tables.computeIfAbsent(r.getSchema() + '.' + r.getTable(),
                    k -> AffectedTable.newBuilder().setRelation(r));
            b.setEventCount(b.getEventCount() + 1);
        }
        List<AffectedTable> out = new ArrayList<>();
        tables.values().forEach(b -> out.add(b.build()));
        return out;
    }
}
