package io.trellara.sink.engine;

import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolViolationException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The fast path for a strict-chunked transaction whose chunks, manifest and commit marker all arrived in one
 * batch: the whole barrier is verified in memory ({@link BarrierVerifier#verify}) and reassembled into the
 * transaction's envelope, which then applies exactly like an envelope (grouped with its neighbours in one
 * target transaction), without staging a byte. Anything the in-memory verification refuses goes the staged
 * way instead, where the same rules stop apply at the same place.
 */
final class WholeBarrier {
    private WholeBarrier() {
    }

    /** The reassembled envelope, or null when the barrier does not verify (the staged path will say why). */
    static TransactionEnvelope assemble(TransactionManifest m, TransactionCommitMarker k, List<PartitionChunk> chunks) {
        if (m.getBoundaryMode() != ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER) {
            return null;
        }
        try {
            BarrierVerifier.verify(m, k, chunks);
        } catch (ProtocolViolationException e) {
            return null;
        }
        PartitionChunk first = chunks.get(0);
        TransactionEnvelope.Builder e = TransactionEnvelope.newBuilder()
                .setProtocolVersion(m.getProtocolVersion()).setSourceId(m.getSourceId())
                .setDatabaseId(m.getDatabaseId()).setDatasetId(m.getDatasetId())
                .setTransactionId(m.getTransactionId()).setBeginLsn(first.getBeginLsn())
                .setCommitLsn(m.getSourceCommitLsn()).setCommitTimestampMs(m.getSourceCommitTimestampMs());
        Set<SchemaVersion> schemas = new HashSet<>();
        long last = 0;
        for (PartitionChunk c : chunks) { // in chunk index order: each chunk continues the total order
            if (c.getChangesCount() + c.getDdlEventsCount() > 0 && firstOrder(c) <= last) {
                return null; // not in order as published: let the staged path merge it
            }
            last = lastOrder(c);
            for (SchemaVersion s : c.getSchemaVersionsList()) {
                if (schemas.add(s)) {
                    if (SchemaVersions.count(s.getRelation(), e.getSchemaVersionsList()) > 0) {
                        // two versions of one relation (a DDL inside the transaction): a change that names no
                        // fingerprint is unambiguous only in its own chunk, so let the staged path apply by chunk
                        return null;
                    }
                    e.addSchemaVersions(s);
                }
            }
            e.addAllChanges(c.getChangesList()).addAllDdlEvents(c.getDdlEventsList());
        }
        return e.build();
    }

    private static long firstOrder(PartitionChunk c) {
        long change = c.getChangesCount() > 0 ? c.getChanges(0).getTotalOrder() : Long.MAX_VALUE;
        long ddl = c.getDdlEventsCount() > 0 ? c.getDdlEvents(0).getTotalOrder() : Long.MAX_VALUE;
        return Math.min(change, ddl);
    }

    private static long lastOrder(PartitionChunk c) {
        long change = c.getChangesCount() > 0 ? c.getChanges(c.getChangesCount() - 1).getTotalOrder() : 0;
        long ddl = c.getDdlEventsCount() > 0 ? c.getDdlEvents(c.getDdlEventsCount() - 1).getTotalOrder() : 0;
        return Math.max(change, ddl);
    }
}
