package io.trellara.protocol.boundary;

/**
 * The {@link BarrierPlanner} cannot keep a record of this transaction within its byte bound: an
 * event too large for a chunk of its own (an event is never split across chunks), or a manifest
 * whose entries outgrow the bound. Nothing about the transaction is wrong; the bound is too small
 * for it, and the publisher names the setting that raises it.
 */
public final class ChunkBoundException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** What does not fit. */
  public enum Subject {
    /** One change or DDL event, alone in a chunk with the schema versions it references. */
    EVENT,
    /** The transaction's manifest. */
    MANIFEST
  }

  private final Subject subject;
  private final String eventKey;
  private final String field;
  private final long totalOrder;
  private final long neededBytes;
  private final long maxBytes;

  ChunkBoundException(
      Subject subject,
      String eventKey,
      String field,
      long totalOrder,
      long neededBytes,
      long maxBytes,
      String detail) {
    super(
        (subject == Subject.EVENT ? "an event " : "the manifest ")
            + "of "
            + eventKey
            + " ("
            + field
            + ") needs "
            + neededBytes
            + " bytes, above the "
            + maxBytes
            + "-byte chunk bound: "
            + detail);
    this.subject = subject;
    this.eventKey = eventKey;
    this.field = field;
    this.totalOrder = totalOrder;
    this.neededBytes = neededBytes;
    this.maxBytes = maxBytes;
  }

  public Subject subject() {
    return subject;
  }

  /** The transaction's event key prefix ({@code source_id:commit_lsn:transaction_id}). */
  public String eventKey() {
    return eventKey;
  }

  /** {@code total_order N} of the event, or {@code partitions} of the manifest. */
  public String field() {
    return field;
  }

  /** The event's total_order; 0 for the manifest. */
  public long totalOrder() {
    return totalOrder;
  }

  /** The encoded size the record would have had (an event: in a chunk of its own). */
  public long neededBytes() {
    return neededBytes;
  }

  public long maxBytes() {
    return maxBytes;
  }
}
