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

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
