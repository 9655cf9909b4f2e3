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
import java.util.Iterator;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
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
  private final AddedTables added;
  private final List<Received> received = new ArrayList<>();
  private long signalOid = -1;
  private int idColumn = -1;
  private int typeColumn = -1;
  private int dataColumn = -1;
  private long streamTop;
  private final KafkaSignalConsumer kafkaConsumer;
  private final KafkaSignalInbox kafka;
  private boolean inTransaction;
  private boolean inStreamBlock;
  private long lastCommitLsn;
  private long handedOnEnd;

  /** A signal row and the (top-level, own) xid of the streamed transaction it came in (0: not). */
  private record Received(long top, long xid, String id, String type, String data) {}

  private SignalPipeline(
      SourceSettings settings,
      Signal.TableRequest table,
      KafkaSignals kafkaSignals,
      Function<KafkaSignalSettings, KafkaSignalConsumer> consumers,
      Function<Consumer<Outbound>, TransactionPipeline> inner,
      Consumer<Outbound> out,
      BooleanSupplier running,
      boolean signalMessagesTrusted,
      OnlineSnapshotProgress progress) {
    Sequencer sequencer = new Sequencer(o -> handedOn(o, out));
    this.inner = inner.apply(sequencer.stream());
    this.table = table;
    this.snapshots = new OnlineSnapshots(settings, sequencer, running, progress);
    this.added = new AddedTables(signalMessagesTrusted);
    if (kafkaSignals == null) {
      this.kafkaConsumer = null;
      this.kafka = null;
    } else {
      KafkaSignalSettings k = kafkaSignals.settings();
      this.kafkaConsumer = consumers.apply(k).start();
      this.kafka =
          new KafkaSignalInbox(
              k.topic(),
              k.connector(),
              kafkaConsumer::next,
              kafkaConsumer::commit,
              kafkaSignals.acknowledged());
    }
  }

  /**
   * The signal topic's settings and the WAL position Kafka acknowledged every record up to (the
   * engine's), by which a snapshot a Kafka signal caused is known to be published.
   */
  public record KafkaSignals(KafkaSignalSettings settings, LongSupplier acknowledged) {}

  /**
   * {@code inner} with {@code signalTable} taken out of its stream; {@code inner} itself when no
   * signal table is set.
   */
  public static Function<Consumer<Outbound>, TransactionPipeline> factory(
      SourceSettings settings,
      Signal.TableRequest signalTable,
      Function<Consumer<Outbound>, TransactionPipeline> inner) {
    return factory(settings, signalTable, null, inner);
  }

  /**
   * {@code inner} with {@code signalTable} taken out of its stream and the signals of the Kafka
   * topic carried out between its transactions; {@code inner} itself when neither is set.
   */
  public static Function<Consumer<Outbound>, TransactionPipeline> factory(
      SourceSettings settings,
      Signal.TableRequest signalTable,
      KafkaSignals kafkaSignals,
      Function<Consumer<Outbound>, TransactionPipeline> inner) {
    return factory(settings, signalTable, kafkaSignals, KafkaSignalConsumer::of, inner);
  }

  /** With the signal topic's consumer made by {@code consumers} (a test's fake client). */
  static Function<Consumer<Outbound>, TransactionPipeline> factory(
      SourceSettings settings,
      Signal.TableRequest signalTable,
      KafkaSignals kafkaSignals,
      Function<KafkaSignalSettings, KafkaSignalConsumer> consumers,
      Function<Consumer<Outbound>, TransactionPipeline> inner) {
    if (signalTable == null && kafkaSignals == null) {
      return inner;
    }
    return out ->
        new SignalPipeline(
            settings,
            signalTable,
            kafkaSignals,
            consumers,
            inner,
            out,
            () -> true,
            false,
            new OnlineSnapshotProgress());
  }

  /**
   * {@code inner} with {@code signalTable} (may be null: none) taken out of its stream, the signals
   * of the Kafka topic (may be null: none) carried out between its transactions, and the {@code
   * trellara.signal} messages of tables added to capture carried out ({@link AddedTables}); such a
   * message is trusted only with {@code signalMessagesTrusted} (PUBLIC may not write logical
   * messages), else logged and ignored. Always wraps {@code inner}, so such messages are taken out.
   * Its online snapshots report to {@code progress} (JMX, trellara status).
   */
  public static Function<Consumer<Outbound>, TransactionPipeline> factory(
      SourceSettings settings,
      Signal.TableRequest signalTable,
      KafkaSignals kafkaSignals,
      boolean signalMessagesTrusted,
      Function<Consumer<Outbound>, TransactionPipeline> inner,
      OnlineSnapshotProgress progress) {
    return out ->
        new SignalPipeline(
            settings,
            signalTable,
            kafkaSignals,
            KafkaSignalConsumer::of,
            inner,
            out,
            () -> true,
            signalMessagesTrusted,
            progress);
  }

  private void handedOn(Outbound o, Consumer<Outbound> out) {
    if (o.closesTransaction() && !o.held()) {
      handedOnEnd = Math.max(handedOnEnd, o.endLsn());
    }
    out.accept(o);
  }

  /**
   * Between transactions (outside a transaction and a streamed block): the Kafka topic's signals,
   * as if committed at the last transaction handed on.
   */
  private void takeKafkaSignals() {
    if (kafka != null && !inTransaction && !inStreamBlock) {
      kafka.take(snapshots::signal, snapshots::idle, lastCommitLsn, handedOnEnd);
    }
  }

  @Override
  public void quiet() {
    takeKafkaSignals();
    inner.quiet();
  }

  @Override
  public void accept(PgOutputMessage message, ByteBuffer raw, long walStart) {
    if (taken(message)) {
      return;
    }
    PgOutputMessage kept = added.filter(message, snapshots);
    if (kept == null) {
      return;
    } else if (kept != message) {
      message = kept;
      raw = Truncates.wire((Truncate) kept);
    }
    if (message instanceof Begin) {
      takeKafkaSignals();
      inTransaction = true;
      received.removeIf(r -> r.top() == 0);
    } else if (message instanceof StreamStart s) {
      takeKafkaSignals();
      inStreamBlock = true;
      streamTop = s.xid();
    } else if (message instanceof PgOutputMessage.StreamStop) {
      inStreamBlock = false;
    } else if (message instanceof StreamAbort a) {
      received.removeIf(
          r ->
              r.top() == a.xid()
                  && (a.subtransactionXid() == a.xid() || r.xid() == a.subtransactionXid()));
    } else if (message instanceof Truncate t && Truncates.names(t, signalOid)) {
      // the signal table's truncate is housekeeping: the other tables' goes on without it
      Truncate rest = Truncates.without(t, signalOid);
      inner.accept(rest, Truncates.wire(rest), walStart);
      return;
    } else if (message instanceof Commit c) {
      // signals are taken before their transaction is handed on, so that its records are held
      // too (a restart must resume before it to read the signal again)
      snapshots.beforeCommit(c.commitLsn());
      act(0, c.commitLsn());
      added.committed(0, c.commitLsn(), snapshots);
      inner.accept(message, raw, walStart);
      inTransaction = false;
      lastCommitLsn = c.commitLsn();
      return;
    } else if (message instanceof StreamCommit c) {
      added.beforeCommit(c.xid(), c.commitLsn());
      snapshots.beforeCommit(c.commitLsn());
      act(c.xid(), c.commitLsn());
      added.committed(c.xid(), c.commitLsn(), snapshots);
      inner.accept(message, raw, walStart);
      lastCommitLsn = c.commitLsn();
      return;
    }
    inner.accept(message, raw, walStart);
  }

  /** True when the message is the signal table's or a watermark: kept from the pipeline. */
  private boolean taken(PgOutputMessage message) {
    if (message instanceof Relation r
        && table != null
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
    return inner.idle() && snapshots.idle() && received.isEmpty() && added.idle();
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
      if (kafkaConsumer != null) {
        kafkaConsumer.close();
      }
      snapshots.close();
    } finally {
      inner.close();
    }
  }
}
