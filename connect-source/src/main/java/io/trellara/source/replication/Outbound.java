package io.trellara.source.replication;

import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.protocol.EventCounts;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.v1.TransactionEnvelope;

/**
 * One record for the publisher, in publication order: a transaction envelope (strict order; the
 * converter encodes it) or an already-encoded chunk, manifest or commit marker (the planner had to
 * encode it to list its checksum). Every record of a transaction shares its {@code sequence}; the
 * record that closes the transaction (envelope or commit marker) carries the WAL end position to
 * acknowledge once Kafka holds every record of it.
 *
 * @param destination strict topic, or the partitioned topic's {@code partition}
 * @param boundaryMode the wire vocabulary: strict_transaction_order,
 *     strict_chunked_transaction_order or partitioned_scale_mode (operator surfaces print it)
 * @param counts the events this record carries (closing records: the whole transaction's)
 * @param endLsn end of the commit record on the closing record; 0 on the others
 * @param bytes encoded size (estimated for envelopes), for the publisher queue's byte bound
 * @param held published while an online snapshot is in progress (from its signal to its commit
 *     marker): the record carries the position from before the signal as its offset and
 *     acknowledges no WAL, so a task killed meanwhile resumes before the signal and takes it again
 */
public record Outbound(
    Destination destination,
    int partition,
    MessageKind kind,
    Object value,
    TransactionBoundaryKey key,
    String boundaryMode,
    long commitTimestampMs,
    EventCounts counts,
    long sequence,
    long endLsn,
    int bytes,
    boolean held) {

  public enum Destination {
    STRICT,
    PARTITIONED
  }

  public boolean closesTransaction() {
    return endLsn != 0;
  }

  static Outbound envelope(TransactionEnvelope e, long sequence, long endLsn) {
    return new Outbound(
        Destination.STRICT,
        0,
        MessageKind.ENVELOPE,
        e,
        new TransactionBoundaryKey(
            e.getSourceId(), e.getDatabaseId(), e.getCommitLsn(), e.getTransactionId()),
        BoundaryVocabulary.STRICT,
        e.getCommitTimestampMs(),
        new EventCounts(e.getChangesCount(), e.getDdlEventsCount()),
        sequence,
        endLsn,
        e.getSerializedSize(),
        false);
  }

  static Outbound encoded(
      Destination destination,
      int partition,
      EncodedMessage m,
      TransactionBoundaryKey key,
      String boundaryMode,
      long commitTimestampMs,
      EventCounts counts,
      long sequence,
      long endLsn) {
    return new Outbound(
        destination,
        partition,
        m.kind(),
        m,
        key,
        boundaryMode,
        commitTimestampMs,
        counts,
        sequence,
        endLsn,
        m.bytes().length,
        false);
  }

  /** The same record under another transaction sequence (the engine numbers across pipelines). */
  public Outbound withSequence(long newSequence) {
    return new Outbound(
        destination,
        partition,
        kind,
        value,
        key,
        boundaryMode,
        commitTimestampMs,
        counts,
        newSequence,
        endLsn,
        bytes,
        held);
  }

  /** The same record, held: published while an online snapshot is in progress. */
  public Outbound asHeld() {
    return held
        ? this
        : new Outbound(
            destination,
            partition,
            kind,
            value,
            key,
            boundaryMode,
            commitTimestampMs,
            counts,
            sequence,
            endLsn,
            bytes,
            true);
  }
}
