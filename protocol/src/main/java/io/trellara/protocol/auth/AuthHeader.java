package io.trellara.protocol.auth;

import java.nio.charset.StandardCharsets;

/**
 * The {@value #NAME} Kafka header: which key signed a record and the tag. Its layout
 * (docs/protocol.md, "Record authentication"): one version byte ({@value #VERSION}), one byte
 * holding the key id's length n (1 to {@value AuthKey#MAX_ID_LENGTH}), the n bytes of the key id
 * (ASCII: letters, digits, {@code . _ -}), then the {@value RecordMac#TAG_BYTES}-byte HMAC-SHA-256
 * tag. Nothing else: any other length is malformed.
 */
public record AuthHeader(String keyId, int tagOffset, byte[] bytes) {
  public static final String NAME = "trellara-auth";
  public static final byte VERSION = 1;

  /** The header's bytes for {@code keyId}, with room for the tag at {@link #tagOffset()}. */
  static byte[] blank(byte[] keyIdBytes) {
    byte[] out = new byte[2 + keyIdBytes.length + RecordMac.TAG_BYTES];
    out[0] = VERSION;
    out[1] = (byte) keyIdBytes.length;
    System.arraycopy(keyIdBytes, 0, out, 2, keyIdBytes.length);
    return out;
  }

  /**
   * Reads a header's bytes; throws {@link RecordAuthenticationException} (MALFORMED_HEADER) on any
   * other layout. The key id is not trusted by being read: it only says which key to try.
   */
  public static AuthHeader parse(byte[] bytes) {
    int n = keyIdLength(bytes);
    return new AuthHeader(new String(bytes, 2, n, StandardCharsets.US_ASCII), 2 + n, bytes);
  }

  /**
   * Checks a header's layout and returns its key id's length (the id is at offset 2, the tag after
   * it), without allocating: the verifier's hot path. Throws as {@link #parse} does.
   */
  static int keyIdLength(byte[] bytes) {
    if (bytes == null || bytes.length < 2) {
      throw malformed("shorter than a version byte and a key id length");
    }
    if (bytes[0] != VERSION) {
      throw malformed("version " + (bytes[0] & 0xFF) + ", only " + VERSION + " is defined");
    }
    int n = bytes[1] & 0xFF;
    if (n == 0 || n > AuthKey.MAX_ID_LENGTH) {
      throw malformed("key id length " + n);
    }
    if (bytes.length != 2 + n + RecordMac.TAG_BYTES) {
      throw malformed(
          bytes.length
              + " bytes, expected "
              + (2 + n + RecordMac.TAG_BYTES)
              + " for a key id of "
              + n);
    }
    for (int i = 2; i < 2 + n; i++) {
      if (!AuthKey.idChar(bytes[i])) {
        throw malformed(
            "key id byte " + (bytes[i] & 0xFF) + " is not a letter, digit, '.', '_' or '-'");
      }
    }
    return n;
  }

  private static RecordAuthenticationException malformed(String why) {
    return new RecordAuthenticationException(
        RecordAuthenticationException.Reason.MALFORMED_HEADER, null, why);
  }
}
