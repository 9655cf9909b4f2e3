package io.trellara.source.pgoutput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.trellara.source.pgoutput.PgOutputMessage.Insert;
import io.trellara.source.pgoutput.PgOutputMessage.StreamAbort;
import io.trellara.source.pgoutput.PgOutputMessage.StreamStart;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Crafted messages: every protocol violation is a {@link PgOutputProtocolException} naming type and
 * position.
 */
class PgOutputParserMalformedInputTest {

  private final PgOutputParser v2 = new PgOutputParser(2);
  private final PgOutputParser v1 = new PgOutputParser(1);

  @Test
  void rejectsUnknownMessageTypeNamingTheTypeByteAndPosition() {
    PgOutputProtocolException e =
        catchThrowableOfType(
            PgOutputProtocolException.class,
            () -> v2.parse(ByteBuffer.wrap(new byte[] {'Z', 0, 0, 0, 1})));
    assertThat(e.messageType()).isEqualTo((byte) 'Z');
    assertThat(e.position()).isZero();
    assertThat(e.field()).isEqualTo("type");
    assertThat(e)
        .hasMessageContaining("unknown message type")
        .hasMessageContaining("'Z' (0x5a)")
        .hasMessageContaining("at byte 0 of 5");
  }

  @Test
  void rejectsProtocolThreeMessagesSuchAsBeginPrepare() {
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(new byte[] {'b', 0, 0, 0, 0, 0, 0, 0, 1})))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("unknown message type")
        .hasMessageContaining("'b'");
  }

  @Test
  void rejectsEmptyMessage() {
    assertThatThrownBy(() -> v2.parse(ByteBuffer.allocate(0)))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("empty message");
  }

  @Test
  void rejectsShortBeginWithTheFieldAndPositionWhereItEnds() {
    byte[] begin = msg('B').i64(0x16B3748L).i64(1L).build(); // xid missing
    PgOutputProtocolException e =
        catchThrowableOfType(
            PgOutputProtocolException.class, () -> v2.parse(ByteBuffer.wrap(begin)));
    assertThat(e.messageType()).isEqualTo((byte) 'B');
    assertThat(e.field()).isEqualTo("begin.xid");
    assertThat(e.position()).isEqualTo(17);
    assertThat(e).hasMessageContaining("too short");
  }

  @Test
  void rejectsStreamMessagesUnderProtocolOne() {
    for (byte[] stream :
        new byte[][] {
          msg('S').i32(700).i8(1).build(),
          msg('E').build(),
          msg('A').i32(700).i32(700).build(),
          msg('c').i32(700).i8(0).i64(1).i64(2).i64(3).build()
        }) {
      PgOutputProtocolException e =
          catchThrowableOfType(
              PgOutputProtocolException.class, () -> v1.parse(ByteBuffer.wrap(stream)));
      assertThat(e.messageType()).isEqualTo(stream[0]);
      assertThat(e).hasMessageContaining("protocol version 1");
    }
  }

  @Test
  void acceptsStreamMessagesUnderProtocolTwo() {
    assertThat(v2.parse(ByteBuffer.wrap(msg('S').i32(700).i8(1).build())))
        .isEqualTo(new StreamStart(700, true));
    assertThat(v2.inStreamBlock()).isTrue();
    assertThat(v2.parse(ByteBuffer.wrap(msg('E').build())))
        .isInstanceOf(PgOutputMessage.StreamStop.class);
    assertThat(v2.inStreamBlock()).isFalse();
    StreamAbort abort = (StreamAbort) v2.parse(ByteBuffer.wrap(msg('A').i32(700).i32(701).build()));
    assertThat(abort.abortsTopLevelTransaction()).isFalse();
    assertThat(abort.subtransactionXid()).isEqualTo(701);
  }

  @Test
  void rejectsStreamBlockNestingErrors() {
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(msg('E').build())))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("Stream Stop outside");
    v2.parse(ByteBuffer.wrap(msg('S').i32(700).i8(1).build()));
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(msg('S').i32(701).i8(1).build())))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("Stream Start inside");
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(msg('B').i64(1).i64(1).i32(5).build())))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("inside a stream block");
    assertThatThrownBy(
            () -> v2.parse(ByteBuffer.wrap(msg('c').i32(700).i8(0).i64(1).i64(2).i64(3).build())))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("inside a stream block");
    assertThat(v2.inStreamBlock()).as("failed messages leave the state unchanged").isTrue();
  }

  @Test
  void readsTheXidOfStreamedChangesOnlyInsideABlock() {
    byte[] plain = msg('I').i32(16390).i8('N').i16(1).i8('t').i32(1).raw("7").build();
    byte[] streamed = msg('I').i32(751).i32(16390).i8('N').i16(1).i8('t').i32(1).raw("7").build();
    Insert outside = (Insert) v2.parse(ByteBuffer.wrap(plain), false);
    Insert inside = (Insert) v2.parse(ByteBuffer.wrap(streamed), true);
    assertThat(outside.streamXid()).isZero();
    assertThat(inside.streamXid()).isEqualTo(751);
    assertThat(inside.relationOid()).isEqualTo(outside.relationOid()).isEqualTo(16390);
    assertThat(inside.newTuple()).isEqualTo(outside.newTuple());
    // the streamed form read as non-streamed is garbage the parser must catch, not return
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(streamed), false))
        .isInstanceOf(PgOutputProtocolException.class);
  }

  @Test
  void rejectsStreamedChangeWithInvalidXid() {
    byte[] streamed = msg('I').i32(0).i32(16390).i8('N').i16(0).build();
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(streamed), true))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("invalid xid 0");
  }

  @Test
  void rejectsUnknownTupleColumnKindNamingTheField() {
    byte[] insert = msg('I').i32(16390).i8('N').i16(2).i8('n').i8('x').build();
    PgOutputProtocolException e =
        catchThrowableOfType(
            PgOutputProtocolException.class, () -> v2.parse(ByteBuffer.wrap(insert)));
    assertThat(e.field()).isEqualTo("insert.new_tuple.kind");
    assertThat(e.position()).isEqualTo(9);
    assertThat(e).hasMessageContaining("'x'");
  }

  @Test
  void rejectsMissingNewTupleMarker() {
    byte[] insert = msg('I').i32(16390).i8('K').i16(0).build();
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(insert)))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("insert.new_tuple_marker");
    byte[] update = msg('U').i32(16390).i8('X').i16(0).build();
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(update)))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("update.tuple_marker");
    byte[] delete = msg('D').i32(16390).i8('N').i16(0).build();
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(delete)))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("delete.tuple_marker");
  }

  @Test
  void rejectsNegativeAndOverlongLengths() {
    byte[] negativeValue = msg('I').i32(1).i8('N').i16(1).i8('t').i32(-1).build();
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(negativeValue)))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("negative value length");
    byte[] overlongValue =
        msg('I').i32(1).i8('N').i16(1).i8('t').i32(Integer.MAX_VALUE).raw("abc").build();
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(overlongValue)))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("too short");
    byte[] negativeContent = msg('M').i8(1).i64(5).raw("p\0").i32(-5).build();
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(negativeContent)))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("negative content length");
    byte[] hugeTruncate = msg('T').i32(Integer.MAX_VALUE).i8(0).i32(16390).build();
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(hugeTruncate)))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("truncate.relation_oids");
    byte[] manyColumns = msg('I').i32(1).i8('N').i16(0xFFFF).i8('n').build();
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(manyColumns)))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("insert.new_tuple.columns");
  }

  @Test
  void rejectsRelationWithUnknownReplicaIdentityOrUnterminatedName() {
    byte[] badIdentity = msg('R').i32(16390).raw("public\0t\0").i8('z').i16(0).build();
    PgOutputProtocolException e =
        catchThrowableOfType(
            PgOutputProtocolException.class, () -> v2.parse(ByteBuffer.wrap(badIdentity)));
    assertThat(e.field()).isEqualTo("relation.replica_identity");
    assertThat(e.position()).isEqualTo(14);
    byte[] unterminated = msg('R').i32(16390).raw("public").build();
    assertThatThrownBy(() -> v2.parse(ByteBuffer.wrap(unterminated)))
        .isInstanceOf(PgOutputProtocolException.class)
        .hasMessageContaining("without terminating NUL")
        .hasMessageContaining("relation.namespace");
  }

  @Test
  void readsFromPositionToLimitOfAnOffsetHeapBufferAndOfADirectBuffer() {
    byte[] message =
        msg('R')
            .i32(16390)
            .raw("public\0account\0")
            .i8('d')
            .i16(1)
            .i8(1)
            .raw("id\0")
            .i32(20)
            .i32(-1)
            .build();
    byte[] framed =
        new byte[25 + message.length + 3]; // like pgjdbc: 25-byte XLogData header before
    System.arraycopy(message, 0, framed, 25, message.length);
    ByteBuffer heap = ByteBuffer.wrap(framed, 25, message.length);
    ByteBuffer direct = ByteBuffer.allocateDirect(message.length + 4);
    direct.position(4);
    direct.put(message).flip().position(4);
    PgOutputMessage fromHeap = v2.parse(heap);
    PgOutputMessage fromSlice =
        v2.parse(ByteBuffer.wrap(framed, 20, message.length + 5).slice().position(5));
    PgOutputMessage fromDirect = v2.parse(direct);
    assertThat(fromHeap).isEqualTo(fromDirect).isEqualTo(fromSlice);
    assertThat(heap.position()).isEqualTo(25);
    assertThat(direct.position()).isEqualTo(4);
    PgOutputMessage.Relation r = (PgOutputMessage.Relation) fromHeap;
    assertThat(r.name()).isEqualTo("account");
    assertThat(r.columns())
        .containsExactly(new PgOutputMessage.Relation.Column(true, "id", 20, -1));
  }

  @Test
  void readsUnsignedXidsAndOids() {
    byte[] begin = msg('B').i64(-1L).i64(0).i32(0xFFFF_FFF0).build();
    PgOutputMessage.Begin b = (PgOutputMessage.Begin) v2.parse(ByteBuffer.wrap(begin));
    assertThat(b.xid()).isEqualTo(0xFFFF_FFF0L);
    assertThat(b.finalLsn()).isEqualTo(-1L); // FFFFFFFF/FFFFFFFF as the raw long
    assertThat(b.commitTimestampEpochMillis()).isEqualTo(PgTimestamps.POSTGRES_EPOCH_UNIX_MILLIS);
  }

  @Test
  void rejectsUnsupportedProtocolVersions() {
    assertThatThrownBy(() -> new PgOutputParser(3)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new PgOutputParser(0)).isInstanceOf(IllegalArgumentException.class);
  }

  // ---------------------------------------------------------------------------------------------

  static Builder msg(char type) {
    return new Builder().i8(type);
  }

  static final class Builder {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Builder i8(int v) {
      out.write(v);
      return this;
    }

    Builder i16(int v) {
      return i8(v >>> 8).i8(v);
    }

    Builder i32(int v) {
      return i16(v >>> 16).i16(v & 0xFFFF);
    }

    Builder i64(long v) {
      return i32((int) (v >>> 32)).i32((int) v);
    }

    Builder raw(String s) {
      out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
      return this;
    }

    byte[] build() {
      return out.toByteArray();
    }
  }
}
