package io.trellara.sink.port;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.Objects;

/**
 * What the sink deduplicates by: one source transaction within one flow (dataset). Two datasets of
 * one source may share a source transaction (a multi-table transaction touching a table of each);
 * each flow's part is applied once, and neither is a duplicate of the other.
 */
public record FlowKey(String datasetId, TransactionBoundaryKey transaction) {
  public FlowKey {
    Objects.requireNonNull(datasetId, "datasetId");
    Objects.requireNonNull(transaction, "transaction");
  }

  @Override
  public boolean equals(Object o) {
    return this == o
        || (o instanceof FlowKey k
            && datasetId.equals(k.datasetId)
            && transaction.equals(k.transaction));
  }

  @Override
  public int hashCode() {
    return 31 * datasetId.hashCode() + transaction.hashCode();
  }

  public static FlowKey of(TransactionEnvelope e) {
    return new FlowKey(
        e.getDatasetId(),
        new TransactionBoundaryKey(
            e.getSourceId(), e.getDatabaseId(), e.getCommitLsn(), e.getTransactionId()));
  }

  public static FlowKey of(TransactionManifest m) {
    return new FlowKey(
        m.getDatasetId(),
        new TransactionBoundaryKey(
            m.getSourceId(), m.getDatabaseId(), m.getSourceCommitLsn(), m.getTransactionId()));
  }

  public static FlowKey of(TransactionCommitMarker k) {
    return new FlowKey(
        k.getDatasetId(),
        new TransactionBoundaryKey(
            k.getSourceId(), k.getDatabaseId(), k.getSourceCommitLsn(), k.getTransactionId()));
  }

  /** The manifest's transaction, as the dedup table names it. */
  public static TransactionBoundaryKey boundaryKey(TransactionManifest m) {
    return new TransactionBoundaryKey(
        m.getSourceId(), m.getDatabaseId(), m.getSourceCommitLsn(), m.getTransactionId());
  }

  /** The flow: {@code source_id/dataset_id}, whose commit LSNs only grow in strict order. */
  public Flow flow() {
    return new Flow(transaction.sourceId(), datasetId);
  }

  /** The event key of the transaction ({@code source:lsn:txid}), as errors name it. */
  public String eventKey() {
    return EventKey.transaction(
        transaction.sourceId(), transaction.commitLsn(), transaction.transactionId());
  }

  public String display() {
    return transaction.display() + " (dataset " + datasetId + ')';
  }

  /** One flow of one source. */
  public record Flow(String sourceId, String datasetId) {
    /** The flow a manifest's transaction belongs to. */
    public static Flow of(TransactionManifest m) {
      return new Flow(m.getSourceId(), m.getDatasetId());
    }

    // written out: the generated ones go through a method handle per call, which showed in profiles
    // of the
    // lane buffer's lookups
    @Override
    public boolean equals(Object o) {
      return this == o
          || (o instanceof Flow f && sourceId.equals(f.sourceId) && datasetId.equals(f.datasetId));
    }

    @Override
    public int hashCode() {
      return 31 * sourceId.hashCode() + datasetId.hashCode();
    }

    @Override
    public String toString() {
      return sourceId + '/' + datasetId;
    }
  }
}
