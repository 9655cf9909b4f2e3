package io.trellara.source.pgoutput;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One pgoutput logical replication message (protocol versions 1 and 2), as produced by {@link
 * PgOutputParser}. One record per message kind.
 *
 * <p>Conventions: LSNs are {@code long}; transaction ids and OIDs are unsigned 32-bit values
 * widened to {@code long}; timestamps are PostgreSQL-epoch (2000-01-01 UTC) microseconds, with a
 * helper to Unix-epoch milliseconds. Messages that may travel inside a stream block implement
 * {@link Streamable} and carry the streamed transaction's xid, which is 0 ({@code
 * InvalidTransactionId}) outside a stream block.
 */
public sealed interface PgOutputMessage {

  /** The message type byte, e.g. 'B' for Begin. */
  byte type();

  /**
   * Messages that carry an Int32 xid after the type byte when sent inside a stream block. For
   * changes that is the xid of the (sub)transaction that made the change, which may be a
   * subtransaction of the top-level xid named by the enclosing Stream Start: a Stream Abort of a
   * subtransaction drops exactly the changes carrying its xid.
   */
  sealed interface Streamable extends PgOutputMessage
      permits Relation, Type, Insert, Update, Delete, Truncate, LogicalMessage {

    /** The xid of the streamed (sub)transaction, or 0 outside a stream block. */
    long streamXid();

    /** True when this message was sent inside a stream block. */
    default boolean streamed() {
      return streamXid() != 0;
    }
  }

  /** 'B': start of a (non-streamed) transaction. */
  record Begin(long finalLsn, long commitTimestampMicros, long xid) implements PgOutputMessage {
    @Override
    public byte type() {
      return 'B';
    }

    public long commitTimestampEpochMillis() {
      return PgTimestamps.toUnixEpochMillis(commitTimestampMicros);
    }
  }

  /**
   * 'C': end of a (non-streamed) transaction. {@code flags} is currently unused by PostgreSQL (0).
   */
  record Commit(int flags, long commitLsn, long endLsn, long commitTimestampMicros)
      implements PgOutputMessage {
    @Override
    public byte type() {
      return 'C';
    }

    public long commitTimestampEpochMillis() {
      return PgTimestamps.toUnixEpochMillis(commitTimestampMicros);
    }
  }

  /**
   * 'O': the replication origin of the current transaction (sent after Begin or inside the first
   * stream block).
   */
  record Origin(long originLsn, String name) implements PgOutputMessage {
    @Override
    public byte type() {
      return 'O';
    }
  }

  /**
   * 'R': the description of a relation; sent before its first change in a session (and after it
   * changes).
   */
  record Relation(
      long streamXid,
      long relationOid,
      String namespace,
      String name,
      ReplicaIdentity replicaIdentity,
      List<Column> columns)
      implements Streamable {

    /** One column. {@code typeModifier} is -1 when the type has none. */
    public record Column(boolean key, String name, long typeOid, int typeModifier) {}

    public Relation {
      columns = List.copyOf(columns);
    }

    @Override
    public byte type() {
      return 'R';
    }
  }

  /**
   * 'Y': a non-built-in data type used by a relation's columns, sent before the Relation. For a
   * domain, PostgreSQL sends the domain's OID with the name and namespace of its base type (e.g. ""
   * and "int4").
   */
  record Type(long streamXid, long typeOid, String namespace, String name) implements Streamable {
    @Override
    public byte type() {
      return 'Y';
    }
  }

  /** 'I': a new row. */
  record Insert(long streamXid, long relationOid, TupleData newTuple) implements Streamable {
    @Override
    public byte type() {
      return 'I';
    }
  }

