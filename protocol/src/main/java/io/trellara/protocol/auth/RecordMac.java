package io.trellara.protocol.auth;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.ShortBufferException;

/**
 * HMAC-SHA-256 over a record as it travels: what the tag in {@link AuthHeader} covers. The MAC
 * input (docs/protocol.md, "Record authentication") is
 *
 * <pre>
 *   "trellara-record-auth-v1" 0x00        the domain label, 24 bytes: a tag made for anything else
 *                                         never verifies here
 *   u16 big-endian n, n bytes             the topic, UTF-8
 *   u32 big-endian                        the partition
 *   the record value's bytes              exactly as on Kafka, to the end
 * </pre>
 *
 * The topic and partition are in it so a signed record copied to another topic or partition fails;
 * the value bytes last, so no length is needed and nothing is copied. Each thread keeps one {@link
 * Mac} per key (initialised once) and reuses it: the hot path allocates only the header it returns.
 */
public final class RecordMac {
  public static final String ALGORITHM = "HmacSHA256";
  public static final int TAG_BYTES = 32;
  static final byte[] LABEL = "trellara-record-auth-v1\0".getBytes(StandardCharsets.US_ASCII);

  private RecordMac() {}

  /** One thread's Mac for one key, with the last place's MAC input prefix and a tag buffer. */
  static final class State {
    final Mac mac;
    final byte[] tag = new byte[TAG_BYTES];
    private String topic;
    private int partition;
    private byte[] prefix;

    State(AuthKey key) {
      try {
        mac = Mac.getInstance(ALGORITHM);
        mac.init(key.secret());
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(ALGORITHM + " is not available in this JVM", e);
      }
    }

    /** Feeds the MAC input for {@code value} in {@code topic}/{@code partition}. */
    void input(String topic, int partition, byte[] value) {
      if (prefix == null || partition != this.partition || !topic.equals(this.topic)) {
        prefix = prefix(topic, partition); // a task writes few places: built once each
        this.topic = topic;
        this.partition = partition;
      }
      mac.update(prefix);
      mac.update(value);
    }
  }

  /** The MAC input before the value: label, topic length and topic, partition. */
  static byte[] prefix(String topic, int partition) {
    byte[] t = topic.getBytes(StandardCharsets.UTF_8);
    if (t.length > 0xFFFF) {
      throw new IllegalArgumentException("a topic name of " + t.length + " bytes");
    }
    return ByteBuffer.allocate(LABEL.length + 2 + t.length + 4)
        .put(LABEL)
        .putShort((short) t.length)
        .put(t)
        .putInt(partition)
        .array();
  }

  /** The {@value AuthHeader#NAME} header's bytes for {@code value} signed with {@code key}. */
  public static byte[] sign(AuthKey key, String topic, int partition, byte[] value) {
    byte[] header = AuthHeader.blank(key.idBytes());
    State s = key.state();
    s.input(topic, partition, value);
    try {
      s.mac.doFinal(header, header.length - TAG_BYTES);
    } catch (ShortBufferException e) {
      throw new IllegalStateException(e); // the header has room for the tag by construction
    }
    return header;
  }

  /**
   * Whether the tag at {@code tagOffset} in {@code header} is {@code key}'s HMAC of the record (in
   * constant time).
   */
  static boolean verifies(
      AuthKey key, String topic, int partition, byte[] value, byte[] header, int tagOffset) {
    State s = key.state();
    s.input(topic, partition, value);
    try {
      s.mac.doFinal(s.tag, 0);
    } catch (ShortBufferException e) {
      throw new IllegalStateException(e);
    }
    int diff = 0;
    for (int i = 0; i < TAG_BYTES; i++) {
      diff |= s.tag[i] ^ header[tagOffset + i];
    }
    return diff == 0;
  }
}
