package io.trellara.source.capture;

import io.trellara.source.pgoutput.OldTupleKind;
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
import io.trellara.source.pgoutput.PgOutputMessage.Update;
import io.trellara.source.pgoutput.TupleData;
import io.trellara.source.pgoutput.WireWriter;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Writes parsed messages back into pgoutput wire bytes (the exact layout {@code PgOutputParser}
 * reads, the stream xid included when {@link Streamable#streamXid()} is not 0). The assembler uses
 * it only to spill a Truncate or DDL message it was handed without its raw bytes (a parsed Insert,
 * Update or Delete keeps its wire bytes in its tuples); tests use it to build synthetic streams.
 * One instance reuses one growing buffer: {@link #encode} returns a view valid until the next call.
 */
final class PgOutputEncoder {

  private final WireWriter out = new WireWriter();

  /**
   * Encodes into the reusable buffer; returns its length (bytes in {@link #buffer()} [0, length)).
   */
  int encode(PgOutputMessage message) {
    out.reset();
    switch (message.type()) {
      case 'I' -> {
        Insert m = (Insert) message;
        head('I', m);
        i32(m.relationOid());
        u8('N');
        tuple(m.newTuple());
      }
      case 'U' -> {
        Update m = (Update) message;
        head('U', m);
        i32(m.relationOid());
        if (m.oldTupleKind() != OldTupleKind.NONE) {
          u8(m.oldTupleKind().code());
          tuple(m.oldTuple());
        }
        u8('N');
        tuple(m.newTuple());
      }
      case 'D' -> {
        Delete m = (Delete) message;
        head('D', m);
        i32(m.relationOid());
        u8(m.oldTupleKind().code());
        tuple(m.oldTuple());
      }
      case 'T' -> {
        Truncate m = (Truncate) message;
        head('T', m);
        i32(m.relationOids().length);
        u8(m.options());
        for (long oid : m.relationOids()) {
          i32(oid);
        }
      }
      case 'M' -> {
        LogicalMessage m = (LogicalMessage) message;
        head('M', m);
        u8(m.transactional() ? LogicalMessage.FLAG_TRANSACTIONAL : 0);
        i64(m.lsn());
        cstring(m.prefix());
        i32(m.content().length);
        bytes(m.content(), 0, m.content().length);
      }
      case 'R' -> {
        Relation m = (Relation) message;
        head('R', m);
        i32(m.relationOid());
        cstring(m.namespace());
        cstring(m.name());
        u8(m.replicaIdentity().code());
        i16(m.columns().size());
        for (Relation.Column c : m.columns()) {
          u8(c.key() ? 1 : 0);
          cstring(c.name());
          i32(c.typeOid());
          i32(c.typeModifier());
        }
      }
      case 'Y' -> {
        PgOutputMessage.Type m = (PgOutputMessage.Type) message;
        head('Y', m);
        i32(m.typeOid());
        cstring(m.namespace());
        cstring(m.name());
      }
      case 'B' -> {
        Begin m = (Begin) message;
        u8('B');
        i64(m.finalLsn());
        i64(m.commitTimestampMicros());
        i32(m.xid());
      }
      case 'C' -> {
        Commit m = (Commit) message;
        u8('C');
        u8(m.flags());
        i64(m.commitLsn());
        i64(m.endLsn());
        i64(m.commitTimestampMicros());
      }
      case 'S' -> {
        StreamStart m = (StreamStart) message;
        u8('S');
        i32(m.xid());
        u8(m.firstSegment() ? 1 : 0);
      }
      case 'E' -> u8('E');
      default -> throw new IllegalArgumentException("unknown message " + message);
      case 'c' -> {
        StreamCommit m = (StreamCommit) message;
        u8('c');
        i32(m.xid());
        u8(m.flags());
        i64(m.commitLsn());
        i64(m.endLsn());
        i64(m.commitTimestampMicros());
      }
      case 'A' -> {
        StreamAbort m = (StreamAbort) message;
        u8('A');
        i32(m.xid());
        i32(m.subtransactionXid());
      }
      case 'O' -> {
        PgOutputMessage.Origin m = (PgOutputMessage.Origin) message;
        u8('O');
        i64(m.originLsn());
        cstring(m.name());
      }
    }
    return out.length();
  }

  byte[] buffer() {
    return out.array();
  }

  /** A fresh copy of the encoding. */
  byte[] toBytes(PgOutputMessage message) {
    int n = encode(message);
    return Arrays.copyOf(out.array(), n);
  }

  private void head(char type, Streamable m) {
    u8(type);
    if (m.streamXid() != 0) {
      i32(m.streamXid());
    }
  }

  private void tuple(TupleData t) {
    int n = t.columnCount();
    i16(n);
    for (int i = 0; i < n; i++) {
      byte kind = t.kindCode(i);
      u8(kind);
      if (kind == 't' || kind == 'b') {
        ByteBuffer v = t.value(i);
        i32(v.remaining());
        out.bytes(v);
      }
    }
  }

  private void cstring(String s) {
    out.cstring(s);
  }

  private void bytes(byte[] b, int off, int n) {
    out.bytes(b, off, n);
  }

  private void u8(int v) {
    out.u8(v);
  }

  private void i16(int v) {
    out.i16(v);
  }

  private void i32(long v) {
    out.i32(v);
  }

  private void i64(long v) {
    out.i64(v);
  }
}
