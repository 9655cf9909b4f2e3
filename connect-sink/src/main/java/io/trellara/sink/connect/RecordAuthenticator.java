package io.trellara.sink.connect;

import io.trellara.connect.common.auth.AuthDefinitions;
import io.trellara.connect.common.auth.AuthSettings;
import io.trellara.connect.common.auth.RecordAuthentication;
import io.trellara.protocol.auth.AuthHeader;
import io.trellara.protocol.auth.AuthKey;
import io.trellara.protocol.auth.RecordAuthenticationException;
import io.trellara.protocol.auth.RecordVerifier;
import io.trellara.protocol.codec.ReceivedBytes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Authenticates each record before the engine sees it: the {@value AuthHeader#NAME} tag over the
 * bytes as they came (TrellaraConverter hands them over unread as {@link ReceivedBytes},
 * ByteArrayConverter as they are), the record's real topic and its real partition: nothing of the
 * value is parsed before. A refusal is {@code AUTH_FAILED} naming the reason, the topic, partition
 * and offset and the key id, and fails the task: nothing of the record is applied. Used by the
 * task's thread only.
 */
final class RecordAuthenticator {
  private final RecordVerifier verifier;
  private final Consumer<String> verifiedWith;
  private String lastKeyId;

  private RecordAuthenticator(RecordVerifier verifier, Consumer<String> verifiedWith) {
    this.verifier = verifier;
    this.verifiedWith = verifiedWith;
  }

  /**
   * From the sink's settings; {@code verifiedWith} hears each new key id records are signed with.
   */
  static RecordAuthenticator of(AbstractConfig config, Consumer<String> verifiedWith) {
    return of(AuthSettings.of(config, false), verifiedWith);
  }

  static RecordAuthenticator of(AuthSettings s, Consumer<String> verifiedWith) {
    if (!s.on()) {
      return new RecordAuthenticator(null, verifiedWith);
    }
    List<AuthKey> keys = new ArrayList<>();
    try {
      for (Map.Entry<String, String> k : s.keys().entrySet()) {
        keys.add(AuthKey.ofText(k.getKey(), k.getValue()));
      }
    } catch (IllegalArgumentException e) {
      throw new ConfigException(AuthDefinitions.KEYS + ": " + e.getMessage());
    }
    return new RecordAuthenticator(
        new RecordVerifier(keys, s.mode() == RecordAuthentication.OPTIONAL), verifiedWith);
  }

  boolean on() {
    return verifier != null;
  }

  /** Throws {@code AUTH_FAILED} unless {@code r} is authentic (or authentication is off). */
  void check(SinkRecord r) {
    if (verifier == null) {
      return;
    }
    String keyId;
    try {
      keyId = verifier.verify(r.topic(), r.kafkaPartition(), bytes(r), header(r));
    } catch (RecordAuthenticationException e) {
      throw refused(r, e);
    }
    if (keyId != null && !keyId.equals(lastKeyId)) {
      lastKeyId = keyId;
      verifiedWith.accept(keyId);
    }
  }

  private static byte[] bytes(SinkRecord r) {
    Object v = r.value();
    if (v instanceof ReceivedBytes m) {
      return m.bytes();
    }
    if (v instanceof byte[] b) {
      return b;
    }
    // a value not as received (a transform's): nothing to verify the tag over
    throw refused(
        r,
        new RecordAuthenticationException(
            RecordAuthenticationException.Reason.BAD_TAG,
            null,
            "the value is not the bytes received ("
                + (v == null ? "null" : v.getClass().getSimpleName())
                + ")"));
  }

  /**
   * The header's bytes: TrellaraConverter keeps them with the bytes; with ByteArrayConverter they
   * come through Connect's header converter, which must be ByteArrayConverter too to keep them
   * binary.
   */
  private static byte[] header(SinkRecord r) {
    if (r.value() instanceof ReceivedBytes m) {
      return m.authHeader();
    }
    Header h = r.headers().lastWithName(AuthHeader.NAME);
    if (h == null || h.value() == null) {
      return null;
    }
    if (h.value() instanceof byte[] b) {
      return b;
    }
    throw refused(
        r,
        new RecordAuthenticationException(
            RecordAuthenticationException.Reason.MALFORMED_HEADER,
            null,
            "the header reached the task as "
                + h.value().getClass().getSimpleName()
                + ", not bytes: with value.converter=ByteArrayConverter set header.converter="
                + SinkConfigRules.BYTE_ARRAY_CONVERTER));
  }

  private static DataException refused(SinkRecord r, RecordAuthenticationException e) {
    return new DataException(
        RecordAuthenticationException.ERROR
            + " (reason "
            + e.reason()
            + ") at header "
            + AuthHeader.NAME
            + " [topic "
            + r.topic()
            + ", partition "
            + r.kafkaPartition()
            + ", offset "
            + r.kafkaOffset()
            + ", key id "
            + (e.keyId() == null ? "none" : e.keyId())
            + "]: "
            + e.detail()
            + ". Nothing of this record is applied; the record claims to be "
            + RecordInputs.claimed(r),
        e);
  }
}
