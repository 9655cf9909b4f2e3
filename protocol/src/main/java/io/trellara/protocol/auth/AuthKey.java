package io.trellara.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.spec.SecretKeySpec;

/**
 * One record authentication key: its id (what the header names) and its secret. The secret is never
 * printed ({@link #toString()} names the id only).
 */
public final class AuthKey {
  /** The longest key id: it travels in every record's header. */
  public static final int MAX_ID_LENGTH = 64;

  /** The shortest secret accepted: HMAC-SHA-256 keys below 128 bits are guessable offline. */
  public static final int MIN_SECRET_BYTES = 16;

  private final String id;
  private final byte[] idBytes;
  private final SecretKeySpec secret;
  private final ThreadLocal<RecordMac.State> states = ThreadLocal.withInitial(this::newState);

  public AuthKey(String id, byte[] secret) {
    Objects.requireNonNull(secret, "secret");
    this.id = checkedId(id);
    this.idBytes = id.getBytes(StandardCharsets.US_ASCII);
    if (secret.length < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException(
          "the secret of key id '"
              + id
              + "' has "
              + secret.length
              + " bytes, at least "
              + MIN_SECRET_BYTES
              + " are required");
    }
    this.secret = new SecretKeySpec(Arrays.copyOf(secret, secret.length), RecordMac.ALGORITHM);
  }

  /** A key whose secret is the UTF-8 bytes of {@code secret} (what configuration holds). */
  public static AuthKey ofText(String id, String secret) {
    return new AuthKey(id, secret.getBytes(StandardCharsets.UTF_8));
  }

  public String id() {
    return id;
  }

  byte[] idBytes() {
    return idBytes;
  }

  SecretKeySpec secret() {
    return secret;
  }

  /** This thread's Mac for this key. */
  RecordMac.State state() {
    return states.get();
  }

  private RecordMac.State newState() {
    return new RecordMac.State(this);
  }

  static boolean idChar(int b) {
    return (b >= 'a' && b <= 'z')
        || (b >= 'A' && b <= 'Z')
        || (b >= '0' && b <= '9')
        || b == '.'
        || b == '_'
        || b == '-';
  }

  private static String checkedId(String id) {
    if (id == null || id.isEmpty() || id.length() > MAX_ID_LENGTH) {
      throw new IllegalArgumentException(
          "a key id has 1 to "
              + MAX_ID_LENGTH
              + " characters, got "
              + (id == null ? 0 : id.length()));
    }
    for (int i = 0; i < id.length(); i++) {
      if (!idChar(id.charAt(i))) {
        throw new IllegalArgumentException(
            "a key id holds only letters, digits, '.', '_' and '-': character "
                + (i + 1)
                + " is not one");
      }
    }
    return id;
  }

  @Override
  public String toString() {
    return "key " + id;
  }
}
