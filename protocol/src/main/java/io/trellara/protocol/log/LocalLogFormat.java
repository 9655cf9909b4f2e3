package io.trellara.protocol.log;

import java.nio.charset.StandardCharsets;

/**
 * The brokerless local-log frame: {@code magic[4] | body length u32 | body | CRC32(body) u32},
 * integers big-endian (network order, like every multi-byte integer of the protocol).
 *
 * <ul>
 *   <li>{@code TLG2} (written): body = one message-kind byte ({@link
 *       io.trellara.protocol.MessageKind#code()}) followed by the message's protobuf bytes, so a
 *       log can hold envelopes, chunks, manifests and markers.
 *   <li>{@code TLG2} with kind byte {@link #SPILL_CODE}: a private spill record (the source's spill
 *       of a large in-flight transaction: one raw pgoutput message). Never published, never a
 *       protocol message.
 *   <li>{@code TLG1} (read only): body = the protobuf bytes of a TransactionEnvelope, nothing else;
 *       the first format logged envelopes only.
 * </ul>
 */
public final class LocalLogFormat {
  public static final byte[] MAGIC_TLG1 = "TLG1".getBytes(StandardCharsets.US_ASCII);
  public static final byte[] MAGIC_TLG2 = "TLG2".getBytes(StandardCharsets.US_ASCII);
  public static final int HEADER_BYTES = 8;
  public static final int TRAILER_BYTES = 4;

  /** A body length above this is corruption, checked before anything is allocated. */
  public static final int MAX_BODY_BYTES = 128 * 1024 * 1024;

  /** Kind byte of private spill records (see the class comment). */
  public static final byte SPILL_CODE = (byte) 0x50;

  private LocalLogFormat() {}
}
