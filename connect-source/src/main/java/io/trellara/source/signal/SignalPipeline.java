package io.trellara.source.signal;

import io.trellara.protocol.LogText;
import io.trellara.protocol.Lsn;
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
import io.trellara.source.pgoutput.PgOutputMessage.Truncate;
import io.trellara.source.pgoutput.PgOutputMessage.Update;
import io.trellara.source.pgoutput.TupleData;
import io.trellara.source.replication.Outbound;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.replication.TransactionPipeline;
import io.trellara.source.snapshot.OnlineSnapshotProgress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream's pipeline with the signal table taken out: rows inserted into {@code signal.table}
 * (captured like any other change, so ordered with the stream) never reach the pipeline in front
 * and are never published; each is read as a {@link Signal} once its transaction commits (a
 * transaction rolled back signals nothing) and carried out by {@link OnlineSnapshots}. A row that
 * is not a valid signal is logged (WARN, escaped) and ignored. Updates, deletes and truncates of
 * the signal table are dropped alike (deleting old signals is housekeeping).
 */
public final class SignalPipeline implements TransactionPipeline {
  private static final Logger LOG = LoggerFactory.getLogger(SignalPipeline.class);

  private final TransactionPipeline inner;
  private final Signal.TableRequest table;
  private final OnlineSnapshots snapshots;
  private final List<Received> received = new ArrayList<>();
  private long signalOid = -1;
  private int idColumn = -1;
  private int typeColumn = -1;
  private int dataColumn = -1;
  private long streamTop;

  /** A signal row and the (top-level, own) xid of the streamed transaction it came in (0: not). */
  private record Received(long top, long xid, String id, String type, String data) {}

  private SignalPipeline(
      SourceSettings settings,
      Signal.TableRequest table,
      Function<Consumer<Outbound>, TransactionPipeline> inner,
      Consumer<Outbound> out,
      BooleanSupplier running,
      OnlineSnapshotProgress progress) {
    Sequencer sequencer = new Sequencer(out);
    this.inner = inner.apply(sequencer.stream());
    this.table = table;
    this.snapshots = new OnlineSnapshots(settings, sequencer, running, progress);
  }

  /**
   * {@code inner} with {@code signalTable} taken out of its stream; {@code inner} itself when no
   * signal table is set.
   */
  public static Function<Consumer<Outbound>, TransactionPipeline> factory(
      SourceSettings settings,
      Signal.TableRequest signalTable,
      Function<Consumer<Outbound>, TransactionPipeline> inner) {
    return factory(settings, signalTable, inner, new OnlineSnapshotProgress());
  }

  /** The same, its online snapshots reporting to {@code progress} (JMX, trellara status). */
  public static Function<Consumer<Outbound>, TransactionPipeline> factory(
      SourceSettings settings,
      Signal.TableRequest signalTable,
      Function<Consumer<Outbound>, TransactionPipeline> inner,
      OnlineSnapshotProgress progress) {
    if (signalTable == null) {
      return inner;
    }
    return out -> new SignalPipeline(settings, signalTable, inner, out, () -> true, progress);
  }

  @Override
  public void accept(PgOutputMessage message, ByteBuffer raw, long walStart) {
    if (taken(message)) {
      return;
    }
    if (message instanceof Begin) {
      received.removeIf(r -> r.top() == 0);
    } else if (message instanceof StreamStart s) {
      streamTop = s.xid();
    } else if (message instanceof StreamAbort a) {
      received.removeIf(
          r ->
              r.top() == a.xid()
                  && (a.subtransactionXid() == a.xid() || r.xid() == a.subtransactionXid()));
    } else if (message instanceof Truncate t && truncates(t)) {
      // the signal table's truncate is housekeeping: the other tables' goes on without it
      inner.accept(withoutSignalTable(t), truncateWire(withoutSignalTable(t)), walStart);
      return;
    } else if (message instanceof Commit c) {
      // signals are taken before their transaction is handed on, so that its records are held
      // too (a restart must resume before it to read the signal again)
      snapshots.beforeCommit(c.commitLsn());
      act(0, c.commitLsn());
      inner.accept(message, raw, walStart);
      return;
    } else if (message instanceof StreamCommit c) {
      snapshots.beforeCommit(c.commitLsn());
      act(c.xid(), c.commitLsn());
      inner.accept(message, raw, walStart);
      return;
    }
    inner.accept(message, raw, walStart);
  }

