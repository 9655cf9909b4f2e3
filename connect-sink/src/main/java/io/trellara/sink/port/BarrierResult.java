package io.trellara.sink.port;

import io.trellara.protocol.TransactionBoundaryKey;

/**
 * Outcome of {@link TransactionApplier#applyBarrier}: the transaction was applied whole, or found
 * applied already (a duplicate, for which only progress was recorded).
 *
 * @param changes row changes applied (0 for a duplicate)
 * @param ddlEvents DDL events applied
 * @param chunks chunks read back from staging
 * @param peakOpenChunks the most chunks held in memory at once during the merge
 * @param attempts attempts including retries
 */
public record BarrierResult(
    TransactionBoundaryKey key,
    boolean duplicate,
    long changes,
    long ddlEvents,
    int chunks,
    int peakOpenChunks,
    int attempts) {}
