package io.trellara.protocol.auth;

import io.trellara.protocol.codec.EncodedMessage;
import java.util.Objects;

/**
 * An encoded message with its {@value AuthHeader#NAME} header's bytes, as the source task hands it
 * to the converter: the converter writes the header's bytes as they are (past Connect's header
 * converter, which would re-encode binary values) and the message's bytes unchanged, so what is on
 * Kafka is exactly what was signed.
 */
public record SignedMessage(EncodedMessage message, byte[] authHeader) {
  public SignedMessage {
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(authHeader, "authHeader");
  }
}
