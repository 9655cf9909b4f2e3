package io.trellara.protocol.auth;

/**
 * A record that does not prove it was written by a holder of an accepted key: {@code AUTH_FAILED},
 * with the reason and the key id its header names (null when it names none). The caller adds where
 * the record was (topic, partition, offset).
 */
public class RecordAuthenticationException extends RuntimeException {
  /** Why a record failed authentication. */
  public enum Reason {
    /** No {@value AuthHeader#NAME} header, and authentication is required. */
    NO_HEADER,
    /** The header is not version 1's layout. */
    MALFORMED_HEADER,
    /** The header names a key id this side does not accept. */
    UNKNOWN_KEY_ID,
    /** The tag is not the HMAC of the record under the named key: forged, altered or moved. */
    BAD_TAG
  }

  public static final String ERROR = "AUTH_FAILED";

  private final Reason reason;
  private final String keyId;

  public RecordAuthenticationException(Reason reason, String keyId, String detail) {
    super(ERROR + " (" + reason + "): " + detail);
    this.reason = reason;
    this.keyId = keyId;
  }

  public Reason reason() {
    return reason;
  }

  /** The key id the header names, or null. */
  public String keyId() {
    return keyId;
  }

  /** The detail without the error name and reason. */
  public String detail() {
    String m = getMessage();
    return m.substring(m.indexOf("): ") + 3);
  }
}
