package io.trellara.protocol.codec;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.trellara.protocol.MessageKind;
import java.io.IOException;
import java.util.Optional;

/**
 * Tells a message's kind from its top-level field layout when no carrier names it (a bare file, a record
 * without the {@value MessageKind#HEADER} header). The answer is a hint: decoding as that kind still
 * verifies and validates everything.
 *
 * <ul>
 *   <li>checksum at tag 12 (varint): envelope;
 *   <li>checksum at tag 15 and partitions at tag 9 (length-delimited): manifest;
 *   <li>checksum at tag 15 and events at tags 11/12 (length-delimited): chunk;
 *   <li>checksum at tag 15 otherwise: commit marker.
 * </ul>
 */
public final class KindDetector {
    private KindDetector() {
    }

    public static Optional<MessageKind> detect(byte[] bytes) {
        boolean tag12Varint = false;
        boolean tag15Varint = false;
        boolean tag9Len = false;
        boolean eventsLen = false;
        try {
            CodedInputStream in = CodedInputStream.newInstance(bytes);
            while (!in.isAtEnd()) {
                int tag = in.readTag();
                int field = WireFormat.getTagFieldNumber(tag);
                int type = WireFormat.getTagWireType(tag);
                boolean len = type == WireFormat.WIRETYPE_LENGTH_DELIMITED;
                tag12Varint |= field == 12 && type == WireFormat.WIRETYPE_VARINT;
                tag15Varint |= field == 15 && type == WireFormat.WIRETYPE_VARINT;
                tag9Len |= field == 9 && len;
                eventsLen |= (field == 11 || field == 12) && len;
                if (!in.skipField(tag)) {
                    return Optional.empty();
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        if (tag12Varint && !tag15Varint) {
            return Optional.of(MessageKind.ENVELOPE);
        }
        if (!tag15Varint) {
            return Optional.empty();
        }
        if (tag9Len) {
            return Optional.of(MessageKind.MANIFEST);
        }
        return Optional.of(eventsLen ? MessageKind.CHUNK : MessageKind.COMMIT_MARKER);
    }
}
