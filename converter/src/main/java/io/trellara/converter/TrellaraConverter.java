package io.trellara.converter;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.auth.AuthHeader;
import io.trellara.protocol.auth.SignedMessage;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.codec.KindDetector;
import io.trellara.protocol.codec.ReceivedBytes;
import io.trellara.protocol.codec.ReceivedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.validation.ProtocolViolationException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;

/**
 * Carries exactly the checksummed protobuf bytes of Trellara messages. Outbound it validates before
 * it writes (a {@link Message} is encoded through the one codec; bytes are verified and passed
 * through unchanged). Any violation is a {@link DataException} naming the rule, the field and the
 * event key.
 *
 * <p>Inbound, in protobuf mode, it hands the value over unread, as {@link ReceivedBytes} with the
 * kind and {@value AuthHeader#NAME} headers as they came: a record is authenticated over its bytes,
 * topic and partition, a converter never learns the partition, and nothing is parsed before it is
 * authenticated. The sink task authenticates it, then verifies the checksum, parses and validates
 * it through the one codec ({@link ReceivedBytes#decode()}). In json mode (for people reading a
 * topic) it verifies and renders.
 *
 * <p>The message kind comes from the {@value MessageKind#HEADER} header, which the converter also
 * writes; without it the kind is detected from the field layout. Values carry no Connect schema:
 * they are protobuf messages, and the schema of record is {@code trellara/v1/envelope.proto}.
 */
public class TrellaraConverter implements Converter {
  private boolean json;

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    json = new TrellaraConverterConfig(configs).json();
  }

  @Override
  public ConfigDef config() {
    return TrellaraConverterConfig.CONFIG_DEF;
  }

  @Override
  public byte[] fromConnectData(String topic, Schema schema, Object value) {
    return fromConnectData(topic, null, schema, value);
  }

  @Override
  public byte[] fromConnectData(String topic, Headers headers, Schema schema, Object value) {
    if (value == null) {
      return null;
    }
    try {
      Message message;
      byte[] bytes;
      if (value instanceof Message m) {
        var encoded = TrellaraCodec.encode(m);
        message = m;
        bytes = encoded.bytes();
      } else if (value instanceof EncodedMessage em) {
        // the codec's own output (validated when it was encoded): verify the checksum over the
        // bytes
        // instead of re-validating — a chunk listed in a manifest must leave byte for byte as
        // planned
        TrellaraCodec.verifyChecksum(em.kind(), em.bytes());
        addKindHeader(headers, em.kind());
        return json
            ? render(TrellaraCodec.decode(em.kind(), em.bytes())).getBytes(StandardCharsets.UTF_8)
            : em.bytes();
      } else if (value instanceof SignedMessage s) {
        // signed by the source task (it knows the partition): the header's bytes are written as
        // they are, next to the bytes they sign
        EncodedMessage em = s.message();
        TrellaraCodec.verifyChecksum(em.kind(), em.bytes());
        if (json || headers == null) {
          throw new DataException(
              "topic " + topic + ": a signed record is written as protobuf bytes with its headers");
        }
        addKindHeader(headers, em.kind());
        headers.remove(AuthHeader.NAME).add(AuthHeader.NAME, s.authHeader());
        return em.bytes();
      } else if (value instanceof ReceivedBytes r) {
        // what this converter read, unread still: verified now, written on as the bytes it came in
        MessageKind kind = kindOf(r, topic);
        TrellaraCodec.verifyChecksum(kind, r.bytes());
        addKindHeader(headers, kind);
        return json
            ? render(TrellaraCodec.decode(kind, r.bytes())).getBytes(StandardCharsets.UTF_8)
            : r.bytes();
      } else if (value instanceof ReceivedMessage r) {
        // what this converter read (verified then): written on as the bytes it came in
        TrellaraCodec.verifyChecksum(r.kind(), r.bytes());
        addKindHeader(headers, r.kind());
        return json ? render(r.message()).getBytes(StandardCharsets.UTF_8) : r.bytes();
      } else if (value instanceof byte[] b) {
        message = TrellaraCodec.decode(kindOf(headers, b, topic), b);
        bytes = b;
      } else {
        throw new DataException(
            "topic "
                + topic
                + ": TrellaraConverter writes Trellara protobuf messages,"
                + " the codec's encoded messages or their bytes, not "
                + value.getClass().getName());
      }
      addKindHeader(headers, MessageKind.of(message));
      return json ? render(message).getBytes(StandardCharsets.UTF_8) : bytes;
    } catch (ProtocolViolationException e) {
      throw rejected(topic, e);
    }
  }

  private static void addKindHeader(Headers headers, MessageKind kind) {
    if (headers != null && headers.lastHeader(MessageKind.HEADER) == null) {
      headers.add(MessageKind.HEADER, kind.wireName().getBytes(StandardCharsets.UTF_8));
    }
  }

  @Override
  public SchemaAndValue toConnectData(String topic, byte[] value) {
    return toConnectData(topic, null, value);
  }

  @Override
  public SchemaAndValue toConnectData(String topic, Headers headers, byte[] value) {
    if (value == null) {
      return SchemaAndValue.NULL;
    }
    if (!json) { // unread: the task authenticates it before anything parses it
      return new SchemaAndValue(
          null, new ReceivedBytes(value, kindHeader(headers), authHeader(headers)));
    }
    try {
      return new SchemaAndValue(
          null, render(TrellaraCodec.decode(kindOf(headers, value, topic), value)));
    } catch (ProtocolViolationException e) {
      throw rejected(topic, e);
    }
  }

  private static byte[] kindHeader(Headers headers) {
    Header h = headers == null ? null : headers.lastHeader(MessageKind.HEADER);
    return h == null ? null : h.value(); // none, or an empty one: the kind is detected
  }

  private static byte[] authHeader(Headers headers) {
    Header h = headers == null ? null : headers.lastHeader(AuthHeader.NAME);
    if (h == null) {
      return null;
    }
    return h.value() == null ? new byte[0] : h.value(); // an empty one is malformed, not absent
  }

  private static MessageKind kindOf(ReceivedBytes r, String topic) {
    try {
      return r.kind();
    } catch (IllegalArgumentException e) {
      throw new DataException(
          "topic " + topic + ": header " + MessageKind.HEADER + ": " + e.getMessage());
    }
  }

  private static MessageKind kindOf(Headers headers, byte[] bytes, String topic) {
    Header h = headers == null ? null : headers.lastHeader(MessageKind.HEADER);
    if (h != null && h.value() != null) {
      try {
        return MessageKind.fromWireBytes(h.value());
      } catch (IllegalArgumentException e) {
        throw new DataException(
            "topic " + topic + ": header " + MessageKind.HEADER + ": " + e.getMessage());
      }
    }
    return KindDetector.detect(bytes)
        .orElseThrow(
            () ->
                new DataException(
                    "topic "
                        + topic
                        + ": the record has no "
                        + MessageKind.HEADER
                        + " header and its bytes are not a recognisable"
                        + " Trellara message (MALFORMED_BYTES)"));
  }

  private static DataException rejected(String topic, ProtocolViolationException e) {
    return new DataException(
        "topic " + topic + ": Trellara message rejected: " + e.getMessage(), e);
  }

  static String render(Message message) {
    try {
      return JsonFormat.printer().preservingProtoFieldNames().print(message);
    } catch (InvalidProtocolBufferException e) {
      throw new DataException("cannot render " + message.getDescriptorForType().getFullName(), e);
    }
  }
}
