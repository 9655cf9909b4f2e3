package io.trellara.source.capture;

import io.trellara.protocol.Lsn;
import io.trellara.source.capture.ddl.DdlFilter;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.pgoutput.PgOutputMessage.Begin;
import io.trellara.source.pgoutput.PgOutputMessage.Commit;
import io.trellara.source.pgoutput.PgOutputMessage.Delete;
import io.trellara.source.pgoutput.PgOutputMessage.Insert;
import io.trellara.source.pgoutput.PgOutputMessage.LogicalMessage;
import io.trellara.source.pgoutput.PgOutputMessage.Relation;
import io.trellara.source.pgoutput.PgOutputMessage.StreamAbort;
import io.trellara.source.pgoutput.PgOutputMessage.StreamCommit;
import io.trellara.source.pgoutput.PgOutputMessage.StreamStart;
import io.trellara.source.pgoutput.PgOutputMessage.Streamable;
import io.trellara.source.pgoutput.PgOutputMessage.Truncate;
import io.trellara.source.pgoutput.PgOutputMessage.Type;
import io.trellara.source.pgoutput.PgOutputMessage.Update;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Assembles pgoutput messages, in stream order, into committed transactions, handed to a {@link
 * CommittedTransactionHandler} in commit order.
 *
 * <p><b>Protocols.</b> Protocol 1 and non-streamed protocol 2 transactions arrive whole as Begin
 * ... Commit. Under protocol 2 with streaming, large in-progress transactions arrive as Stream
 * Start ... Stream Stop blocks, interleaved across top-level xids and kept here per top-level xid
 * until Stream Commit (emitted) or a top-level Stream Abort (dropped). Inside a block a change
 * carries the xid of the (sub)transaction that made it; a Stream Abort naming a subtransaction
 * drops exactly the changes carrying that xid (only part of a rolled-back savepoint may have been
 * streamed; whatever was, is dropped).
 *
 * <p><b>What is kept.</b> Insert, Update, Delete, Truncate and transactional logical messages whose
 * prefix is the DDL prefix ({@code trellara.ddl}) and that {@link DdlFilter} publishes: DDL of a
 * captured relation, not temporary, with DDL capture enabled. The rest are dropped here, before
 * they are counted, so total_order stays 1..N over the published events; {@link
 * #ddlEventsDropped()} counts them. A DDL message that is malformed or from a role outside
 * ddl.message.roles is refused by the filter (logged, {@link #ddlMessagesRefused()}), never fatal:
 * whoever may call pg_logical_emit_message can write one. Other logical messages (other prefixes,
 * and every non-transactional message) and Origin messages are ignored. Relation and Type messages
 * update the {@link RelationCache} immediately; each buffered change remembers the schema version
 * in force when it arrived. A published DDL message references the schema versions its trigger
 * described of captured tables (their shape after the statement), so its transaction carries them.
 *
 * <p><b>Memory bound (the spill rule).</b> Each buffered change is charged an estimate of its size
 * (its tuple bytes plus a fixed per-change overhead, see {@link ChangeBuffer#estimate}). The sum
 * over ALL in-flight transactions stays at or below {@link CaptureSettings#spillThresholdBytes()}:
 * before a change is added that would exceed it, the in-flight transaction holding the most memory
 * is moved to its spill file (repeatedly, until the change fits; the receiving transaction itself
 * is spilled when nothing else holds memory). A spilled transaction writes its buffered changes and
 * every later change, as the raw pgoutput message bytes (a buffered change keeps them: see {@link
 * BufferedChange}; nothing is encoded back into pgoutput), to a local-log spill file of its own
 * ({@code trellara-spill-<xid>-<unique>.tlog} in the spill directory, {@code FsyncPolicy.NEVER});
 * at commit they are re-parsed. The file is deleted once the transaction's handler returns, or when
 * the transaction aborts, or on {@link #close()}. Spill files do not survive a restart and need
 * not: capture resumes from the slot, which re-sends uncommitted work.
 *
 * <p>Single-threaded: the thread that owns the replication stream calls {@code accept}; the handler
 * runs on that thread.
 */
public final class TransactionAssembler implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TransactionAssembler.class);

  private final CaptureIdentity identity;
  private final CaptureSettings settings;
  private final CommittedTransactionHandler handler;
  private final RelationCache relations = new RelationCache();
  private final Map<Long, InFlightTransaction> streamed = new LinkedHashMap<>();
  private final ChangeBuffer buffer;
  private final DdlFilter ddlFilter;
  private long ddlEventsDropped;
  private InFlightTransaction current;
  private InFlightTransaction streamBlock;

  public TransactionAssembler(
      CaptureIdentity identity, CaptureSettings settings, CommittedTransactionHandler handler) {
    this.identity = Objects.requireNonNull(identity, "identity");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.handler = Objects.requireNonNull(handler, "handler");
    this.ddlFilter = new DdlFilter(settings.ddlCapture(), settings.capturedTables(), relations);
    this.buffer = new ChangeBuffer(settings);
  }

  /**
   * Accepts one parsed message. When its transaction has to spill, an Insert, Update or Delete is
   * spilled from the wire bytes its tuples keep, a Truncate or DDL message is encoded back into
   * pgoutput bytes; prefer {@link #accept(PgOutputMessage, ByteBuffer, long)} when the raw bytes
   * are at hand.
   *
   * @param walStart the WAL position the stream reported for the message (XLogData dataStart), 0 if
   *     unknown
   */
  public void accept(PgOutputMessage message, long walStart) {
    accept(message, null, walStart);
  }

  /**
   * Accepts one parsed message together with the raw bytes it was parsed from ({@code raw} from its
   * position to its limit; not retained, not moved; may be null).
   *
   * @throws CaptureException when the message does not fit the stream's state (e.g. a change
   *     outside any transaction), or when a committed transaction fails to capture (thrown by the
   *     handler's iteration)
   */
  public void accept(PgOutputMessage message, ByteBuffer raw, long walStart) {
    switch (message.type()) {
      case 'B' -> begin((Begin) message, walStart);
      case 'C' -> commit((Commit) message);
      case 'S' -> streamStart((StreamStart) message, walStart);
      case 'E' -> streamBlock = null;
      case 'c' -> streamCommit((StreamCommit) message);
      case 'A' -> streamAbort((StreamAbort) message);
      case 'R' -> relations.accept((Relation) message);
      case 'Y' -> relations.accept((Type) message);
      case 'O' -> {} // the origin is not part of the envelope
      case 'M' -> {
        LogicalMessage m = (LogicalMessage) message;
        if (m.transactional() && isDdlPrefix(m.prefix())) {
          long lsn = m.lsn() != 0 ? m.lsn() : walStart;
          switch (ddlFilter.verdict(m.content(), lsn, target(m, walStart).xid)) {
            // the DDL event references the versions it leaves its captured tables in
            case PUBLISH ->
                add(m, raw, walStart, relations.accept(ddlFilter.capturedShapes()), true);
            case DROP -> ddlEventsDropped++;
            case REFUSE -> {} // logged and counted by the filter
          }
        }
      }
      case 'I' ->
          add(
              (Insert) message,
              raw,
              walStart,
              one(((Insert) message).relationOid(), walStart),
              false);
      case 'U' ->
          add(
              (Update) message,
              raw,
              walStart,
              one(((Update) message).relationOid(), walStart),
              false);
      case 'D' ->
          add(
              (Delete) message,
              raw,
              walStart,
              one(((Delete) message).relationOid(), walStart),
              false);
      case 'T' -> truncate((Truncate) message, raw, walStart);
      default -> throw new IllegalArgumentException("unknown message " + message);
    }
  }

  private void truncate(Truncate t, ByteBuffer raw, long walStart) {
    long[] oids = t.relationOids();
    if (oids.length == 0) {
      throw new CaptureException(
          "stream_order", "a Truncate at LSN " + Lsn.format(walStart) + " names no relation");
    }
    RelationSchema[] rels = new RelationSchema[oids.length];
    for (int i = 0; i < oids.length; i++) {
      rels[i] = relations.get(oids[i], walStart);
    }
    add(t, raw, walStart, rels, false);
  }

  /**
   * DDL messages dropped since this assembler started: uncaptured, temporary, or DDL capture
   * disabled.
   */
  public long ddlEventsDropped() {
    return ddlEventsDropped;
  }

  /**
   * DDL messages refused since this assembler started: malformed, or from a role that is not one of
   * ddl.message.roles (each logged at WARN; never fatal).
   */
  public long ddlMessagesRefused() {
    return ddlFilter.refused();
  }

  public RelationCache relations() {
    return relations;
  }

  /** Memory charged to buffered changes right now (always at or below the threshold). */
  public long memoryBytes() {
    return buffer.memoryBytes();
  }

  /** The highest {@link #memoryBytes()} seen. */
  public long peakMemoryBytes() {
    return buffer.peakMemoryBytes();
  }

  /** Transactions begun or streamed and not yet committed or aborted. */
  public int inFlightTransactions() {
    return streamed.size() + (current != null ? 1 : 0);
  }

  /**
   * True when no transaction is in flight (no Begin without Commit, no streamed transaction without
   * Stream Commit or Abort): every WAL position received so far belongs to work already handed to
   * the handler.
   */
  public boolean idle() {
    return current == null && streamed.isEmpty();
  }

  /** How many transactions were moved to a spill file since this assembler started. */
  public long spilledTransactions() {
    return buffer.spilledTransactions();
  }

  /** Bytes of change records written to spill files since this assembler started. */
  public long spilledBytes() {
    return buffer.spilledBytes();
  }

  /**
   * Drops every in-flight transaction and deletes their spill files (e.g. when the stream
   * restarts).
   */
  @Override
  public void close() {
    buffer.clear();
    if (current != null) {
      current.discard();
      current = null;
    }
    for (InFlightTransaction tx : streamed.values()) {
      tx.discard();
    }
    streamed.clear();
    streamBlock = null;
  }

  // ---- transaction boundaries

  private void begin(Begin b, long walStart) {
    if (current != null || streamBlock != null) {
      throw order(
          "Begin of xid "
              + b.xid()
              + " inside "
              + (current != null
                  ? "transaction " + current.xid
                  : "the stream block of xid " + streamBlock.xid),
          walStart);
    }
    current = new InFlightTransaction(b.xid(), false, walStart);
  }

  private void commit(Commit c) {
    if (current == null) {
      throw order("Commit without Begin", c.commitLsn());
    }
    InFlightTransaction tx = current;
    current = null;
    emit(tx, c.commitLsn(), c.endLsn(), c.commitTimestampEpochMillis());
  }

  private void streamStart(StreamStart s, long walStart) {
    if (current != null || streamBlock != null) {
      throw order(
          "Stream Start of xid " + s.xid() + " inside another transaction or stream block",
          walStart);
    }
    streamBlock =
        streamed.computeIfAbsent(s.xid(), xid -> new InFlightTransaction(xid, true, walStart));
  }

  private void streamCommit(StreamCommit c) {
    if (current != null || streamBlock != null) {
      throw order(
          "Stream Commit of xid " + c.xid() + " inside a transaction or stream block",
          c.commitLsn());
    }
    InFlightTransaction tx = streamed.remove(c.xid());
    if (tx == null) {
      tx = new InFlightTransaction(c.xid(), true, 0);
    }
    emit(tx, c.commitLsn(), c.endLsn(), c.commitTimestampEpochMillis());
  }

  private void streamAbort(StreamAbort a) {
    InFlightTransaction tx = streamed.get(a.xid());
    if (tx == null) {
      return; // nothing of it was kept
    }
    if (a.abortsTopLevelTransaction()) {
      streamed.remove(a.xid());
      buffer.released(tx);
      tx.discard();
    } else {
      buffer.releasedBytes(tx.abortSubtransaction(a.subtransactionXid()));
    }
  }

  private void emit(InFlightTransaction tx, long commitLsn, long endLsn, long commitTimestampMs) {
    try {
      if (tx.changeCount + tx.ddlCount == 0) {
        handler.onEmptyCommit(tx.xid, commitLsn, endLsn);
        return;
      }
      buffer.committing(tx);
      CapturedTransaction captured =
          new CapturedTransaction(
              identity, tx, commitLsn, endLsn, commitTimestampMs, relations, ddlFilter);
      try {
        handler.onCommitted(captured);
      } finally {
        captured.release();
      }
    } finally {
      buffer.released(tx);
      tx.discard();
    }
  }

  // ---- changes

  private RelationSchema[] one(long relationOid, long walStart) {
    return relations.get(relationOid, walStart).asSingletonArray();
  }

  private InFlightTransaction target(Streamable m, long walStart) {
    if (m.streamXid() != 0) {
      if (streamBlock == null) {
        throw order(
            "a streamed change of xid " + m.streamXid() + " outside a stream block", walStart);
      }
      return streamBlock;
    }
    if (current == null) {
      throw order("a '" + (char) m.type() + "' change outside Begin ... Commit", walStart);
    }
    return current;
  }

  private void add(
      Streamable m, ByteBuffer raw, long walStart, RelationSchema[] rels, boolean ddl) {
    InFlightTransaction tx = target(m, walStart);
    tx.count(m.streamXid(), ddl);
    tx.referenced(rels);
    buffer.add(tx, m, raw, walStart, rels, this::largestInMemory);
  }

  private InFlightTransaction largestInMemory() {
    InFlightTransaction largest = null;
    if (current != null && current.memoryBytes > 0) {
      largest = current;
    }
    for (InFlightTransaction tx : streamed.values()) {
      if (tx.memoryBytes > 0 && (largest == null || tx.memoryBytes > largest.memoryBytes)) {
        largest = tx;
      }
    }
    return largest;
  }

  private boolean isDdlPrefix(String prefix) {
    return prefix.equals(settings.ddlMessagePrefix());
  }

  private static CaptureException order(String what, long lsn) {
    return new CaptureException(
        "stream_order",
        what
            + " (LSN "
            + Lsn.format(lsn)
            + "): the replication"
            + " stream is out of order; restart capture from the slot");
  }
}
