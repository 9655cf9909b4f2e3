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
    long ddlCount,
    String bodyDigest) {
  public AppliedTransaction {
    Objects.requireNonNull(bodyDigest, "bodyDigest");
    Objects.requireNonNull(sourceId, "sourceId");
    Objects.requireNonNull(databaseId, "databaseId");
    Objects.requireNonNull(datasetId, "datasetId");
    Objects.requireNonNull(commitLsn, "commitLsn");
    Objects.requireNonNull(transactionId, "transactionId");
  }

  /**
   * An envelope as it arrived, or ({@code fromChunks}) reassembled from a barrier in memory: its
   * checksum field then holds the manifest's (see {@code WholeBarrier}), so the digest names the
   * same body as the staged or streamed apply of that barrier would.
   */
  public static AppliedTransaction of(TransactionEnvelope e, boolean fromChunks) {
    return new AppliedTransaction(
        e.getSourceId(),
        e.getDatabaseId(),
        e.getDatasetId(),
        e.getCommitLsn(),
        e.getTransactionId(),
        e.getProtocolVersion(),
        e.getCommitTimestampMs(),
        e.getChangesCount(),
        e.getDdlEventsCount(),
        fromChunks ? BodyDigests.manifest(e.getChecksum()) : BodyDigests.envelope(e.getChecksum()));
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
        ddlCount,
        BodyDigests.manifest(m.getChecksum()));
  }

  public long eventCount() {
    return changeCount + ddlCount;
  }

  public TransactionBoundaryKey key() {
    return new TransactionBoundaryKey(sourceId, databaseId, commitLsn, transactionId);
  }
}
