package io.trellara.source.connect;

import com.google.protobuf.Message;
import io.trellara.connect.common.auth.AuthDefinitions;
import io.trellara.connect.common.auth.AuthSettings;
import io.trellara.protocol.auth.AuthHeader;
import io.trellara.protocol.auth.AuthKey;
import io.trellara.protocol.auth.RecordMac;
import io.trellara.protocol.auth.SignedMessage;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import org.apache.kafka.common.config.ConfigException;

/**
 * Signs each record in the task, where the three things the tag covers are known: the value's
 * bytes, the topic and the partition (the task chooses every record's partition explicitly). The
 * converter sees only the topic and the headers, so it cannot sign; instead an envelope is encoded
 * here through the one codec (once, on the same poll thread the converter would have used) and
 * handed to the converter as an {@link EncodedMessage}, whose bytes it verifies and writes
 * unchanged: the bytes signed are the bytes on Kafka. Chunks, manifests and markers are already
 * encoded by the planner.
 */
final class RecordSigning {
  private final AuthKey key;

  private RecordSigning(AuthKey key) {
    this.key = key;
  }

  /** Off: records are written unsigned and values are left to the converter. */
  static final RecordSigning OFF = new RecordSigning(null);

  static RecordSigning of(TrellaraSourceConfig config) {
    AuthSettings s = AuthSettings.of(config, true);
    if (!s.on()) {
      return OFF;
    }
    try {
      return new RecordSigning(AuthKey.ofText(s.signingKeyId(), s.keys().get(s.signingKeyId())));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(AuthDefinitions.KEYS + ": " + e.getMessage());
    }
  }

  /** The key id records are signed with, or empty when off. */
  String keyId() {
    return key == null ? "" : key.id();
  }

  /**
   * The value to hand the converter: when signing, a {@link SignedMessage} whose {@value
   * AuthHeader#NAME} header the converter writes as raw bytes (Connect's header converter would
   * re-encode a binary value).
   */
  Object sign(String topic, int partition, Object value) {
    if (key == null) {
      return value;
    }
    EncodedMessage encoded =
        value instanceof EncodedMessage em ? em : TrellaraCodec.encode((Message) value);
    return new SignedMessage(encoded, RecordMac.sign(key, topic, partition, encoded.bytes()));
  }
}
