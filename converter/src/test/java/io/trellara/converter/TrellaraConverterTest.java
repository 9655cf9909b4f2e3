package io.trellara.converter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.boundary.ChunkedBarrier;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.codec.ReceivedBytes;
import io.trellara.protocol.codec.ReceivedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.ProtocolViolationException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

class TrellaraConverterTest {
  private static final TransactionEnvelope TX = SampleTransactions.envelope(4, true);

  private static TrellaraConverter converter(String render) {
    TrellaraConverter c = new TrellaraConverter();
    c.configure(Map.of("render", render), false);
    return c;
  }

  @Test
  void writesExactlyTheCodecBytesAndNamesTheKind() {
    RecordHeaders headers = new RecordHeaders();
    byte[] bytes = converter("protobuf").fromConnectData("t", headers, null, TX);
    assertThat(bytes).isEqualTo(TrellaraCodec.encode(TX).bytes());
    assertThat(new String(headers.lastHeader(MessageKind.HEADER).value(), StandardCharsets.UTF_8))
        .isEqualTo("envelope");
  }

  @Test
  void refusesToWriteAnInvalidMessage() {
    TransactionEnvelope bad = TX.toBuilder().setSourceId("").build();
    assertThatThrownBy(
            () -> converter("protobuf").fromConnectData("t", new RecordHeaders(), null, bad))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("REQUIRED_FIELD_BLANK")
        .hasMessageContaining("source_id");
  }

  @Test
  void readsEveryKindBackUnreadThenVerifiedByTheCodec() {
    TrellaraConverter c = converter("protobuf");
    for (EncodedMessage m : ChunkedBarrier.strictChunked(TX, 2).inOrder()) {
      RecordHeaders headers = new RecordHeaders();
      headers.add(MessageKind.HEADER, m.kind().wireName().getBytes(StandardCharsets.UTF_8));
      ReceivedBytes read = (ReceivedBytes) c.toConnectData("t", headers, m.bytes()).value();
      assertThat(read.bytes()).isSameAs(m.bytes()); // what the checksum and the tag cover, kept
      ReceivedMessage decoded = read.decode();
      assertThat(decoded.message()).isInstanceOf(m.kind().type());
      assertThat(decoded.bytes()).isSameAs(m.bytes());
      ReceivedBytes detected = (ReceivedBytes) c.toConnectData("t", m.bytes()).value();
      assertThat(detected.kind()).isEqualTo(m.kind());
      assertThat(c.fromConnectData("t", new RecordHeaders(), null, read)).isSameAs(m.bytes());
      assertThat(c.fromConnectData("t", new RecordHeaders(), null, decoded)).isSameAs(m.bytes());
    }
  }

