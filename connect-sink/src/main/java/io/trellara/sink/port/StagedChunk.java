package io.trellara.sink.port;

import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import java.util.Objects;

/**
 * One verified chunk as it is staged in {@code trellara_sink.staged_chunks}: the identity and
 * counts the barrier needs to find it, and the exact checksummed bytes (re-verified when the
 * barrier reads them back).
 *
 * @param partitionId the chunk's partition_id: the lane (partitioned) or the chunk index (strict
 *     chunked)
 * @param chunkSequence the chunk's number within its lane (0 in strict chunked order)
 * @param checksum the chunk's own checksum (what its manifest entry lists)
 * @param payload the encoded chunk, checksum included
 */
public record StagedChunk(
    String sourceId,
    String databaseId,
    String datasetId,
    String commitLsn,
    String transactionId,
    ManifestBoundaryMode boundaryMode,
    long partitionId,
    long chunkSequence,
    long checksum,
    long eventCount,
    long firstTotalOrder,
    long lastTotalOrder,
    byte[] payload) {
  public StagedChunk {
    Objects.requireNonNull(sourceId, "sourceId");
    Objects.requireNonNull(commitLsn, "commitLsn");
    Objects.requireNonNull(transactionId, "transactionId");
    Objects.requireNonNull(boundaryMode, "boundaryMode");
    Objects.requireNonNull(payload, "payload");
  }

  /**
   * {@code chunk} is verified and validated; {@code encoded} are its bytes (checksum field
   * included).
   */
  public static StagedChunk of(PartitionChunk chunk, byte[] encoded) {
    long first = Long.MAX_VALUE;
    long last = 0;
    if (chunk.getChangesCount() > 0) {
      first = chunk.getChanges(0).getTotalOrder();
      last = chunk.getChanges(chunk.getChangesCount() - 1).getTotalOrder();
    }
    if (chunk.getDdlEventsCount() > 0) {
      DdlEvent d0 = chunk.getDdlEvents(0);
      DdlEvent dn = chunk.getDdlEvents(chunk.getDdlEventsCount() - 1);
      first = Long.compareUnsigned(d0.getTotalOrder(), first) < 0 ? d0.getTotalOrder() : first;
      last = Long.compareUnsigned(dn.getTotalOrder(), last) > 0 ? dn.getTotalOrder() : last;
    }
    return new StagedChunk(
        chunk.getSourceId(),
        chunk.getDatabaseId(),
        chunk.getDatasetId(),
        chunk.getCommitLsn(),
        chunk.getTransactionId(),
        chunk.getBoundaryMode(),
        Integer.toUnsignedLong(chunk.getPartitionId()),
        Integer.toUnsignedLong(chunk.getChunkSequence()),
        chunk.getChecksum(),
        (long) chunk.getChangesCount() + chunk.getDdlEventsCount(),
        first,
        last,
        encoded);
  }

  /** The transaction (within its flow) this chunk belongs to. */
  public FlowKey flowKey() {
    return new FlowKey(
        datasetId,
        new io.trellara.protocol.TransactionBoundaryKey(
            sourceId, databaseId, commitLsn, transactionId));
  }

  public boolean partitioned() {
    return boundaryMode == ManifestBoundaryMode.PARTITIONED_SCALE_MODE;
  }

  /** {@code chunk p/s of source:lsn:tx}, for logs and errors. */
  public String describe() {
    return "chunk "
        + partitionId
        + "/"
        + chunkSequence
        + " of "
        + sourceId
        + ':'
        + commitLsn
        + ':'
        + transactionId;
  }
}
