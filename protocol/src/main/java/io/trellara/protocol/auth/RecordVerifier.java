package io.trellara.protocol.auth;

import io.trellara.protocol.auth.RecordAuthenticationException.Reason;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The receiving side of record authentication: every accepted key by id (several at once, so a key
 * rotates without stopping either side), and whether an unsigned record is accepted ({@code
 * optional}) or refused ({@code required}). A header that is present is always checked: a bad tag,
 * an unknown key id or a malformed header is refused in either mode.
 */
public final class RecordVerifier {
  private final Map<String, AuthKey> keys = new LinkedHashMap<>();
  private final boolean unsignedAccepted;

  public RecordVerifier(List<AuthKey> accepted, boolean unsignedAccepted) {
    for (AuthKey k : accepted) {
      if (keys.put(k.id(), k) != null) {
        throw new IllegalArgumentException("key id '" + k.id() + "' is listed twice");
      }
    }
    this.unsignedAccepted = unsignedAccepted;
  }

  /** The accepted key ids, in the order configured. */
  public Set<String> keyIds() {
    return keys.keySet();
  }

  /**
   * Verifies a record before anything reads its value: {@code header} is the {@value
   * AuthHeader#NAME} header's bytes (null when the record has none), {@code value} the bytes as
   * received. Returns the key id that signed it, or null for an unsigned record {@code optional}
   * accepts; throws {@link RecordAuthenticationException} otherwise.
   */
  public String verify(String topic, int partition, byte[] value, byte[] header) {
    if (header == null) {
      if (unsignedAccepted) {
        return null;
      }
      throw new RecordAuthenticationException(
          Reason.NO_HEADER, null, "the record has no " + AuthHeader.NAME + " header");
    }
    AuthHeader h = AuthHeader.parse(header);
    AuthKey key = keys.get(h.keyId());
    if (key == null) {
      throw new RecordAuthenticationException(
          Reason.UNKNOWN_KEY_ID,
          h.keyId(),
          "key id '" + h.keyId() + "' is not one of the accepted " + keys.keySet());
    }
    if (!RecordMac.verifies(key, topic, partition, value == null ? new byte[0] : value, h)) {
      throw new RecordAuthenticationException(
          Reason.BAD_TAG,
          h.keyId(),
          "the tag is not key '"
              + h.keyId()
              + "''s HMAC-SHA-256 of this record's bytes in this topic and partition");
    }
    return h.keyId();
  }
}