  /**
   * Inbound, nothing of a record is read before the task has authenticated it: not its bytes, not
   * its kind header. A forged record's flipped byte or unknown kind is refused by the codec when
   * the task decodes it, and refused outright when the converter is asked to write it on.
   */
  @Test
  void handsAForgedRecordOverUnreadAndTheCodecRefusesItNamingTheRule() {
    byte[] bytes = TrellaraCodec.encode(TX).bytes();
    bytes[bytes.length / 2] ^= 0x04;
    RecordHeaders headers = new RecordHeaders();
    headers.add(MessageKind.HEADER, "envelope\nFORGED".getBytes(StandardCharsets.UTF_8));
    headers.add("trellara-auth", new byte[] {1, 2, 3});
    ReceivedBytes read =
        (ReceivedBytes) converter("protobuf").toConnectData("t", headers, bytes).value();
    assertThat(read.bytes()).isSameAs(bytes);
    assertThat(read.authHeader()).containsExactly(1, 2, 3);
    assertThatThrownBy(read::kind)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown message kind \"envelope\\nFORGED\"");
    ReceivedBytes flipped =
        (ReceivedBytes)
            converter("protobuf").toConnectData("t", new RecordHeaders(), bytes).value();
    assertThatThrownBy(flipped::decode).isInstanceOf(ProtocolViolationException.class);
    assertThatThrownBy(
            () -> converter("protobuf").fromConnectData("t", new RecordHeaders(), null, flipped))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("topic t");
    assertThatThrownBy(() -> converter("json").toConnectData("t", new RecordHeaders(), bytes))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("topic t");
  }

  @Test
  void passesVerifiedBytesThroughUnchanged() {
    byte[] bytes = TrellaraCodec.encode(TX).bytes();
    assertThat(converter("protobuf").fromConnectData("t", new RecordHeaders(), null, bytes))
        .isSameAs(bytes);
  }

  @Test
  void writesThePlannersEncodedChunksByteForByteAfterVerifyingTheirChecksum() {
    for (EncodedMessage m : ChunkedBarrier.strictChunked(TX, 2).inOrder()) {
      RecordHeaders headers = new RecordHeaders();
      assertThat(converter("protobuf").fromConnectData("t", headers, null, m)).isSameAs(m.bytes());
      assertThat(new String(headers.lastHeader(MessageKind.HEADER).value(), StandardCharsets.UTF_8))
          .isEqualTo(m.kind().wireName());
    }
    EncodedMessage chunk = ChunkedBarrier.strictChunked(TX, 2).chunks().get(0);
    byte[] corrupted = chunk.bytes().clone();
    corrupted[corrupted.length / 3] ^= 0x10;
    EncodedMessage bad = new EncodedMessage(chunk.kind(), corrupted, chunk.checksum());
    assertThatThrownBy(
            () -> converter("protobuf").fromConnectData("t", new RecordHeaders(), null, bad))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("CHECKSUM_MISMATCH");
  }

  @Test
  void rendersJsonForInspection() {
    Object json = converter("json").toConnectData("t", TrellaraCodec.encode(TX).bytes()).value();
    assertThat((String) json)
        .contains(
            "\"protocol_version\": 1",
            "\"transaction_id\": \"771\"",
            "COLUMN_STATE_UNCHANGED_TOAST");
  }

  @Test
  void nullStaysNull() {
    assertThat(converter("protobuf").toConnectData("t", null).value()).isNull();
    assertThat(converter("protobuf").fromConnectData("t", null, null)).isNull();
  }

  /**
   * A signed record leaves with its value bytes unchanged and the header's raw bytes (not through
   * Connect's header converter), and comes back with them, for the sink task to authenticate.
   */
  @Test
  void writesASignedRecordsHeaderAsItsBytesAndKeepsItOnTheWayIn() {
    EncodedMessage m = TrellaraCodec.encode(TX);
    io.trellara.protocol.auth.AuthKey key =
        io.trellara.protocol.auth.AuthKey.ofText("k1", "converter-test-secret");
    byte[] tag = io.trellara.protocol.auth.RecordMac.sign(key, "t", 3, m.bytes());
    RecordHeaders headers = new RecordHeaders();
    headers.add("trellara-auth", new byte[] {9}); // a stale one is replaced, not repeated
    byte[] out =
        converter("protobuf")
            .fromConnectData(
                "t", headers, null, new io.trellara.protocol.auth.SignedMessage(m, tag));
    assertThat(out).isSameAs(m.bytes());
    assertThat(headers.headers("trellara-auth")).hasSize(1);
    assertThat(headers.lastHeader("trellara-auth").value()).isEqualTo(tag);
    ReceivedBytes in =
        (ReceivedBytes) converter("protobuf").toConnectData("t", headers, out).value();
    assertThat(in.authHeader()).isEqualTo(tag);
    assertThat(
            new io.trellara.protocol.auth.RecordVerifier(java.util.List.of(key), false)
                .verify("t", 3, in.bytes(), in.authHeader()))
        .isEqualTo("k1");
    assertThatThrownBy(
            () ->
                converter("json")
                    .fromConnectData(
                        "t",
                        new RecordHeaders(),
                        null,
                        new io.trellara.protocol.auth.SignedMessage(m, tag)))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("protobuf");
  }
}