  /**
   * 'U': an updated row. {@code oldTuple} is present (and {@code oldTupleKind} KEY or OLD) when the
   * key changed (K, replica identity DEFAULT/INDEX) or the table is REPLICA IDENTITY FULL (O);
   * otherwise it is null and the kind is NONE.
   */
  record Update(
      long streamXid,
      long relationOid,
      OldTupleKind oldTupleKind,
      TupleData oldTuple,
      TupleData newTuple)
      implements Streamable {
    public Update {
      Objects.requireNonNull(oldTupleKind, "oldTupleKind");
      if ((oldTupleKind == OldTupleKind.NONE) != (oldTuple == null)) {
        throw new IllegalArgumentException(
            "oldTuple must be present exactly when oldTupleKind is K or O");
      }
    }

    @Override
    public byte type() {
      return 'U';
    }
  }

  /** 'D': a deleted row, identified by its key (K) or by the whole old row (O). */
  record Delete(long streamXid, long relationOid, OldTupleKind oldTupleKind, TupleData oldTuple)
      implements Streamable {
    @Override
    public byte type() {
      return 'D';
    }
  }

  /** 'T': TRUNCATE of one or more relations in one statement. */
  record Truncate(long streamXid, int options, long[] relationOids) implements Streamable {
    public static final int OPTION_CASCADE = 1;
    public static final int OPTION_RESTART_IDENTITY = 2;

    @Override
    public byte type() {
      return 'T';
    }

    public boolean cascade() {
      return (options & OPTION_CASCADE) != 0;
    }

    public boolean restartIdentity() {
      return (options & OPTION_RESTART_IDENTITY) != 0;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Truncate t
          && t.streamXid == streamXid
          && t.options == options
          && Arrays.equals(t.relationOids, relationOids);
    }

    @Override
    public int hashCode() {
      return Objects.hash(streamXid, options, Arrays.hashCode(relationOids));
    }

    @Override
    public String toString() {
      return "Truncate[streamXid="
          + streamXid
          + ", options="
          + options
          + ", relationOids="
          + Arrays.toString(relationOids)
          + "]";
    }
  }

  /** 'M': a logical decoding message from {@code pg_logical_emit_message}. */
  record LogicalMessage(
      long streamXid, boolean transactional, long lsn, String prefix, byte[] content)
      implements Streamable {
    public static final int FLAG_TRANSACTIONAL = 1;

    @Override
    public byte type() {
      return 'M';
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof LogicalMessage m
          && m.streamXid == streamXid
          && m.transactional == transactional
          && m.lsn == lsn
          && m.prefix.equals(prefix)
          && Arrays.equals(m.content, content);
    }

    @Override
    public int hashCode() {
      return Objects.hash(streamXid, transactional, lsn, prefix, Arrays.hashCode(content));
    }

    @Override
    public String toString() {
      return "LogicalMessage[streamXid="
          + streamXid
          + ", transactional="
          + transactional
          + ", lsn="
          + lsn
          + ", prefix="
          + prefix
          + ", content="
          + content.length
          + " bytes]";
    }
  }

  /** 'S': start of a block of changes of an in-progress (streamed) transaction. Protocol 2 only. */
  record StreamStart(long xid, boolean firstSegment) implements PgOutputMessage {
    @Override
    public byte type() {
      return 'S';
    }
  }

  /** 'E': end of a stream block. Protocol 2 only. */
  record StreamStop() implements PgOutputMessage {
    @Override
    public byte type() {
      return 'E';
    }
  }

  /** 'c': commit of a streamed transaction. Protocol 2 only. */
  record StreamCommit(long xid, int flags, long commitLsn, long endLsn, long commitTimestampMicros)
      implements PgOutputMessage {
    @Override
    public byte type() {
      return 'c';
    }

    public long commitTimestampEpochMillis() {
      return PgTimestamps.toUnixEpochMillis(commitTimestampMicros);
    }
  }

  /**
   * 'A': abort of a streamed transaction ({@code subtransactionXid == xid}) or of one of its
   * subtransactions (a rolled-back savepoint). Protocol 2 only.
   */
  record StreamAbort(long xid, long subtransactionXid) implements PgOutputMessage {
    @Override
    public byte type() {
      return 'A';
    }

    /** True when the whole streamed transaction aborted, false when only a subtransaction did. */
    public boolean abortsTopLevelTransaction() {
      return xid == subtransactionXid;
    }
  }
}
