package io.trellara.protocol.conformance;

import static io.trellara.protocol.validation.ProtocolRule.CHECKSUM_MISMATCH;
import static io.trellara.protocol.validation.ProtocolRule.MALFORMED_BYTES;

import com.google.protobuf.CodedOutputStream;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.Checksums;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.TransactionEnvelope;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Vectors whose bytes are not what a protobuf writer produces, where hashing the received bytes
 * without the checksum field (the protocol's method) and re-encoding the parsed message with the
 * checksum zeroed disagree.
 */
final class NonCanonical {
  private static final int CHECKSUM = MessageKind.ENVELOPE.checksumTag();

  private NonCanonical() {}

  /** Bytes a consumer accepts: the checksum covers exactly the other fields as received. */
  static void valid(TransactionEnvelope tx, List<Vector> v) {
    List<RawFields.Field> body = body(tx);
    v.add(
        Vector.accept(
            "valid-envelope-checksum-in-canonical-position",
            "the checksum field (12) in tag order,"
                + " between changes (10) and ddl_events (13), as a generic protobuf writer puts it",
            envelope(
                TrellaraCodec.decodeEnvelope(TrellaraCodec.encode(tx).bytes()).toByteArray())));
    v.add(
        Vector.accept(
            "valid-envelope-fields-reordered",
            "the top-level fields in descending tag order (each"
                + " repeated field's elements in order), the checksum over those bytes, appended",
            envelope(RawFields.checksummed(RawFields.join(descending(body)), CHECKSUM))));
    v.add(
        Vector.accept(
            "valid-envelope-non-minimal-varint",
            "protocol_version written as the two-byte varint"
                + " 81 00, the checksum over those bytes",
            envelope(
                RawFields.checksummed(
                    RawFields.join(withVersion(body, new byte[] {0x08, (byte) 0x81, 0x00})),
                    CHECKSUM))));
    v.add(
        Vector.accept(
            "valid-envelope-unknown-field",
            "an unknown field 99 (varint 7) before the checksum: covered"
                + " by the checksum, otherwise ignored",
            envelope(
                RawFields.checksummed(
                    RawFields.concat(RawFields.join(body), RawFields.varintField(99, 7)),
                    CHECKSUM))));
  }

  /** Bytes a consumer refuses. */
  static void invalid(TransactionEnvelope tx, List<Vector> v) {
    byte[] reordered = RawFields.join(descending(body(tx)));
    long reencoded = Checksums.of(tx);
    v.add(
        new Vector(
            "checksum-over-re-encoding",
            CHECKSUM_MISMATCH,
            "fields in descending tag order, the checksum that"
                + " of the message re-encoded in canonical order with the checksum zeroed, not of the bytes sent",
            envelope(RawFields.concat(reordered, RawFields.varintField(CHECKSUM, reencoded)))));
    byte[] zeroed = RawFields.join(body(tx));
    v.add(
        new Vector(
            "checksum-field-missing",
            CHECKSUM_MISMATCH,
            "no checksum field (checksum 0)",
            envelope(zeroed)));
    byte[] field = RawFields.varintField(CHECKSUM, Checksums.xxh3(zeroed));
    v.add(
        new Vector(
            "checksum-field-twice",
            MALFORMED_BYTES,
            "the right checksum field, written twice",
            envelope(RawFields.concat(zeroed, field, field))));
    v.add(
        new Vector(
            "checksum-wrong-wire-type",
            MALFORMED_BYTES,
            "field 12 length-delimited (8 bytes) instead of" + " a varint",
            envelope(
                RawFields.concat(
                    zeroed, new byte[] {(byte) (CHECKSUM << 3 | 2), 8}, new byte[8]))));
    byte[] padded = shortChecksummed();
    v.add(
        new Vector(
            "checksum-varint-not-shortest",
            MALFORMED_BYTES,
            "the right checksum value as a varint one"
                + " byte longer than its shortest form (a trailing 00 continued to)",
            envelope(padded)));
    byte[] longest = longChecksummed();
    longest[longest.length - 1] |= 0x02;
    v.add(
        new Vector(
            "checksum-varint-bits-beyond-64",
            MALFORMED_BYTES,
            "the checksum's tenth varint byte carries"
                + " a bit beyond 64, which parsing drops: the value read is the right one",
            envelope(longest)));
  }

  private static List<Vector.Part> envelope(byte[] bytes) {
    return List.of(new Vector.Part(MessageKind.ENVELOPE, bytes));
  }

  /** The writer's bytes without the checksum field. */
  private static List<RawFields.Field> body(TransactionEnvelope tx) {
    return RawFields.without(RawFields.split(TrellaraCodec.encode(tx).bytes()), CHECKSUM);
  }

  /**
   * The fields in descending tag order; the elements of a repeated field keep theirs (the sort is
   * stable).
   */
  private static List<RawFields.Field> descending(List<RawFields.Field> fields) {
    List<RawFields.Field> r = new ArrayList<>(fields);
    r.sort(Comparator.comparingInt(RawFields.Field::number).reversed());
    return r;
  }

  private static List<RawFields.Field> withVersion(List<RawFields.Field> fields, byte[] version) {
    List<RawFields.Field> out = new ArrayList<>(fields);
    out.set(0, new RawFields.Field(1, version));
    return out;
  }

  /**
   * A sample whose checksum is below 2^63 (at most 9 varint bytes), its checksum padded by one
   * byte.
   */
  private static byte[] shortChecksummed() {
    for (int inserts = 1; ; inserts++) {
      byte[] bytes = TrellaraCodec.encode(SampleTransactions.envelope(inserts, false)).bytes();
      byte[] body = RawFields.join(RawFields.without(RawFields.split(bytes), CHECKSUM));
      long checksum = Checksums.xxh3(body);
      if (checksum >= 0) {
        byte[] field = RawFields.varintField(CHECKSUM, checksum);
        byte[] padded = Arrays.copyOf(field, field.length + 1);
        padded[field.length - 1] |= (byte) 0x80;
        return RawFields.concat(body, padded);
      }
    }
  }

  /** A sample whose checksum is at least 2^63, so its varint takes all 10 bytes. */
  private static byte[] longChecksummed() {
    for (int inserts = 1; ; inserts++) {
      byte[] bytes = TrellaraCodec.encode(SampleTransactions.envelope(inserts, false)).bytes();
      byte[] body = RawFields.join(RawFields.without(RawFields.split(bytes), CHECKSUM));
      long checksum = Checksums.xxh3(body);
      if (checksum < 0 && CodedOutputStream.computeUInt64SizeNoTag(checksum) == 10) {
        return RawFields.concat(body, RawFields.varintField(CHECKSUM, checksum));
      }
    }
  }
}
