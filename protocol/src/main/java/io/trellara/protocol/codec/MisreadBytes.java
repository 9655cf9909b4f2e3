package io.trellara.protocol.codec;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.validation.Misreading;
import java.io.IOException;

/**
 * The byte misreadings of {@link Misreading} that refuse what docs/protocol.md accepts: a pass over
 * the top-level fields made only while one is switched on (the mutation check), never otherwise.
 */
final class MisreadBytes {
  private MisreadBytes() {}

  /** The reason a misreading refuses {@code bytes}, or null. */
  static String refusal(MessageKind kind, byte[] bytes) {
    try {
      Descriptors.Descriptor d =
          (Descriptors.Descriptor) kind.type().getMethod("getDescriptor").invoke(null);
      CodedInputStream in = CodedInputStream.newInstance(bytes);
      while (!in.isAtEnd()) {
        int tag = in.readTag();
        int number = WireFormat.getTagFieldNumber(tag);
        int type = WireFormat.getTagWireType(tag);
        Descriptors.FieldDescriptor f = d.findFieldByNumber(number);
        if (Misreading.on(Misreading.GROUP_FIELD_MALFORMED)
            && type == WireFormat.WIRETYPE_START_GROUP) {
          return "a group field";
        }
        if (Misreading.on(Misreading.KNOWN_FIELD_WRONG_WIRE_TYPE_MALFORMED)
            && f != null
            && f.getLiteType().getWireType() != type) {
          return "field " + number + " of wire type " + type;
        }
        if (type != WireFormat.WIRETYPE_VARINT) {
          in.skipField(tag);
          continue;
        }
        int start = in.getTotalBytesRead();
        long value = in.readRawVarint64();
        int length = in.getTotalBytesRead() - start;
        if (Misreading.on(Misreading.VARINT_BITS_BEYOND_64_MALFORMED)
            && length == 10
            && (bytes[start + 9] & 0xFF) > 1) {
          return "a varint with bits beyond 64";
        }
        if (Misreading.on(Misreading.NON_MINIMAL_VERSION_REFUSED)
            && number == 1
            && length != CodedOutputStream.computeUInt64SizeNoTag(value)) {
          return "a non-minimal protocol_version";
        }
        if (Misreading.on(Misreading.VARINT_ABOVE_32_BITS_MALFORMED)
            && f != null
            && (f.getType() == Descriptors.FieldDescriptor.Type.UINT32
                || f.getType() == Descriptors.FieldDescriptor.Type.ENUM)
            && (value >>> 32) != 0) {
          return "field " + number + " above 32 bits";
        }
      }
    } catch (InvalidProtocolBufferException e) {
      return null; // the codec's own scan names it
    } catch (IOException | ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
    return null;
  }
}
