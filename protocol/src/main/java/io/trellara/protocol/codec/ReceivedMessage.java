package io.trellara.protocol.codec;

import com.google.protobuf.Message;
import io.trellara.protocol.MessageKind;
import java.util.Objects;

/**
 * A message the one codec decoded (checksum verified over the bytes, parsed, validated), with the
 * bytes it came in.
 *
 * <p>The bytes are kept because they, not a re-encoding, are what the checksum covers: a writer may
 * order fields differently, use wider varints or carry unknown fields, and a re-encoding of such a
 * message hashes differently. Whoever stores or forwards it (a sink staging a chunk, a converter
 * writing it on) uses these bytes.
 */
public record ReceivedMessage(MessageKind kind, Message message, byte[] bytes) {
  public ReceivedMessage {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(bytes, "bytes");
  }

  /** Verifies, parses and validates {@code bytes} as a {@code kind}, keeping them. */
  public static ReceivedMessage decode(MessageKind kind, byte[] bytes) {
    return new ReceivedMessage(kind, TrellaraCodec.decode(kind, bytes), bytes);
  }
}
