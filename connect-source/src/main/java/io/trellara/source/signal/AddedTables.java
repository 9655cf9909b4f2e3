package io.trellara.source.signal;

import io.trellara.protocol.LogText;
import io.trellara.protocol.Lsn;
import io.trellara.source.pg.PublicationReconciler;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.pgoutput.PgOutputMessage.Begin;
import io.trellara.source.pgoutput.PgOutputMessage.Delete;
import io.trellara.source.pgoutput.PgOutputMessage.Insert;
import io.trellara.source.pgoutput.PgOutputMessage.LogicalMessage;
import io.trellara.source.pgoutput.PgOutputMessage.Relation;
import io.trellara.source.pgoutput.PgOutputMessage.StreamAbort;
import io.trellara.source.pgoutput.PgOutputMessage.StreamStart;
import io.trellara.source.pgoutput.PgOutputMessage.Truncate;
import io.trellara.source.pgoutput.PgOutputMessage.Update;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tables that joined the publication while the source runs (issue 30, requirement 2), on the
 * stream's side: the transactional {@value PublicationReconciler#SIGNAL_PREFIX} message that
 * committed with their {@code ALTER PUBLICATION ... ADD TABLE} becomes, at its commit, an online
 * snapshot of them ({@link OnlineSnapshots#added}); and until that snapshot is published, their
 * changes in transactions committing before its consistent point P are dropped here. Those changes
 * are in the snapshot anyway, and published ahead of it they would show the table partly filled on
 * the target; a new table thus stays empty there until its snapshot's one target transaction.
 *
 * <p>A plain transaction's commit LSN is known at its Begin. A streamed one's is not known until
 * its stream commit: its changes to a pending table are dropped while they arrive, and should it
 * then commit at or after P (they were needed) capture fails with {@link DroppedTooMuchException}
 * before the snapshot is published: the records since the signal are held, so the restarted task
 * reads the signal again and takes a new consistent point, after that transaction.
 *
 * <p>The message is trusted only when PUBLIC may not execute {@code pg_logical_emit_message}
 * (checked at the task's start): otherwise, and when malformed or non-transactional, it is logged
 * (escaped) and ignored.
 */
final class AddedTables {
  private static final Logger LOG = LoggerFactory.getLogger(AddedTables.class);

  /** What the filter asks of the online snapshots. */
  interface Pending {
    /** The consistent point of the snapshot waiting to be published, or -1. */
    long pendingPoint();

    /** True when the waiting snapshot loads {@code schema.table} as a table added to capture. */
    boolean pendingAdded(String display);
  }

  private final boolean trusted;
  private final Map<Long, String> relations = new HashMap<>();
  private final List<Received> received = new ArrayList<>();

  /** Streamed transactions (top xid) some of whose changes were dropped, and the P of then. */
  private final Map<Long, Long> streamedDrops = new HashMap<>();

  private long commitOfBegun = -1;

  /** Changes dropped for the snapshot waiting at {@link #droppedFor} (logged once it is gone). */
  private long dropped;

  private long droppedFor = -1;
  private long streamTop;

  private record Received(long top, long xid, Signal signal) {}

  AddedTables(boolean trusted) {
    this.trusted = trusted;
  }

  /**
   * The message as the pipeline goes on with it: the same one, null when taken or dropped, or a
   * Truncate without the pending tables.
   */
  PgOutputMessage filter(PgOutputMessage m, Pending pending) {
    if (m instanceof Relation r) {
      relations.put(r.relationOid(), r.namespace() + "." + r.name());
      return m;
    }
    if (m instanceof Begin b) {
      commitOfBegun = b.finalLsn();
      received.removeIf(x -> x.top() == 0);
      return m;
    }
    if (m instanceof StreamStart s) {
      streamTop = s.xid();
      return m;
    }
    if (m instanceof StreamAbort a) {
      boolean whole = a.subtransactionXid() == a.xid();
      received.removeIf(x -> x.top() == a.xid() && (whole || x.xid() == a.subtransactionXid()));
      if (whole) {
        streamedDrops.remove(a.xid());
      }
      return m;
    }
    if (m instanceof LogicalMessage l && PublicationReconciler.SIGNAL_PREFIX.equals(l.prefix())) {
      receive(l);
      return null;
    }
    long point = pending.pendingPoint();
    if (dropped > 0 && point != droppedFor) {
      LOG.info(
          "Tables added to capture: {} of their changes, in transactions committed before the"
              + " consistent point {} of their snapshot, were not published (the snapshot holds"
              + " them)",
          dropped,
          Lsn.format(droppedFor));
      dropped = 0;
    }
    if (point < 0) {
      return m;
    }
    long xid = streamXid(m);
    if (xid < 0) {
      return m; // not a change
    }
    if (m instanceof Truncate t) {
      long[] kept =
          Arrays.stream(t.relationOids()).filter(o -> !drops(o, xid, point, pending)).toArray();
      if (kept.length == t.relationOids().length) {
        return m;
      }
      return kept.length == 0 ? null : new Truncate(t.streamXid(), t.options(), kept);
    }
    return drops(relationOid(m), xid, point, pending) ? null : m;
  }

  /**
   * A (stream) commit at {@code commitLsn} of the transaction {@code top} (0: not streamed), before
   * the pending snapshot may be published there: fails when a streamed transaction lost changes it
   * needed.
   */
  void beforeCommit(long top, long commitLsn) {
    Long point = top == 0 ? null : streamedDrops.remove(top);
    if (point != null && commitLsn >= point) {
      throw new DroppedTooMuchException(
          "streamed transaction "
              + top
              + " committed at "
              + Lsn.format(commitLsn)
              + ", at or after the consistent point "
              + Lsn.format(point)
              + " of the snapshot of tables added to capture, and its changes to them were"
              + " dropped while it streamed; nothing after the signal was acknowledged, so the"
              + " restarted task reads the signal again and takes a consistent point after this"
              + " transaction");
    }
  }

  /** The transaction committed (after any snapshot due there): its messages' tables are loaded. */
  void committed(long top, long commitLsn, OnlineSnapshots snapshots) {
    Iterator<Received> it = received.iterator();
    while (it.hasNext()) {
      Received r = it.next();
      if (r.top() == top) {
        it.remove();
        snapshots.added(r.signal(), commitLsn);
      }
    }
  }

  boolean idle() {
    return received.isEmpty();
  }

  private boolean drops(long oid, long xid, long point, Pending pending) {
    String table = relations.get(oid);
    if (table == null || !pending.pendingAdded(table)) {
      return false;
    }
    if (xid == 0 && (commitOfBegun < 0 || commitOfBegun >= point)) {
      return false;
    }
    if (xid != 0) {
      streamedDrops.putIfAbsent(streamTop, point);
    }
    dropped++;
    droppedFor = point;
    return true;
  }

  private void receive(LogicalMessage l) {
    String content = new String(l.content(), StandardCharsets.UTF_8);
    String refusal = null;
    Signal s = null;
    if (!trusted) {
      refusal =
          "PUBLIC may execute pg_logical_emit_message, so any role could have written it (run"
              + " trellara-ddl-capture.sql, which revokes that, and restart the task)";
    } else if (!l.transactional()) {
      refusal = "it is not transactional, so it marks no point of the stream";
    } else {
      try {
        s = parse(content);
      } catch (MalformedSignalException e) {
        refusal = e.getMessage();
      }
    }
    if (refusal != null) {
      LOG.warn(
          "A {} message at {} is ignored: {} (content {})",
          PublicationReconciler.SIGNAL_PREFIX,
          Lsn.format(l.lsn()),
          LogText.escape(refusal),
          LogText.escape(content));
      return;
    }
    received.add(new Received(l.streamXid() == 0 ? 0 : streamTop, l.streamXid(), s));
  }

  /** The message's content: {@code added-tables <id>}, then one {@code schema.table} a line. */
  static Signal parse(String content) throws MalformedSignalException {
    String[] lines = content.split("\n", -1);
    String head = lines[0].strip();
    String word = PublicationReconciler.ADDED_TABLES;
    if (!head.startsWith(word + " ") || head.length() == word.length() + 1) {
      throw new MalformedSignalException(
          "the first line is not '" + word + " <id>' (the only kind of message there is)");
    }
    String id = head.substring(word.length() + 1).strip();
    StringBuilder data = new StringBuilder();
    for (int i = 1; i < lines.length; i++) {
      data.append(lines[i]).append('\n');
    }
    Signal s = SignalParser.parse(id, Signal.Action.SNAPSHOT.wireName(), data.toString());
    for (Signal.TableRequest t : s.tables()) {
      if (t.filter() != null) {
        throw new MalformedSignalException("a table added to capture takes no row filter");
      }
    }
    return s;
  }

  private static long streamXid(PgOutputMessage m) {
    if (m instanceof Insert i) {
      return i.streamXid();
    }
    if (m instanceof Update u) {
      return u.streamXid();
    }
    if (m instanceof Delete d) {
      return d.streamXid();
    }
    return m instanceof Truncate t ? t.streamXid() : -1;
  }

  private static long relationOid(PgOutputMessage m) {
    if (m instanceof Insert i) {
      return i.relationOid();
    }
    return m instanceof Update u ? u.relationOid() : ((Delete) m).relationOid();
  }

  /** A streamed transaction needed changes that were dropped: capture fails, to read it again. */
  static final class DroppedTooMuchException extends IllegalStateException {
    DroppedTooMuchException(String message) {
      super(message);
    }
  }
}
