package io.trellara.sink.engine;

import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.Objects;

/**
 * What the sink deduplicates by: one source transaction within one flow (dataset). Two datasets of one source
 * may share a source transaction (a multi-table transaction touching a table of each); each flow's part is
 * applied once, and neither is a duplicate of the other.
 */
public record FlowKey(String datasetId, TransactionBoundaryKey transaction) {
    public FlowKey {
        Objects.requireNonNull(datasetId, "datasetId");
        Objects.requireNonNull(transaction, "transaction");
    }

    public static FlowKey of(TransactionEnvelope e) {
        return new FlowKey(e.getDatasetId(), new TransactionBoundaryKey(e.getSourceId(), e.getDatabaseId(),
                e.getCommitLsn(), e.getTransactionId()));
    }

    public static FlowKey of(TransactionManifest m) {
        return new FlowKey(m.getDatasetId(), new TransactionBoundaryKey(m.getSourceId(), m.getDatabaseId(),
                m.getSourceCommitLsn(), m.getTransactionId()));
    }

    public static FlowKey of(TransactionCommitMarker k) {
        return new FlowKey(k.getDatasetId(), new TransactionBoundaryKey(k.getSourceId(), k.getDatabaseId(),
                k.getSourceCommitLsn(), k.getTransactionId()));
    }

    /** The manifest's transaction, as the dedup table names it. */
    public static TransactionBoundaryKey boundaryKey(TransactionManifest m) {
        return new TransactionBoundaryKey(m.getSourceId(), m.getDatabaseId(), m.getSourceCommitLsn(),
                m.getTransactionId());
    }

    /** The flow: {@code source_id/dataset_id}, whose commit LSNs only grow in strict order. */
    public Flow flow() {
        return new Flow(transaction.sourceId(), datasetId);
    }

    public String display() {
        return transaction.display() + " (dataset " + datasetId + ')';
    }

    /** One flow of one source. */
    public record Flow(String sourceId, String datasetId) {
        @Override
        public String toString() {
            return sourceId + '/' + datasetId;
        }
    }
}
