package io.trellara.source.pgoutput;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Bounds-checked big-endian cursor over one pgoutput message. Every read checks the remaining
 * length first and throws {@link PgOutputProtocolException} naming the field, so a short or corrupt
 * message can never surface as a buffer or index exception. Positions in exceptions are relative to
 * the message start.
 */
final class MessageReader {

  private final byte[] data;
  private final int start;
  private final int end;
  private int pos;
  private final byte type;

  /**
   * True when {@code data} is this reader's own copy of exactly the message (the buffer had no
   * array).
   */
  private final boolean ownsData;

  /** The message's bytes as its tuples keep them: copied once, whatever the number of tuples. */
  private byte[] kept;

  private MessageReader(byte[] data, int start, int end, boolean ownsData) {
    this.data = data;
    this.start = start;
    this.end = end;
    this.pos = start;
    this.type = end > start ? data[start] : 0;
    this.ownsData = ownsData;
  }

  /**
   * Reads {@code [position, limit)} of the buffer; copies only when the buffer has no accessible
   * array.
   */
  static MessageReader of(ByteBuffer message) {
    int length = message.remaining();
    MessageReader reader;
    if (message.hasArray()) {
      int from = message.arrayOffset() + message.position();
      reader = new MessageReader(message.array(), from, from + length, false);
    } else {
      byte[] copy = new byte[length];
      message.duplicate().get(copy);
      reader = new MessageReader(copy, 0, length, true);
    }
    if (length == 0) {
      throw reader.violation("empty message", "type");
    }
    return reader;
  }

  /** Consumes and returns the type byte. */
  byte type() {
    pos++;
    return type;
  }

  PgOutputProtocolException violation(String rule, String field) {
    return new PgOutputProtocolException(rule, type, field, pos - start, end - start);
  }

  /**
   * A violation reported at the start of a field of {@code width} bytes that was already consumed.
   */
  PgOutputProtocolException violationBefore(int width, String rule, String field) {
    return new PgOutputProtocolException(rule, type, field, pos - width - start, end - start);
  }

  void requireOutsideStreamBlock(boolean inStreamBlock) {
    if (inStreamBlock) {
      throw violationBefore(1, "message not allowed inside a stream block", "type");
    }
  }

  void requireEnd() {
    if (pos != end) {
      throw violation((end - pos) + " unexpected trailing bytes", "end of message");
    }
  }

  void requireRemaining(long bytes, String field) {
    if (bytes > end - pos) {
      throw violation(
          "message too short: needs at least " + bytes + " more bytes, has " + (end - pos), field);
    }
  }

  private void need(int bytes, String field) {
    if (end - pos < bytes) {
      throw violation("message too short: needs " + bytes + " bytes, has " + (end - pos), field);
    }
  }

  byte int8(String field) {
    need(1, field);
    return data[pos++];
  }

  int uint8(String field) {
    return int8(field) & 0xFF;
  }

  int uint16(String field) {
    need(2, field);
    int v = ((data[pos] & 0xFF) << 8) | (data[pos + 1] & 0xFF);
    pos += 2;
    return v;
  }

  int int32(String field) {
    need(4, field);
    int v =
        ((data[pos] & 0xFF) << 24)
            | ((data[pos + 1] & 0xFF) << 16)
            | ((data[pos + 2] & 0xFF) << 8)
            | (data[pos + 3] & 0xFF);
    pos += 4;
    return v;
  }

  long uint32(String field) {
    return int32(field) & 0xFFFF_FFFFL;
  }

  long int64(String field) {
    need(8, field);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (data[pos + i] & 0xFF);
    }
    pos += 8;
    return v;
  }

  /** A NUL-terminated string, decoded as UTF-8. */
  String cstring(String field) {
    for (int i = pos; i < end; i++) {
      if (data[i] == 0) {
        String s = new String(data, pos, i - pos, StandardCharsets.UTF_8);
        pos = i + 1;
        return s;
      }
    }
    throw violation("string without terminating NUL", field);
  }

  byte[] bytes(int length, String field) {
    need(length, field);
    byte[] copy = Arrays.copyOfRange(data, pos, pos + length);
    pos += length;
    return copy;
  }

  void expectMarker(byte expected, String field) {
    byte actual = int8(field);
    if (actual != expected) {
      throw violationBefore(
          1,
          "expected "
              + PgOutputProtocolException.typeName(expected)
              + " but found "
              + PgOutputProtocolException.typeName(actual),
          field);
    }
  }

  // TupleData: Int16 number of columns | per column: Byte1 kind
  //            'n' (null) | 'u' (unchanged TOAST, no value) | 't' or 'b': Int32 length |
  // Byte[length] value
  // One pass validates and records offsets (from the message start); the tuple then shares the one
  // copy of
  // the whole message (see TupleData#message), which holds its values.
  TupleData tupleData(TupleField field) {
    int count = uint16(field.columnCount);
    requireRemaining(count, field.columns);
    byte[] kinds = new byte[count];
    int[] bounds = new int[2 * count];
    for (int i = 0; i < count; i++) {
      byte kind = int8(field.kind);
      kinds[i] = kind;
      switch (kind) {
        case 'n', 'u' -> {}
        case 't', 'b' -> {
          int length = int32(field.length);
          if (length < 0) {
            throw violationBefore(4, "negative value length " + length, field.length);
          }
          need(length, field.value);
          bounds[2 * i] = pos - start;
          bounds[2 * i + 1] = length;
          pos += length;
        }
        default ->
            throw violationBefore(
                1,
                "unknown tuple column kind " + PgOutputProtocolException.typeName(kind),
                field.kind);
      }
    }
    return new TupleData(keptMessage(), kinds, bounds);
  }

  /**
   * A tuple's place in its message, with the names its errors report written out once: building
   * them per column was a fifth of the capture thread's time.
   */
  enum TupleField {
    INSERT_NEW("insert.new_tuple"),
    UPDATE_OLD("update.old_tuple"),
    UPDATE_NEW("update.new_tuple"),
    DELETE_OLD("delete.old_tuple");

    final String columnCount;
    final String columns;
    final String kind;
    final String length;
    final String value;

    TupleField(String field) {
      columnCount = field + ".column_count";
      columns = field + ".columns";
      kind = field + ".kind";
      length = field + ".length";
      value = field + ".value";
    }
  }

  private byte[] keptMessage() {
    if (kept == null) {
      kept = ownsData ? data : Arrays.copyOfRange(data, start, end);
    }
    return kept;
  }
}
