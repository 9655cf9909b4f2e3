package io.trellara.source.capture;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.log.LocalLogReader;
import io.trellara.protocol.log.LogRecord;
import io.trellara.source.capture.ddl.DdlFilter;
import io.trellara.source.pgoutput.PgOutputMessage.Streamable;
import io.trellara.source.pgoutput.PgOutputParser;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * One committed transaction, handed to {@link CommittedTransactionHandler#onCommitted} in commit
 * order. The metadata is known up front; the events are produced by iterating ({@link
 * #forEachEvent}), from memory or re-read from the transaction's spill file, so a consumer can
 * stream chunks out of a huge transaction without holding it. Iterating again produces the same
 * events again (the spill file is re-read).
 *
 * <p>Valid only during the {@code onCommitted} call: afterwards the assembler deletes the spill
 * file and {@link #forEachEvent} throws {@link IllegalStateException}.
 *
 * <p>LSNs: {@link #commitLsn()} is the commit record's LSN (Begin's final_lsn, Commit's
 * commit_lsn), {@link #endLsn()} the end of the commit record (the position to confirm once the
 * transaction is durable downstream). {@link #beginLsn()} is the WAL position the stream reported
 * for the transaction's Begin (non-streamed) or first Stream Start (streamed), which PostgreSQL
 * sets to the transaction's first LSN; 0 when unknown (the caller passed 0) or not at or before the
 * commit LSN, and then envelopes omit it.
 */
public final class CapturedTransaction {

  private final CaptureIdentity identity;
  private final long xid;
  private final String transactionId;
  private final long beginLsn;
  private final long commitLsn;
  private final long endLsn;
  private final long commitTimestampMs;
  private final InFlightTransaction state;
  private final RelationCache relations;
  private final DdlFilter ddlFilter;
  private final String commitLsnText;
  private boolean released;

  CapturedTransaction(
      CaptureIdentity identity,
      InFlightTransaction state,
      long commitLsn,
      long endLsn,
      long commitTimestampMs,
      RelationCache relations,
      DdlFilter ddlFilter) {
    this.identity = identity;
    this.xid = state.xid;
    this.transactionId = Long.toString(state.xid);
    long begin = state.beginLsn;
    this.beginLsn = begin != 0 && Long.compareUnsigned(begin, commitLsn) <= 0 ? begin : 0;
    this.commitLsn = commitLsn;
    this.endLsn = endLsn;
    this.commitTimestampMs = commitTimestampMs;
    this.state = state;
    this.relations = relations;
    this.ddlFilter = ddlFilter;
    this.commitLsnText = Lsn.format(commitLsn);
  }

  public CaptureIdentity identity() {
    return identity;
  }

  /** The top-level xid. */
  public long xid() {
    return xid;
  }

  /**
   * The protocol's transaction_id: the top-level xid in decimal (the snapshot's is published by its
   * own path).
   */
  public String transactionId() {
    return transactionId;
  }

  /** First LSN of the transaction, or 0 when unknown (see the class comment). */
  public long beginLsn() {
    return beginLsn;
  }

  public long commitLsn() {
    return commitLsn;
  }

  /** {@link #commitLsn()} in canonical X/X form. */
  public String commitLsnText() {
    return commitLsnText;
  }

  public long endLsn() {
    return endLsn;
  }

  /** Commit timestamp, Unix epoch milliseconds. */
  public long commitTimestampMs() {
    return commitTimestampMs;
  }

  /**
   * Row changes (insert, update, delete, one per truncate statement) the iteration will produce.
   */
  public long changeCount() {
    return state.changeCount;
  }

  public long ddlCount() {
    return state.ddlCount;
  }

  /** changes + DDL events: the highest total_order. */
  public long eventCount() {
    return state.changeCount + state.ddlCount;
  }

  /** True when PostgreSQL streamed the transaction while in progress (protocol 2). */
  public boolean streamed() {
    return state.streamed;
  }

  /** True when the transaction's changes live in a spill file rather than in memory. */
  public boolean spilled() {
    return state.spilling();
  }

  /**
   * Produces every event in total_order: ChangeRecords and DdlEvents numbered 1..{@link
   * #eventCount()}, idempotency keys {@code
   * {source_id}:{commit_lsn}:{transaction_id}:{total_order}}.
   *
   * @throws CaptureException when a change cannot be captured correctly (e.g. a missing key column)
   */
  public void forEachEvent(CaptureEventSink sink) {
    if (released) {
      throw new IllegalStateException(
          "transaction " + transactionId + " was released after its handler returned");
    }
    CapturedEventFactory factory =
        new CapturedEventFactory(
            identity.sourceId(), transactionId, commitLsnText, ddlFilter, state.severalVersions);
    if (state.spilling()) {
      replaySpill(factory, sink);
    } else {
      for (BufferedChange b : state.memory) {
        factory.emit(b.message(), b.walStart(), b.relations(), sink);
      }
    }
    if (factory.eventsProduced() != eventCount()) {
      throw new IllegalStateException(
          "transaction "
              + transactionId
              + " produced "
              + factory.eventsProduced()
              + " events, expected "
              + eventCount());
    }
  }

  /**
   * Spill frame: records of Int32 length | Int64 walStart | Int32 n | n x Int32 schema version |
   * raw pgoutput message (see {@code TransactionAssembler#writeSpill}).
   */
  private void replaySpill(CapturedEventFactory factory, CaptureEventSink sink) {
    PgOutputParser parser = new PgOutputParser(PgOutputParser.PROTOCOL_VERSION_2);
    Set<Long> aborted = state.abortedSubXids;
    long read = 0;
    try (LocalLogReader reader = LocalLogReader.open(state.spillFile)) {
      LogRecord record;
      while ((record = reader.next()) != null) {
        if (!record.isSpill()) {
          throw new IllegalStateException(
              "spill file " + state.spillFile + " holds a non-spill frame");
        }
        ByteBuffer frame = ByteBuffer.wrap(record.message());
        while (frame.hasRemaining()) {
          int length = frame.getInt();
          int end = frame.position() + length;
          long walStart = frame.getLong();
          int n = frame.getInt();
          RelationSchema[] rels = new RelationSchema[n];
          for (int i = 0; i < n; i++) {
            rels[i] = relations.version(frame.getInt());
          }
          ByteBuffer message = frame.duplicate();
          message.limit(end);
          frame.position(end);
          read++;
          Streamable change = (Streamable) parser.parse(message, state.streamed);
          if (!aborted.isEmpty() && aborted.contains(change.streamXid())) {
            continue;
          }
          factory.emit(change, walStart, rels, sink);
        }
      }
    }
    if (read != state.spilledRecords) {
      throw new IllegalStateException(
          "spill file "
              + state.spillFile
              + " holds "
              + read
              + " records, "
              + state.spilledRecords
              + " were written");
    }
  }

  void release() {
    released = true;
  }

  @Override
  public String toString() {
    return "CapturedTransaction[xid="
        + xid
        + ", commitLsn="
        + commitLsnText
        + ", events="
        + eventCount()
        + (state.streamed ? ", streamed" : "")
        + (state.spilling() ? ", spilled" : "")
        + "]";
  }
}
