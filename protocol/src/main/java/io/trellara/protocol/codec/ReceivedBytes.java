package io.trellara.protocol.codec;

import io.trellara.protocol.MessageKind;
import java.util.Objects;

/**
 * A record's value as it came off Kafka, not yet read: the bytes, and the two Trellara headers as
 * they came (null when the record had none). This is what TrellaraConverter hands a task inbound.
 *
 * <p>Nothing here has been looked at, on purpose. A record is authenticated over its bytes, its
 * topic and its partition (docs/protocol.md, "Record authentication"), and a converter never learns
 * the partition: so the converter cannot authenticate, and must not parse what it cannot
 * authenticate. The sink task checks {@link #authHeader()} first, and only then reads the kind and
 * decodes through the one codec ({@link #decode()}), which verifies the checksum, parses and
 * validates.
 *
 * @param kindHeader the {@value MessageKind#HEADER} header's bytes
 * @param authHeader the {@code trellara-auth} header's bytes
 */
public record ReceivedBytes(byte[] bytes, byte[] kindHeader, byte[] authHeader) {
  public ReceivedBytes {
    Objects.requireNonNull(bytes, "bytes");
  }

  /**
   * The kind the header names, or, without one, the kind the field layout shows ({@link
   * MessageKind#ENVELOPE} when it shows none: the codec then refuses the bytes by its rules).
   *
   * @throws IllegalArgumentException when the header names no kind
   */
  public MessageKind kind() {
    if (kindHeader != null) {
      return MessageKind.fromWireBytes(kindHeader);
    }
    return KindDetector.detect(bytes).orElse(MessageKind.ENVELOPE);
  }

  /** Verifies, parses and validates the bytes as their {@link #kind()}, keeping them. */
  public ReceivedMessage decode() {
    return ReceivedMessage.decode(kind(), bytes);
  }
}
