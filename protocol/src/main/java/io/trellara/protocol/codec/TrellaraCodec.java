package io.trellara.protocol.codec;

import static io.trellara.protocol.validation.ProtocolRule.CHECKSUM_MISMATCH;
import static io.trellara.protocol.validation.ProtocolRule.MALFORMED_BYTES;
import static io.trellara.protocol.validation.ProtocolRule.UNKNOWN_PROTOCOL_VERSION;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.WireFormat;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.ProtocolVersion;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.Misreading;
import io.trellara.protocol.validation.ProtocolValidator;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.protocol.validation.Violations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * The one codec. Encode = validate, then checksum, then bytes. Decode = reject an unknown protocol
 * version unread, verify the checksum over the raw bytes, then parse, then validate: a caller never
 * holds a message that is only partly trusted.
 *
 * <p>Encoding writes every other field first, hashes those bytes, and appends the checksum field,
 * so the message is serialised once and hashed once. Protobuf readers accept fields in any order.
 */
public final class TrellaraCodec {
  /** A tag byte plus the longest uint64 varint. */
  private static final int CHECKSUM_FIELD_MAX = 11;

  private TrellaraCodec() {}

  // ---- encode
  // -----------------------------------------------------------------------------------------

  public static EncodedMessage encode(Message message) {
    MessageKind kind = MessageKind.of(message);
    validate(kind, message);
    return checksummed(kind, message);
  }

  /**
   * Checksums and serialises without validating. Only for building negative conformance vectors and
   * fault-injection tests: a correct writer always calls {@link #encode}.
   */
  public static EncodedMessage encodeWithoutValidation(Message message) {
    return checksummed(MessageKind.of(message), message);
  }

