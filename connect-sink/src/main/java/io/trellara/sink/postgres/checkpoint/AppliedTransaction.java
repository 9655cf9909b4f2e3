package io.trellara.sink.postgres.checkpoint;

import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.Objects;

/**
 * What the dedup record of one applied source transaction says ({@code
 * trellara_sink.applied_transactions}): its identity, commit position and time, and how many
 * changes and DDL events were applied. Built from an envelope, or from a barrier's manifest with
 * the counts the merge actually applied.
 */
public record AppliedTransaction(
    String sourceId,
    String databaseId,
    String datasetId,
    String commitLsn,
    String transactionId,
    int protocolVersion,
    long commitTimestampMs,
    long changeCount,
    long ddlCount) {
  public AppliedTransaction {
    Objects.requireNonNull(sourceId, "sourceId");
    Objects.requireNonNull(databaseId, "databaseId");
    Objects.requireNonNull(datasetId, "datasetId");
    Objects.requireNonNull(commitLsn, "commitLsn");
    Objects.requireNonNull(transactionId, "transactionId");
  }

  public static AppliedTransaction of(TransactionEnvelope e) {
    return new AppliedTransaction(
        e.getSourceId(),
        e.getDatabaseId(),
        e.getDatasetId(),
        e.getCommitLsn(),
        e.getTransactionId(),
        e.getProtocolVersion(),
        e.getCommitTimestampMs(),
        e.getChangesCount(),
        e.getDdlEventsCount());
  }

  public static AppliedTransaction of(TransactionManifest m, long changeCount, long ddlCount) {
    return new AppliedTransaction(
        m.getSourceId(),
        m.getDatabaseId(),
        m.getDatasetId(),
        m.getSourceCommitLsn(),
        m.getTransactionId(),
        m.getProtocolVersion(),
        m.getSourceCommitTimestampMs(),
        changeCount,
        ddlCount);
  }

  public long eventCount() {
    return changeCount + ddlCount;
  }

  public TransactionBoundaryKey key() {
    return new TransactionBoundaryKey(sourceId, databaseId, commitLsn, transactionId);
  }
}
