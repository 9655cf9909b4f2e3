package io.trellara.sink.connect;

import com.google.protobuf.Message;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.KindDetector;
import io.trellara.protocol.codec.ReceivedMessage;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.port.TopicPartitionKey;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A Connect record as the engine's input: the verified message with its bytes (TrellaraConverter)
 * or its bytes (ByteArrayConverter).
 */
final class RecordInputs {
  private RecordInputs() {}

  /**
   * The record as the pipeline's input: the verified message, or its bytes (verified by the
   * pipeline).
   */
  static Input input(SinkRecord r) {
    TopicPartitionKey tp = new TopicPartitionKey(r.topic(), r.kafkaPartition());
    Object value = r.value();
    if (value instanceof byte[] bytes) { // ByteArrayConverter: verified in the pipeline
      MessageKind kind;
      try {
        kind = kind(r, bytes);
      } catch (IllegalArgumentException e) {
        throw new DataException(where(r) + ": Trellara message rejected: " + e.getMessage(), e);
      }
      return Input.raw(tp, r.kafkaOffset(), kind, bytes, where(r));
    }
    if (value instanceof ReceivedMessage received && isTrellara(received.message())) {
      return Input.received(tp, r.kafkaOffset(), received, where(r)); // TrellaraConverter
    }
    if (value instanceof Message m && isTrellara(m)) { // a message an SMT or a test built
      return Input.decoded(tp, r.kafkaOffset(), m, where(r));
    }
    throw new DataException(
        where(r)
            + ": expected a Trellara message (envelope, chunk, manifest or commit"
            + " marker), got "
            + (value == null ? "null" : value.getClass().getName())
            + ". Use "
            + "io.trellara.converter.TrellaraConverter (render=protobuf) or ByteArrayConverter as"
            + " value.converter.");
  }

  private static boolean isTrellara(Message m) {
    return m instanceof TransactionEnvelope
        || m instanceof PartitionChunk
        || m instanceof TransactionManifest
        || m instanceof TransactionCommitMarker;
  }

  private static MessageKind kind(SinkRecord r, byte[] bytes) {
    Header h = r.headers().lastWithName(MessageKind.HEADER);
    if (h != null && h.value() != null) {
      Object v = h.value();
      return MessageKind.fromWireName(
          v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString());
    }
    return KindDetector.detect(bytes).orElse(MessageKind.ENVELOPE);
  }

  private static String where(SinkRecord r) {
    return r.topic() + "-" + r.kafkaPartition() + "@" + r.kafkaOffset() + " key " + r.key();
  }

  /**
   * What an unauthenticated record says it is (its Kafka key, the transaction's display key as the
   * source writes it), escaped: it is a topic writer's text, and may hold newlines.
   */
  static String claimed(SinkRecord r) {
    String key = String.valueOf(r.key());
    StringBuilder b = new StringBuilder(Math.min(key.length(), 200) + 2).append('\'');
    for (int i = 0; i < key.length() && i < 200; i++) {
      char c = key.charAt(i);
      if (c < 0x20 || c == 0x7f || c == '\\' || c == '\'') {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append(key.length() > 200 ? "'..." : "'").toString();
  }
}
