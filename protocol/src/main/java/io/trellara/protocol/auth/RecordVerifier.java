package io.trellara.protocol.auth;

import io.trellara.protocol.auth.RecordAuthenticationException.Reason;
import java.util.Arrays;
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
  private final AuthKey[] byId; // the same keys, matched by the header's id bytes: no allocation
  private final boolean unsignedAccepted;

  public RecordVerifier(List<AuthKey> accepted, boolean unsignedAccepted) {
    for (AuthKey k : accepted) {
      if (keys.put(k.id(), k) != null) {
        throw new IllegalArgumentException("key id '" + k.id() + "' is listed twice");
      }
    }
    this.byId = keys.values().toArray(AuthKey[]::new);
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
    int n = AuthHeader.keyIdLength(header);
    AuthKey key = key(header, n);
    if (key == null) {
      String id = AuthHeader.parse(header).keyId();
      throw new RecordAuthenticationException(
          Reason.UNKNOWN_KEY_ID,
          id,
          "key id '" + id + "' is not one of the accepted " + keys.keySet());
    }
    if (!RecordMac.verifies(
        key, topic, partition, value == null ? new byte[0] : value, header, 2 + n)) {
      throw new RecordAuthenticationException(
          Reason.BAD_TAG,
          key.id(),
          "the tag is not key '"
              + key.id()
              + "''s HMAC-SHA-256 of this record's bytes in this topic and partition");
    }
    return key.id();
  }

  /** The accepted key whose id is the header's {@code n} id bytes, or null. */
  private AuthKey key(byte[] header, int n) {
    for (AuthKey k : byId) {
      byte[] id = k.idBytes();
      if (id.length == n && Arrays.equals(id, 0, n, header, 2, 2 + n)) {
        return k;
      }
    }
    return null;
  }
}