  private static EncodedMessage checksummed(MessageKind kind, Message message) {
    Message zeroed = withoutChecksum(kind, message);
    int size = zeroed.getSerializedSize();
    byte[] out = new byte[size + CHECKSUM_FIELD_MAX];
    CodedOutputStream cos = CodedOutputStream.newInstance(out);
    try {
      zeroed.writeTo(cos);
      long checksum = Checksums.xxh3(out, 0, size);
      cos.writeUInt64(kind.checksumTag(), checksum);
      int total = size + CodedOutputStream.computeUInt64Size(kind.checksumTag(), checksum);
      return new EncodedMessage(
          kind, total == out.length ? out : Arrays.copyOf(out, total), checksum);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The message with the checksum it must carry, for callers that keep the object (planners,
   * tests).
   */
  @SuppressWarnings("unchecked")
  public static <M extends Message> M withChecksum(M message) {
    MessageKind kind = MessageKind.of(message);
    long checksum = Checksums.of(message);
    return (M) message.toBuilder().setField(checksumField(kind, message), checksum).build();
  }

  static byte[] zeroedBytes(Message message) {
    return withoutChecksum(MessageKind.of(message), message).toByteArray();
  }

  private static Message withoutChecksum(MessageKind kind, Message message) {
    // typed getters: the reflective getField costs a descriptor search and an accessor call per
    // message
    long checksum =
        switch (kind) {
          case ENVELOPE -> ((TransactionEnvelope) message).getChecksum();
          case CHUNK -> ((PartitionChunk) message).getChecksum();
          case MANIFEST -> ((TransactionManifest) message).getChecksum();
          case COMMIT_MARKER -> ((TransactionCommitMarker) message).getChecksum();
        };
    return checksum == 0L
        ? message
        : message.toBuilder().clearField(checksumField(kind, message)).build();
  }

  private static com.google.protobuf.Descriptors.FieldDescriptor checksumField(
      MessageKind kind, Message m) {
    return m.getDescriptorForType().findFieldByNumber(kind.checksumTag());
  }

  public static void validate(MessageKind kind, Message message) {
    validate(kind, message, Violations.FAIL_FAST);
  }

  public static void validate(MessageKind kind, Message message, Violations v) {
    switch (kind) {
      case ENVELOPE -> ProtocolValidator.validateEnvelope((TransactionEnvelope) message, v);
      case CHUNK -> ProtocolValidator.validateChunk((PartitionChunk) message, v);
      case MANIFEST -> ProtocolValidator.validateManifest((TransactionManifest) message, v);
      case COMMIT_MARKER ->
          ProtocolValidator.validateCommitMarker((TransactionCommitMarker) message, v);
    }
  }

  // ---- decode
  // -----------------------------------------------------------------------------------------

  public static TransactionEnvelope decodeEnvelope(byte[] bytes) {
    return (TransactionEnvelope) decode(MessageKind.ENVELOPE, bytes);
  }

  public static PartitionChunk decodeChunk(byte[] bytes) {
    return (PartitionChunk) decode(MessageKind.CHUNK, bytes);
  }

  public static TransactionManifest decodeManifest(byte[] bytes) {
    return (TransactionManifest) decode(MessageKind.MANIFEST, bytes);
  }

  public static TransactionCommitMarker decodeCommitMarker(byte[] bytes) {
    return (TransactionCommitMarker) decode(MessageKind.COMMIT_MARKER, bytes);
  }

  public static Message decode(MessageKind kind, byte[] bytes) {
    return decode(kind, bytes, Violations.FAIL_FAST);
  }

  /**
   * Decodes reporting to {@code v}. Bytes that break a rule of the bytes themselves
   * (MALFORMED_BYTES, UNKNOWN_PROTOCOL_VERSION, CHECKSUM_MISMATCH) are not read further: one
   * violation, and null. Otherwise the parsed message, after every validation rule was judged
   * ({@code v} holds what it broke).
   */
  public static Message decode(MessageKind kind, byte[] bytes, Violations v) {
    Message message;
    try {
      verifyChecksum(kind, bytes);
      message = parse(kind, bytes);
    } catch (ProtocolViolationException e) {
      v.report(e);
      return null;
    }
    validate(kind, message, v);
    return message;
  }

  /**
   * For bytes this process validated when it first received them and stored (a sink's staged
   * chunks): the version and checksum are verified again over the raw bytes — so storage corruption
   * is still caught — and the message is parsed, but the validation rules, which depend only on
   * those bytes, are not run twice.
   */
  public static Message decodeStored(MessageKind kind, byte[] bytes) {
    verifyChecksum(kind, bytes);
    return parse(kind, bytes);
  }

  /** Checks version and checksum over the raw bytes without parsing the message. */
  public static long verifyChecksum(MessageKind kind, byte[] bytes) {
    if (Misreading.any()) {
      String refusal = MisreadBytes.refusal(kind, bytes);
      if (refusal != null) {
        throw RawScan.malformed(kind, refusal, null);
      }
    }
    RawScan scan = RawScan.of(kind, bytes);
    if (scan.version != ProtocolVersion.CURRENT) {
      throw new ProtocolViolationException(
          UNKNOWN_PROTOCOL_VERSION,
          "protocol_version",
          "",
          kind.wireName()
              + " bytes declare protocol_version "
              + Long.toUnsignedString(scan.version)
              + "; they are rejected unread");
    }
    long actual = scan.hashWithoutChecksum(bytes);
    if (actual != scan.checksum) {
      throw new ProtocolViolationException(
          CHECKSUM_MISMATCH,
          "checksum",
          "",
          kind.wireName()
              + " carries "
              + Checksums.hex(scan.checksum)
              + " but its bytes hash to "
              + Checksums.hex(actual));
    }
    return actual;
  }

  /**
   * Parses with aliasing: a {@code bytes} field, and {@code ColumnValue.text} (read as bytes, see
   * the IDL), is a view of {@code bytes}, not a copy. The callers' arrays are theirs alone (a Kafka
   * record's value, a stored chunk) and never written after, so a message may keep them alive but
   * sees them unchanged.
   */
  private static Message parse(MessageKind kind, byte[] bytes) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(bytes);
      in.enableAliasing(true);
      Message m =
          switch (kind) {
            case ENVELOPE -> TransactionEnvelope.parseFrom(in);
            case CHUNK -> PartitionChunk.parseFrom(in);
            case MANIFEST -> TransactionManifest.parseFrom(in);
            case COMMIT_MARKER -> TransactionCommitMarker.parseFrom(in);
          };
      in.checkLastTagWas(0);
      return m;
    } catch (
        java.io.IOException
            e) { // InvalidProtocolBufferException: reading an array does no other I/O
      throw new ProtocolViolationException(MALFORMED_BYTES, kind.wireName(), "", e.getMessage(), e);
    }
  }

