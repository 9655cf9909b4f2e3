package io.trellara.source.pgoutput;

import io.trellara.source.pgoutput.PgOutputMessage.Begin;
import io.trellara.source.pgoutput.PgOutputMessage.Commit;
import io.trellara.source.pgoutput.PgOutputMessage.Delete;
import io.trellara.source.pgoutput.PgOutputMessage.Insert;
import io.trellara.source.pgoutput.PgOutputMessage.LogicalMessage;
import io.trellara.source.pgoutput.PgOutputMessage.Origin;
import io.trellara.source.pgoutput.PgOutputMessage.Relation;
import io.trellara.source.pgoutput.PgOutputMessage.StreamAbort;
import io.trellara.source.pgoutput.PgOutputMessage.StreamCommit;
import io.trellara.source.pgoutput.PgOutputMessage.StreamStart;
import io.trellara.source.pgoutput.PgOutputMessage.StreamStop;
import io.trellara.source.pgoutput.PgOutputMessage.Truncate;
import io.trellara.source.pgoutput.PgOutputMessage.Type;
import io.trellara.source.pgoutput.PgOutputMessage.Update;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses pgoutput logical replication messages (protocol versions 1 and 2) into {@link
 * PgOutputMessage} records. ByteBuffer in, typed record out; no I/O, no JDBC.
 *
 * <p>Each message reads bytes {@code [position, limit)} of the buffer given to it (the payload of
 * one XLogData message, without the 25-byte XLogData header) and never moves the buffer's position.
 * The message must fill that range exactly: trailing bytes are a protocol violation, as are short
 * messages, unknown type bytes, unknown tuple column kinds, stream messages under protocol 1, and
 * stream-block nesting errors. All of these throw {@link PgOutputProtocolException}, never a buffer
 * or index exception.
 *
 * <p><b>State.</b> Inside a stream block (between Stream Start and Stream Stop) Relation, Type,
 * Insert, Update, Delete, Truncate and Message carry an extra Int32 xid right after the type byte.
 * The only state of a parser is therefore one flag, "inside a stream block", which {@link
 * #parse(ByteBuffer)} tracks from the Stream Start and Stream Stop messages it parses. {@link
 * #parse(ByteBuffer, boolean)} is the pure form: the caller passes the flag and the parser's state
 * is neither read nor changed. A parser instance is not thread-safe; one replication stream is
 * owned by one thread and gets one parser.
 *
 * <p>String fields (names, prefixes) are decoded as UTF-8 (the server encoding the connector
 * requires). Tuple values stay bytes (see {@link TupleData}).
 */
public final class PgOutputParser {

  public static final int PROTOCOL_VERSION_1 = 1;
  public static final int PROTOCOL_VERSION_2 = 2;

  private final int protocolVersion;
  private boolean inStreamBlock;

  /**
   * @param protocolVersion the {@code proto_version} the replication stream was started with: 1 or
   *     2
   */
  public PgOutputParser(int protocolVersion) {
    if (protocolVersion != PROTOCOL_VERSION_1 && protocolVersion != PROTOCOL_VERSION_2) {
      throw new IllegalArgumentException(
          "unsupported pgoutput protocol version "
              + protocolVersion
              + ": this parser supports 1 and 2");
    }
    this.protocolVersion = protocolVersion;
  }

  public int protocolVersion() {
    return protocolVersion;
  }

  /** True between a Stream Start and the next Stream Stop parsed by {@link #parse(ByteBuffer)}. */
  public boolean inStreamBlock() {
    return inStreamBlock;
  }

  /**
   * Parses one message and tracks stream blocks. When the message is invalid the exception is
   * thrown and the state is unchanged.
   */
  public PgOutputMessage parse(ByteBuffer message) {
    PgOutputMessage parsed = parse(message, inStreamBlock);
    if (parsed instanceof StreamStart) {
      inStreamBlock = true;
    } else if (parsed instanceof StreamStop) {
      inStreamBlock = false;
    }
    return parsed;
  }

  /**
   * Parses one message, given whether it was received inside a stream block. Pure: does not read or
   * change the state tracked by {@link #parse(ByteBuffer)}.
   */
  public PgOutputMessage parse(ByteBuffer message, boolean inStreamBlock) {
    MessageReader in = MessageReader.of(message);
    byte type = in.type();
    PgOutputMessage parsed =
        switch (type) {
          case 'B' -> begin(in, inStreamBlock);
          case 'C' -> commit(in, inStreamBlock);
          case 'O' -> origin(in);
          case 'R' -> relation(in, streamXid(in, inStreamBlock));
          case 'Y' -> type(in, streamXid(in, inStreamBlock));
          case 'I' -> insert(in, streamXid(in, inStreamBlock));
          case 'U' -> update(in, streamXid(in, inStreamBlock));
          case 'D' -> delete(in, streamXid(in, inStreamBlock));
          case 'T' -> truncate(in, streamXid(in, inStreamBlock));
          case 'M' -> logicalMessage(in, streamXid(in, inStreamBlock));
          case 'S' -> streamStart(in, inStreamBlock);
          case 'E' -> streamStop(in, inStreamBlock);
          case 'c' -> streamCommit(in, inStreamBlock);
          case 'A' -> streamAbort(in, inStreamBlock);
          default -> throw in.violationBefore(1, "unknown message type", "type");
        };
    in.requireEnd();
    return parsed;
  }

  // Streamed variants: Byte1 type | Int32 xid | <the rest of the non-streamed layout>
  private static long streamXid(MessageReader in, boolean inStreamBlock) {
    if (!inStreamBlock) {
      return 0L;
    }
    long xid = in.uint32("xid");
    if (xid == 0L) {
      throw in.violation("streamed message with invalid xid 0", "xid");
    }
    return xid;
  }

  // Begin: Byte1 'B' | Int64 final LSN of the transaction | Int64 commit timestamp (PG epoch
  // micros) | Int32 xid
  private static Begin begin(MessageReader in, boolean inStreamBlock) {
    in.requireOutsideStreamBlock(inStreamBlock);
    return new Begin(
        in.int64("begin.final_lsn"), in.int64("begin.commit_timestamp"), in.uint32("begin.xid"));
  }

  // Commit: Byte1 'C' | Int8 flags (unused, 0) | Int64 commit LSN | Int64 end LSN of the
  // transaction
  //         | Int64 commit timestamp (PG epoch micros)
  private static Commit commit(MessageReader in, boolean inStreamBlock) {
    in.requireOutsideStreamBlock(inStreamBlock);
    return new Commit(
        in.uint8("commit.flags"),
        in.int64("commit.commit_lsn"),
        in.int64("commit.end_lsn"),
        in.int64("commit.commit_timestamp"));
  }

  // Origin: Byte1 'O' | Int64 commit LSN on the origin server | String origin name
  // (sent after Begin, or inside the first block of a streamed transaction; never with an xid)
  private static Origin origin(MessageReader in) {
    return new Origin(in.int64("origin.lsn"), in.cstring("origin.name"));
  }

  // Relation: Byte1 'R' | [Int32 xid] | Int32 relation OID | String namespace ("" for pg_catalog)
  //           | String relation name | Int8 replica identity (d, n, f, i) | Int16 number of columns
  //           | per column: Int8 flags (1 = part of the key) | String name | Int32 type OID | Int32
  // typmod
  private static Relation relation(MessageReader in, long streamXid) {
    long oid = in.uint32("relation.oid");
    String namespace = in.cstring("relation.namespace");
    String name = in.cstring("relation.name");
    byte identityCode = in.int8("relation.replica_identity");
    ReplicaIdentity identity = ReplicaIdentity.fromCode(identityCode);
    if (identity == null) {
      throw in.violationBefore(
          1,
          "unknown replica identity setting " + PgOutputProtocolException.typeName(identityCode),
          "relation.replica_identity");
    }
    int count = in.uint16("relation.column_count");
    // each column needs at least 1 + 1 + 4 + 4 bytes
    in.requireRemaining(count * 10L, "relation.columns");
    List<Relation.Column> columns = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int flags = in.uint8("relation.columns.flags");
      String columnName = in.cstring("relation.columns.name");
      long typeOid = in.uint32("relation.columns.type_oid");
      int typmod = in.int32("relation.columns.type_modifier");
      columns.add(new Relation.Column((flags & 1) != 0, columnName, typeOid, typmod));
    }
    return new Relation(streamXid, oid, namespace, name, identity, columns);
  }

  // Type: Byte1 'Y' | [Int32 xid] | Int32 type OID | String namespace ("" for pg_catalog) | String
  // type name
  private static Type type(MessageReader in, long streamXid) {
    return new Type(
        streamXid, in.uint32("type.oid"), in.cstring("type.namespace"), in.cstring("type.name"));
  }

  // Insert: Byte1 'I' | [Int32 xid] | Int32 relation OID | Byte1 'N' | TupleData new tuple
  private static Insert insert(MessageReader in, long streamXid) {
    long oid = in.uint32("insert.relation_oid");
    in.expectMarker((byte) 'N', "insert.new_tuple_marker");
    return new Insert(streamXid, oid, in.tupleData(MessageReader.TupleField.INSERT_NEW));
  }

  // Update: Byte1 'U' | [Int32 xid] | Int32 relation OID
  //         | optional: Byte1 'K' (old key) or 'O' (old row) | TupleData old tuple
  //         | Byte1 'N' | TupleData new tuple
  private static Update update(MessageReader in, long streamXid) {
    long oid = in.uint32("update.relation_oid");
    byte marker = in.int8("update.tuple_marker");
    OldTupleKind kind;
    TupleData oldTuple = null;
    if (marker == 'K' || marker == 'O') {
      kind = marker == 'K' ? OldTupleKind.KEY : OldTupleKind.OLD;
      oldTuple = in.tupleData(MessageReader.TupleField.UPDATE_OLD);
      in.expectMarker((byte) 'N', "update.new_tuple_marker");
    } else if (marker == 'N') {
      kind = OldTupleKind.NONE;
    } else {
      throw in.violationBefore(
          1,
          "expected K, O or N but found " + PgOutputProtocolException.typeName(marker),
          "update.tuple_marker");
    }
    return new Update(
        streamXid, oid, kind, oldTuple, in.tupleData(MessageReader.TupleField.UPDATE_NEW));
  }

  // Delete: Byte1 'D' | [Int32 xid] | Int32 relation OID | Byte1 'K' (old key) or 'O' (old row)
  //         | TupleData old tuple
  private static Delete delete(MessageReader in, long streamXid) {
    long oid = in.uint32("delete.relation_oid");
    byte marker = in.int8("delete.tuple_marker");
    if (marker != 'K' && marker != 'O') {
      throw in.violationBefore(
          1,
          "expected K or O but found " + PgOutputProtocolException.typeName(marker),
          "delete.tuple_marker");
    }
    OldTupleKind kind = marker == 'K' ? OldTupleKind.KEY : OldTupleKind.OLD;
    return new Delete(streamXid, oid, kind, in.tupleData(MessageReader.TupleField.DELETE_OLD));
  }

  // Truncate: Byte1 'T' | [Int32 xid] | Int32 number of relations | Int8 options (1 = CASCADE,
  //           2 = RESTART IDENTITY) | Int32 relation OID, once per relation
  private static Truncate truncate(MessageReader in, long streamXid) {
    int count = in.int32("truncate.relation_count");
    if (count < 0) {
      throw in.violationBefore(4, "negative relation count " + count, "truncate.relation_count");
    }
    int options = in.uint8("truncate.options");
    in.requireRemaining(count * 4L, "truncate.relation_oids");
    long[] oids = new long[count];
    for (int i = 0; i < count; i++) {
      oids[i] = in.uint32("truncate.relation_oids");
    }
    return new Truncate(streamXid, options, oids);
  }

  // Message: Byte1 'M' | [Int32 xid] | Int8 flags (1 = transactional) | Int64 LSN of the message
  //          | String prefix | Int32 content length | Byte[n] content
  private static LogicalMessage logicalMessage(MessageReader in, long streamXid) {
    int flags = in.uint8("message.flags");
    long lsn = in.int64("message.lsn");
    String prefix = in.cstring("message.prefix");
    int length = in.int32("message.content_length");
    if (length < 0) {
      throw in.violationBefore(4, "negative content length " + length, "message.content_length");
    }
    byte[] content = in.bytes(length, "message.content");
    return new LogicalMessage(
        streamXid, (flags & LogicalMessage.FLAG_TRANSACTIONAL) != 0, lsn, prefix, content);
  }

  // Stream Start: Byte1 'S' | Int32 xid | Int8 1 if the first segment of this xid, else 0
  private StreamStart streamStart(MessageReader in, boolean inStreamBlock) {
    requireStreamingProtocol(in);
    if (inStreamBlock) {
      throw in.violationBefore(1, "Stream Start inside a stream block", "type");
    }
    long xid = in.uint32("stream_start.xid");
    int first = in.uint8("stream_start.first_segment");
    return new StreamStart(xid, first == 1);
  }

  // Stream Stop: Byte1 'E' (no fields)
  private StreamStop streamStop(MessageReader in, boolean inStreamBlock) {
    requireStreamingProtocol(in);
    if (!inStreamBlock) {
      throw in.violationBefore(1, "Stream Stop outside a stream block", "type");
    }
    return new StreamStop();
  }

  // Stream Commit: Byte1 'c' | Int32 xid | Int8 flags (unused, 0) | Int64 commit LSN
  //                | Int64 end LSN of the transaction | Int64 commit timestamp (PG epoch micros)
  private StreamCommit streamCommit(MessageReader in, boolean inStreamBlock) {
    requireStreamingProtocol(in);
    in.requireOutsideStreamBlock(inStreamBlock);
    return new StreamCommit(
        in.uint32("stream_commit.xid"),
        in.uint8("stream_commit.flags"),
        in.int64("stream_commit.commit_lsn"),
        in.int64("stream_commit.end_lsn"),
        in.int64("stream_commit.commit_timestamp"));
  }

  // Stream Abort: Byte1 'A' | Int32 xid of the transaction | Int32 xid of the subtransaction
  //               (equal to the transaction's xid when the whole transaction aborted)
  // (protocol 4 with streaming=parallel adds abort LSN and timestamp; not negotiated here)
  private StreamAbort streamAbort(MessageReader in, boolean inStreamBlock) {
    requireStreamingProtocol(in);
    in.requireOutsideStreamBlock(inStreamBlock);
    return new StreamAbort(
        in.uint32("stream_abort.xid"), in.uint32("stream_abort.subtransaction_xid"));
  }

  private void requireStreamingProtocol(MessageReader in) {
    if (protocolVersion < PROTOCOL_VERSION_2) {
      throw in.violationBefore(
          1,
          "stream message under protocol version "
              + protocolVersion
              + " (streaming needs protocol version 2)",
          "type");
    }
  }
}
