package io.trellara.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.boundary.ChunkedBarrier;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class TrellaraCodecTest {

  @Test
  void storedBytesAreParsedOnlyAfterTheirChecksumIsVerifiedAgain() {
    EncodedMessage chunk =
        ChunkedBarrier.strictChunked(SampleTransactions.envelope(6, true), 4).chunks().get(0);
    assertThat(TrellaraCodec.decodeStored(MessageKind.CHUNK, chunk.bytes()))
        .isEqualTo(TrellaraCodec.decodeChunk(chunk.bytes()));
    byte[] corrupted = chunk.bytes().clone();
    corrupted[corrupted.length / 2] ^= 0x01;
    assertThatThrownBy(() -> TrellaraCodec.decodeStored(MessageKind.CHUNK, corrupted))
        .isInstanceOfSatisfying(
            ProtocolViolationException.class,
            e -> assertThat(e.rule()).isEqualTo(ProtocolRule.CHECKSUM_MISMATCH));
  }

  private static final TransactionEnvelope TX = SampleTransactions.envelope(20, true);
  private static final byte[] ENCODED = TrellaraCodec.encode(TX).bytes();

  @Test
  void roundTripsAnEnvelopeWithItsChecksum() {
    EncodedMessage encoded = TrellaraCodec.encode(TX);
    TransactionEnvelope decoded = TrellaraCodec.decodeEnvelope(encoded.bytes());
    assertThat(decoded.getChecksum()).isEqualTo(encoded.checksum());
    assertThat(decoded.toBuilder().clearChecksum().build()).isEqualTo(TX);
  }

  @Test
  void checksumIsXxh3OfTheEncodingWithTheChecksumZeroed() {
    TransactionEnvelope decoded = TrellaraCodec.decodeEnvelope(ENCODED);
    byte[] zeroed = decoded.toBuilder().setChecksum(0).build().toByteArray();
    assertThat(decoded.getChecksum())
        .isEqualTo(net.openhft.hashing.LongHashFunction.xx3().hashBytes(zeroed));
    assertThat(Checksums.of(decoded)).isEqualTo(decoded.getChecksum());
  }

  @Test
  void acceptsTheChecksumFieldInCanonicalPositionAsAThirdPartyWouldWriteIt() {
    byte[] canonical =
        TrellaraCodec.decodeEnvelope(ENCODED).toByteArray(); // field 12 before field 13
    assertThat(canonical).isNotEqualTo(ENCODED);
    assertThat(TrellaraCodec.decodeEnvelope(canonical))
        .isEqualTo(TrellaraCodec.decodeEnvelope(ENCODED));
  }

  @Test
  void encodeRefusesAnInvalidMessageBeforeWritingBytes() {
    TransactionEnvelope bad = TX.toBuilder().setCommitTimestampMs(-1).build();
    assertThatThrownBy(() -> TrellaraCodec.encode(bad))
        .isInstanceOfSatisfying(
            ProtocolViolationException.class,
            e -> {
              assertThat(e.rule()).isEqualTo(ProtocolRule.COMMIT_TIMESTAMP_NOT_POSITIVE);
              assertThat(e.field()).isEqualTo("commit_timestamp_ms");
              assertThat(e.eventKey()).isEqualTo("pg-orders:0/16B3748:771");
            });
  }

  @Test
  void namesTheEventKeyOfTheOffendingChange() {
    TransactionEnvelope bad =
        TX.toBuilder().setChanges(3, TX.getChanges(3).toBuilder().setIdempotencyKey(" ")).build();
    assertThatThrownBy(() -> TrellaraCodec.encode(bad))
        .isInstanceOfSatisfying(
            ProtocolViolationException.class,
            e -> {
              assertThat(e.rule()).isEqualTo(ProtocolRule.IDEMPOTENCY_KEY_BLANK);
              assertThat(e.field()).isEqualTo("changes[3].idempotency_key");
              assertThat(e.eventKey())
                  .isEqualTo("pg-orders:0/16B3748:771:" + TX.getChanges(3).getTotalOrder());
              assertThat(e.getMessage()).contains("IDEMPOTENCY_KEY_BLANK", "changes[3]");
            });
  }

  @Test
  void everyKindRoundTripsAndTheBarrierHolds() {
    ChunkedBarrier.Barrier b = ChunkedBarrier.strictChunked(TX, 7);
    var chunks = b.chunks().stream().map(c -> TrellaraCodec.decodeChunk(c.bytes())).toList();
    var manifest = TrellaraCodec.decodeManifest(b.manifest().bytes());
    var marker = TrellaraCodec.decodeCommitMarker(b.commitMarker().bytes());
    BarrierVerifier.verify(manifest, marker, chunks);
    assertThat(manifest.getGlobalEventCount())
        .isEqualTo(TX.getChangesCount() + TX.getDdlEventsCount());
    assertThat(chunks).extracting(c -> c.getPartitionId()).containsExactly(0, 1, 2, 3);
  }

  @Test
  void decodingAsTheWrongKindIsRejected() {
    assertThatThrownBy(() -> TrellaraCodec.decode(MessageKind.MANIFEST, ENCODED))
        .isInstanceOf(ProtocolViolationException.class);
  }

  @Test
  void everyFlipInsideTheChecksumFieldIsRejected() {
    // the checksum bytes are outside the hash: a tenth varint byte with bits beyond 64 once
    // verified
    byte[] tenByte = envelopeWithTenByteChecksum();
    for (int p = tenByte.length - 11; p < tenByte.length; p++) {
      for (int mask = 1; mask < 256; mask++) {
        byte[] copy = tenByte.clone();
        copy[p] ^= (byte) mask;
        assertThatThrownBy(() -> TrellaraCodec.decodeEnvelope(copy))
            .as("byte %d xor %d", p, mask)
            .isInstanceOf(ProtocolViolationException.class);
      }
    }
  }

  private static byte[] envelopeWithTenByteChecksum() {
    for (int n = 1; ; n++) {
      EncodedMessage encoded = TrellaraCodec.encode(SampleTransactions.envelope(n, true));
      if (encoded.checksum() < 0) {
        return encoded.bytes();
      }
    }
  }

  @Property(tries = 300)
  void anySingleByteFlipIsRejected(
      @ForAll @IntRange(min = 0, max = 100_000) int position,
      @ForAll @IntRange(min = 1, max = 255) int mask) {
    byte[] copy = ENCODED.clone();
    copy[position % copy.length] ^= (byte) mask;
    assertThatThrownBy(() -> TrellaraCodec.decodeEnvelope(copy))
        .isInstanceOf(ProtocolViolationException.class);
  }

  @Property(tries = 500)
  void randomBytesOnlyEverGiveTheTypedRejection(
      @ForAll byte[] bytes, @ForAll("kinds") MessageKind kind) {
    assertThatThrownBy(() -> TrellaraCodec.decode(kind, bytes))
        .isInstanceOf(ProtocolViolationException.class);
  }

  @Property(tries = 200)
  void hugeDeclaredLengthsNeverAllocate(@ForAll @IntRange(min = 0, max = 300) int prefixLength) {
    // a length-delimited field declaring ~2 GiB after a valid prefix: must be rejected, not
    // allocated
    byte[] bytes = new byte[Math.min(prefixLength, ENCODED.length) + 6];
    System.arraycopy(ENCODED, 0, bytes, 0, bytes.length - 6);
    int p = bytes.length - 6;
    bytes[p] = (byte) 0x52; // field 10, wire type 2
    bytes[p + 1] = (byte) 0xFF;
    bytes[p + 2] = (byte) 0xFF;
    bytes[p + 3] = (byte) 0xFF;
    bytes[p + 4] = (byte) 0xFF;
    bytes[p + 5] = (byte) 0x07;
    assertThatThrownBy(() -> TrellaraCodec.decodeEnvelope(bytes))
        .isInstanceOf(ProtocolViolationException.class);
  }

  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<MessageKind> kinds() {
    return net.jqwik.api.Arbitraries.of(List.of(MessageKind.values()));
  }

  @Property(tries = 50)
  void roundTripsAnySize(@ForAll @IntRange(min = 1, max = 400) int inserts, @ForAll boolean ddl) {
    TransactionEnvelope tx = SampleTransactions.envelope(inserts, ddl);
    assertThat(
            TrellaraCodec.decodeEnvelope(TrellaraCodec.encode(tx).bytes()).toBuilder()
                .clearChecksum()
                .build())
        .isEqualTo(tx);
  }
}
