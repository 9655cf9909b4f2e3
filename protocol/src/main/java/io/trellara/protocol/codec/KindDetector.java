package io.trellara.protocol.codec;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.trellara.protocol.MessageKind;
import java.io.IOException;
import java.util.Optional;

/**
 * Tells a message's kind from its top-level field layout when no carrier names it (a bare file, a
 * record without the {@value MessageKind#HEADER} header). The answer is a hint: decoding as that
 * kind still verifies and validates everything. Rules, in order (docs/protocol.md, "Telling the
 * kind from the bytes"):
 *
 * <ul>
 *   <li>checksum at tag 12 (varint) and none at tag 15: envelope;
 *   <li>checksum at tag 15 and any of tags 11-14 length-delimited (changes, DDL events, schema
 *       versions, begin_lsn): chunk;
 *   <li>checksum at tag 15 and tag 9 or 10 length-delimited (partitions, affected tables) or any of
 *       tags 11-13 a varint (boundary_mode, ddl_event_count, partition_count): manifest;
 *   <li>checksum at tag 15 otherwise: commit marker. A manifest read so has no entry and no
 *       boundary mode, and a chunk read so has no event: either reading refuses it.
 * </ul>
 */
public final class KindDetector {
  private KindDetector() {}

  public static Optional<MessageKind> detect(byte[] bytes) {
    boolean tag12Varint = false;
    boolean tag15Varint = false;
    boolean chunkFields = false;
    boolean manifestFields = false;
    try {
      CodedInputStream in = CodedInputStream.newInstance(bytes);
      while (!in.isAtEnd()) {
        int tag = in.readTag();
        int field = WireFormat.getTagFieldNumber(tag);
        int type = WireFormat.getTagWireType(tag);
        boolean len = type == WireFormat.WIRETYPE_LENGTH_DELIMITED;
        boolean varint = type == WireFormat.WIRETYPE_VARINT;
        tag12Varint |= field == 12 && varint;
        tag15Varint |= field == 15 && varint;
        chunkFields |= field >= 11 && field <= 14 && len;
        manifestFields |=
            ((field == 9 || field == 10) && len) || (field >= 11 && field <= 13 && varint);
        if (!in.skipField(tag)) {
          return Optional.empty();
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    if (!tag15Varint) {
      return tag12Varint ? Optional.of(MessageKind.ENVELOPE) : Optional.empty();
    }
    if (chunkFields) {
      return Optional.of(MessageKind.CHUNK);
    }
    return Optional.of(manifestFields ? MessageKind.MANIFEST : MessageKind.COMMIT_MARKER);
  }
}
