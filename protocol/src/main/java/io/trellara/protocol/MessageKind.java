package io.trellara.protocol;

import com.google.protobuf.Message;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The four top-level message kinds. Their bytes do not name their kind, so every carrier names it:
 * the Kafka header {@value #HEADER}, the local-log frame's kind byte, or the caller.
 */
public enum MessageKind {
  ENVELOPE("envelope", (byte) 1, 12, TransactionEnvelope.class),
  CHUNK("chunk", (byte) 2, 15, PartitionChunk.class),
  MANIFEST("manifest", (byte) 3, 15, TransactionManifest.class),
  COMMIT_MARKER("commit_marker", (byte) 4, 15, TransactionCommitMarker.class);

  /** Kafka header naming the kind of a record's value. */
  public static final String HEADER = "trellara.kind";

  /** values() copies its array on every call; these lookups run for every record. */
  private static final MessageKind[] KINDS = values();

  private final String wireName;
  private final byte[] wireBytes;
  private final byte code;
  private final int checksumTag;
  private final Class<? extends Message> type;

  MessageKind(String wireName, byte code, int checksumTag, Class<? extends Message> type) {
    this.wireName = wireName;
    this.wireBytes = wireName.getBytes(StandardCharsets.US_ASCII);
    this.code = code;
    this.checksumTag = checksumTag;
    this.type = type;
  }

  public String wireName() {
    return wireName;
  }

  /** The kind byte of a TLG2 local-log frame body. */
  public byte code() {
    return code;
  }

  /** Tag number of the message's own checksum field. */
  public int checksumTag() {
    return checksumTag;
  }

  public Class<? extends Message> type() {
    return type;
  }

  public static MessageKind of(Message message) {
    for (MessageKind k : KINDS) {
      if (k.type.isInstance(message)) {
        return k;
      }
    }
    throw new IllegalArgumentException("not a Trellara message: " + message.getClass().getName());
  }

  public static MessageKind fromWireName(String name) {
    for (MessageKind k : KINDS) {
      if (k.wireName.equals(name)) {
        return k;
      }
    }
    throw unknown(name);
  }

  /** {@link #fromWireName} of a header's UTF-8 bytes, without decoding them first. */
  public static MessageKind fromWireBytes(byte[] name) {
    for (MessageKind k : KINDS) {
      if (Arrays.equals(k.wireBytes, name)) {
        return k;
      }
    }
    throw unknown(new String(name, StandardCharsets.UTF_8)); // escaped: a topic writer's text
  }

  private static IllegalArgumentException unknown(String name) {
    return new IllegalArgumentException(
        "unknown message kind "
            + LogText.quote(name)
            + " (expected envelope, chunk, manifest"
            + " or commit_marker)");
  }

  public static MessageKind fromCode(byte code) {
    for (MessageKind k : KINDS) {
      if (k.code == code) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown message kind byte " + code);
  }
}
