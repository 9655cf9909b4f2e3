package io.trellara.sink.buffer;

import com.google.protobuf.Message;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.ReceivedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.Objects;

/**
 * One record of a task's input: the decoded message (the converter verified it) with the bytes it
 * came in, or only its bytes (verified here, by the one codec). A chunk is staged as these bytes,
 * never as a re-encoding (which need not hash the same).
 *
 * @param where the record's place for messages ({@code topic-partition@offset key ...})
 */
public record Input(
    TopicPartitionKey partition,
    long offset,
    MessageKind kind,
    byte[] bytes,
    Message message,
    String where) {
  public Input {
    Objects.requireNonNull(partition, "partition");
    if (bytes == null && message == null) {
      throw new IllegalArgumentException("bytes or a message");
    }
  }

  /** A record the converter decoded, with the bytes it came in. */
  public static Input received(
      TopicPartitionKey partition, long offset, ReceivedMessage received, String where) {
    return new Input(
        partition, offset, received.kind(), received.bytes(), received.message(), where);
  }

  /** A decoded message without its bytes (staged, a chunk is re-encoded and verified again). */
  public static Input decoded(
      TopicPartitionKey partition, long offset, Message message, String where) {
    return new Input(partition, offset, MessageKind.of(message), null, message, where);
  }

  public static Input raw(
      TopicPartitionKey partition, long offset, MessageKind kind, byte[] bytes, String where) {
    return new Input(partition, offset, Objects.requireNonNull(kind, "kind"), bytes, null, where);
  }

  /** The message: decoded now (verify, parse, validate) when the input carried bytes. */
  Message decode() {
    return message != null ? message : TrellaraCodec.decode(kind, bytes);
  }

  /** A record failed verification: its place, then the rule, the field and the event key. */
  public static final class RejectedException extends RuntimeException {
    RejectedException(Input in, RuntimeException cause) {
      super(in.where() + ": Trellara message rejected: " + cause.getMessage(), cause);
    }
  }
}