  /**
   * One pass over the top-level fields: the version, the checksum and where the checksum field
   * sits.
   */
  private static final class RawScan {
    long version;
    boolean versionSeen;
    long checksum;
    int checksumStart = -1;
    int checksumEnd = -1;

    static RawScan of(MessageKind kind, byte[] bytes) {
      RawScan s = new RawScan();
      CodedInputStream in = CodedInputStream.newInstance(bytes);
      try {
        while (!in.isAtEnd()) {
          int start = in.getTotalBytesRead();
          int tag = in.readTag();
          int field = WireFormat.getTagFieldNumber(tag);
          boolean varint = WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT;
          if (field == kind.checksumTag() && varint) {
            if (s.checksumStart >= 0) {
              throw malformed(kind, "the checksum field appears twice", null);
            }
            int valueStart = in.getTotalBytesRead();
            s.checksum = in.readUInt64();
            s.checksumStart = start;
            s.checksumEnd = in.getTotalBytesRead();
            // the checksum bytes are outside the hash, so they must be the one encoding of the
            // value:
            // a longer varint, or a tenth byte with bits beyond 64 (which parsing drops), would
            // differ
            // from what the writer sent yet verify
            if (!isCanonicalVarint(bytes, valueStart, s.checksumEnd, s.checksum)) {
              throw malformed(kind, "the checksum is not a shortest-form varint", null);
            }
          } else if (field == 1 && varint) {
            // read on all 64 bits: a uint32 parser truncates 2^32+1 to 1
            if (s.versionSeen && !Misreading.on(Misreading.PROTOCOL_VERSION_LAST_WINS)) {
              throw malformed(kind, "protocol_version appears twice", null);
            }
            s.versionSeen = true;
            s.version = in.readUInt64();
            if (Misreading.on(Misreading.PROTOCOL_VERSION_AS_UINT32)) {
              s.version &= 0xFFFFFFFFL;
            }
          } else if (field == kind.checksumTag() || field == 1) {
            throw malformed(
                kind, "field " + field + " has wire type " + WireFormat.getTagWireType(tag), null);
          } else if (!in.skipField(tag)) {
            throw malformed(kind, "unexpected end-group tag", null);
          }
        }
      } catch (InvalidProtocolBufferException e) {
        throw malformed(kind, e.getMessage(), e);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return s;
    }

    private static boolean isCanonicalVarint(byte[] bytes, int start, int end, long value) {
      if (end - start != CodedOutputStream.computeUInt64SizeNoTag(value)) {
        return false;
      }
      long v = value;
      for (int i = start; i < end; i++, v >>>= 7) {
        int expected = i == end - 1 ? (int) v : (int) (v & 0x7F) | 0x80;
        if ((bytes[i] & 0xFF) != expected) {
          return false;
        }
      }
      return true;
    }

    long hashWithoutChecksum(byte[] bytes) {
      if (checksumStart < 0) {
        return Checksums.xxh3(bytes, 0, bytes.length);
      }
      if (checksumEnd == bytes.length) {
        return Checksums.xxh3(bytes, 0, checksumStart); // the writer's layout: checksum last
      }
      byte[] joined = new byte[bytes.length - (checksumEnd - checksumStart)];
      System.arraycopy(bytes, 0, joined, 0, checksumStart);
      System.arraycopy(bytes, checksumEnd, joined, checksumStart, bytes.length - checksumEnd);
      return Checksums.xxh3(joined);
    }

    static ProtocolViolationException malformed(MessageKind kind, String detail, Throwable cause) {
      return new ProtocolViolationException(MALFORMED_BYTES, kind.wireName(), "", detail, cause);
    }
  }
}
