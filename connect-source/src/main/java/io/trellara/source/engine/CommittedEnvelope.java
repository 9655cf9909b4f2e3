package io.trellara.source.engine;

import io.trellara.protocol.v1.TransactionEnvelope;

/**
 * A committed transaction ready to publish, with the WAL position to acknowledge once Kafka holds it:
 * {@code endLsn} is the end of its commit record, which is what PostgreSQL's confirmed_flush_lsn means.
 */
public record CommittedEnvelope(TransactionEnvelope envelope, long commitLsn, long endLsn) {
}