  /** True when the message is the signal table's or a watermark: kept from the pipeline. */
  private boolean taken(PgOutputMessage message) {
    if (message instanceof Relation r
        && r.namespace().equals(table.schema())
        && r.name().equals(table.table())) {
      described(r);
      return true;
    }
    if (message instanceof Insert i && i.relationOid() == signalOid) {
      TupleData t = i.newTuple();
      received.add(
          new Received(
              i.streamXid() == 0 ? 0 : streamTop,
              i.streamXid(),
              text(t, idColumn),
              text(t, typeColumn),
              text(t, dataColumn)));
      return true;
    }
    if (message instanceof LogicalMessage m
        && !m.transactional()
        && OnlineSnapshots.WATERMARK_PREFIX.equals(m.prefix())) {
      snapshots.reached(m.lsn());
      return true;
    }
    return (message instanceof Update u && u.relationOid() == signalOid)
        || (message instanceof Delete d && d.relationOid() == signalOid)
        || (message instanceof Truncate t
            && t.relationOids().length == 1
            && t.relationOids()[0] == signalOid);
  }

  private boolean truncates(Truncate t) {
    return Arrays.stream(t.relationOids()).anyMatch(o -> o == signalOid);
  }

  private Truncate withoutSignalTable(Truncate t) {
    return new Truncate(
        t.streamXid(),
        t.options(),
        Arrays.stream(t.relationOids()).filter(o -> o != signalOid).toArray());
  }

  /** pgoutput's bytes of a Truncate (the pipeline spills a transaction's messages as bytes). */
  static ByteBuffer truncateWire(Truncate t) {
    long[] oids = t.relationOids();
    ByteBuffer b = ByteBuffer.allocate(1 + (t.streamXid() != 0 ? 4 : 0) + 4 + 1 + 4 * oids.length);
    b.put((byte) 'T');
    if (t.streamXid() != 0) {
      b.putInt((int) t.streamXid());
    }
    b.putInt(oids.length);
    b.put((byte) t.options());
    for (long oid : oids) {
      b.putInt((int) oid);
    }
    return b.flip();
  }

  private void described(Relation r) {
    signalOid = r.relationOid();
    idColumn = typeColumn = dataColumn = -1;
    for (int i = 0; i < r.columns().size(); i++) {
      switch (r.columns().get(i).name()) {
        case "id" -> idColumn = i;
        case "type" -> typeColumn = i;
        case "data" -> dataColumn = i;
        default -> {
          // other columns (a timestamp, the sender) are the table owner's own
        }
      }
    }
    if (idColumn < 0 || typeColumn < 0) {
      LOG.warn(
          "Signal table {}.{} has no column id or type: its rows are ignored (columns: id text,"
              + " type text, data text)",
          LogText.escape(table.schema()),
          LogText.escape(table.table()));
    }
  }

  private static String text(TupleData t, int column) {
    if (column < 0 || column >= t.columnCount() || !t.hasValue(column)) {
      return null;
    }
    return t.textValue(column);
  }

  /** The signals of the transaction that committed ({@code top}: its xid if streamed, else 0). */
  private void act(long top, long commitLsn) {
    Iterator<Received> it = received.iterator();
    List<Received> mine = new ArrayList<>();
    while (it.hasNext()) {
      Received r = it.next();
      if (r.top() == top) {
        mine.add(r);
        it.remove();
      }
    }
    for (Received r : mine) {
      Signal s;
      try {
        s = SignalParser.parse(r.id(), r.type(), r.data());
      } catch (MalformedSignalException e) {
        LOG.warn(
            "Signal table {}: a malformed signal committed at {} is ignored: {} (id {}, type {},"
                + " data {})",
            LogText.escape(table.display()),
            Lsn.format(commitLsn),
            LogText.escape(e.getMessage()),
            LogText.escape(r.id()),
            LogText.escape(r.type()),
            LogText.escape(r.data()));
        continue;
      }
      snapshots.signal(s, commitLsn);
    }
  }

  @Override
  public boolean idle() {
    return inner.idle() && snapshots.idle() && received.isEmpty();
  }

  @Override
  public int inFlightTransactions() {
    return inner.inFlightTransactions();
  }

  @Override
  public long memoryBytes() {
    return inner.memoryBytes();
  }

  @Override
  public long spilledTransactions() {
    return inner.spilledTransactions();
  }

  @Override
  public long spilledBytes() {
    return inner.spilledBytes();
  }

  @Override
  public long ddlEventsDropped() {
    return inner.ddlEventsDropped();
  }

  @Override
  public long ddlMessagesRefused() {
    return inner.ddlMessagesRefused();
  }

  @Override
  public void close() {
    try {
      snapshots.close();
    } finally {
      inner.close();
    }
  }
}
