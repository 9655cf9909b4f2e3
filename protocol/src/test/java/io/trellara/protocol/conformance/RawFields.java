package io.trellara.protocol.conformance;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import io.trellara.protocol.codec.Checksums;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A message's top-level fields as raw byte ranges, for vectors whose bytes no protobuf writer
 * produces: fields out of order, a non-minimal varint, the checksum field elsewhere or in another
 * shape.
 */
final class RawFields {
  /** One top-level field: its number and its bytes (tag included). */
  record Field(int number, byte[] bytes) {}

  private RawFields() {}

  static List<Field> split(byte[] message) {
    List<Field> fields = new ArrayList<>();
    CodedInputStream in = CodedInputStream.newInstance(message);
    try {
      while (!in.isAtEnd()) {
        int start = in.getTotalBytesRead();
        int tag = in.readTag();
        in.skipField(tag);
        fields.add(
            new Field(tag >>> 3, Arrays.copyOfRange(message, start, in.getTotalBytesRead())));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return fields;
  }

  static byte[] join(List<Field> fields) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    fields.forEach(f -> out.writeBytes(f.bytes()));
    return out.toByteArray();
  }

  /** The fields without {@code number}. */
  static List<Field> without(List<Field> fields, int number) {
    return fields.stream().filter(f -> f.number() != number).toList();
  }

  /**
   * {@code body} followed by the checksum field {@code tag} = xxh3_64(body): what a Trellara writer
   * does.
   */
  static byte[] checksummed(byte[] body, int tag) {
    return concat(body, varintField(tag, Checksums.xxh3(body)));
  }

  static byte[] varintField(int tag, long value) {
    byte[] out = new byte[CodedOutputStream.computeUInt64Size(tag, value)];
    try {
      CodedOutputStream cos = CodedOutputStream.newInstance(out);
      cos.writeUInt64(tag, value);
      cos.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The bytes of a varint of {@code value}, shortest form. */
  static byte[] varint(long value) {
    byte[] out = new byte[CodedOutputStream.computeUInt64SizeNoTag(value)];
    try {
      CodedOutputStream cos = CodedOutputStream.newInstance(out);
      cos.writeUInt64NoTag(value);
      cos.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** A length-delimited field {@code number} holding {@code payload}. */
  static Field lengthDelimited(int number, byte[] payload) {
    return new Field(number, concat(varint(number << 3 | 2), varint(payload.length), payload));
  }

  /** What a length-delimited field holds, without its tag and length. */
  static byte[] payload(Field f) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(f.bytes());
      in.readTag();
      return in.readByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@code message} with the nested message at {@code path} (pairs of field number and occurrence,
   * outermost first) rewritten: {@code edit} takes its fields and returns the new ones; every
   * enclosing length follows.
   */
  static byte[] editNested(
      byte[] message, int[] path, java.util.function.UnaryOperator<List<Field>> edit) {
    List<Field> fields = new ArrayList<>(split(message));
    if (path.length == 0) {
      return join(edit.apply(fields));
    }
    int seen = 0;
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).number() == path[0] && seen++ == path[1]) {
        byte[] inner =
            editNested(payload(fields.get(i)), Arrays.copyOfRange(path, 2, path.length), edit);
        fields.set(i, lengthDelimited(path[0], inner));
        return join(fields);
      }
    }
    throw new IllegalArgumentException("no field " + path[0] + " #" + path[1]);
  }

  /** {@code fields} with every field {@code number} replaced by {@code replacement}'s bytes. */
  static List<Field> replace(List<Field> fields, int number, byte[] replacement) {
    List<Field> out = new ArrayList<>();
    boolean done = false;
    for (Field f : fields) {
      if (f.number() != number) {
        out.add(f);
      } else if (!done) {
        out.add(new Field(number, replacement));
        done = true;
      }
    }
    return out;
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
