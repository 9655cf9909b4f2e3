package io.trellara.protocol.log;

import java.nio.charset.StandardCharsets;

/**
 * The brokerless local-log frame: {@code magic[4] | body length u32 | body | CRC32(body) u32}, integers
 * big-endian (network order, like every multi-byte integer of the protocol).
 *
 * <ul>
 *   <li>{@code TLG2} (written): body = one message-kind byte ({@link io.trellara.protocol.MessageKind#code()})
 *       followed by the message's protobuf bytes, so a log can hold envelopes, chunks, manifests and markers.
 *   <li>{@code TLG1} (read only): body = the protobuf bytes of a TransactionEnvelope, nothing else; the first
 *       format logged envelopes only.
 * </ul>
 */
public final class LocalLogFormat {
    public static final byte[] MAGIC_TLG1 = "TLG1".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] MAGIC_TLG2 = "TLG2".getBytes(StandardCharsets.US_ASCII);
    public static final int HEADER_BYTES = 8;
    public static final int TRAILER_BYTES = 4;
    /** A body length above this is corruption, checked before anything is allocated. */
    public static final int MAX_BODY_BYTES = 128 * 1024 * 1024;

    private LocalLogFormat() {
    }
}
