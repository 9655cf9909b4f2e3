package io.trellara.sink.connect;

import com.google.protobuf.Message;
import io.trellara.protocol.LogText;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.KindDetector;
import io.trellara.protocol.codec.ReceivedBytes;
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
 * A Connect record as the engine's input: its bytes, unread until the task has authenticated the
 * record (TrellaraConverter's {@link ReceivedBytes}, ByteArrayConverter's bytes), verified then by
 * the pipeline through the one codec; or a message already decoded (a test's, a converter's).
 */
final class RecordInputs {
  private RecordInputs() {}

  /**
   * The record as the pipeline's input: its bytes (verified by the pipeline), or a decoded message.
   * Called after the record is authenticated.
   */
  static Input input(SinkRecord r) {
    TopicPartitionKey tp = new TopicPartitionKey(r.topic(), r.kafkaPartition());
    Object value = r.value();
    try {
      if (value instanceof ReceivedBytes received) { // TrellaraConverter
        return Input.raw(tp, r.kafkaOffset(), received.kind(), received.bytes(), where(r));
      }
      if (value instanceof byte[] bytes) { // ByteArrayConverter
        return Input.raw(tp, r.kafkaOffset(), kind(r, bytes), bytes, where(r));
      }
    } catch (IllegalArgumentException e) {
      throw new DataException(where(r) + ": Trellara message rejected: " + e.getMessage(), e);
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

  /** The record's place; its key escaped (a topic writer's text, which may hold newlines). */
  private static String where(SinkRecord r) {
    return r.topic()
        + "-"
        + r.kafkaPartition()
        + "@"
        + r.kafkaOffset()
        + " key "
        + LogText.escape(String.valueOf(r.key()));
  }

  /**
   * What an unauthenticated record says it is (its Kafka key, the transaction's display key as the
   * source writes it), quoted and escaped, cut if long.
   */
  static String claimed(SinkRecord r) {
    return LogText.quote(String.valueOf(r.key()));
  }
}
