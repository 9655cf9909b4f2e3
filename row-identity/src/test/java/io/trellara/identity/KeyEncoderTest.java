package io.trellara.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyEncoderTest {
  private static final List<ColumnType> COLUMNS =
      List.of(
          ColumnType.of(20),
          ColumnType.of(25),
          ColumnType.of(2950),
          ColumnType.of(1184),
          ColumnType.of(701),
          ColumnType.of(16),
          ColumnType.of(1186),
          ColumnType.of(17));

  @Test
  void fieldByFieldFromASharedBufferEqualsWholeRow() {
    KeyEncoder enc =
        RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, COLUMNS.subList(0, 2));
    byte[] wire = "xx42yyhello".getBytes(StandardCharsets.UTF_8);
    byte[] streamed = enc.begin().text(wire, 2, 2).text(wire, 6, 5).finish();
    assertThat(streamed).isEqualTo(enc.encodeStrings("42", "hello"));
    byte[] dest = new byte[64];
    int n = enc.begin().text(wire, 2, 2).nullField().finishInto(dest, 3);
    assertThat(java.util.Arrays.copyOfRange(dest, 3, 3 + n))
        .isEqualTo(enc.encodeStrings("42", null));
  }

  @Test
  void binaryFormatEncodesLikeText() {
    KeyEncoder enc = RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, COLUMNS);
    byte[] text =
        enc.encodeStrings(
            "-7",
            "hi",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "2024-01-02 03:04:05.5+05:45",
            "-0",
            "t",
            "1 mon 2 days 00:00:01",
            "\\x00ff");
    long tsMicros =
        ((java.time.Instant.parse("2024-01-01T21:19:05.5Z").getEpochSecond() - 946_684_800L)
                * 1_000_000L)
            + 500_000L;
    byte[][] values = {
      ByteBuffer.allocate(8).putLong(-7).array(),
      "hi".getBytes(StandardCharsets.UTF_8),
      ByteBuffer.allocate(16).putLong(0xa0eebc999c0b4ef8L).putLong(0xbb6d6bb9bd380a11L).array(),
      ByteBuffer.allocate(8).putLong(tsMicros).array(),
      ByteBuffer.allocate(8).putDouble(-0.0).array(),
      new byte[] {1},
      ByteBuffer.allocate(16).putLong(1_000_000L).putInt(2).putInt(1).array(),
      new byte[] {0, (byte) 0xff},
    };
    byte[] formats = new byte[values.length];
    java.util.Arrays.fill(formats, KeyEncoder.FORMAT_BINARY);
    assertThat(enc.encode(values, formats)).isEqualTo(text);
  }

  @Test
  void binaryNaNPayloadsCollapseToOneEncoding() {
    KeyEncoder enc =
        RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(ColumnType.of(701)));
    byte[] quiet = ByteBuffer.allocate(8).putDouble(Double.NaN).array();
    byte[] payload = ByteBuffer.allocate(8).putLong(0xFFF0_0000_0000_1234L).array();
    byte[] b = {KeyEncoder.FORMAT_BINARY};
    assertThat(enc.encode(new byte[][] {payload}, b))
        .isEqualTo(enc.encode(new byte[][] {quiet}, b))
        .isEqualTo(enc.encodeStrings("NaN"));
  }

  @Test
  void malformedValuesFailWithFieldAndType() {
    KeyEncoder enc =
        RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, COLUMNS.subList(0, 4));
    assertThatThrownBy(() -> enc.encodeStrings("1", "x", "not-a-uuid", "2024-01-01 00:00:00+00"))
        .isInstanceOf(RowIdentityException.class)
        .hasMessageStartingWith("field 2 (uuid)");
    assertThatThrownBy(() -> enc.encodeStrings("9223372036854775808", "x", null, null))
        .hasMessageStartingWith("field 0 (int8)")
        .hasMessageContaining("out of range");
    assertThatThrownBy(() -> enc.encodeStrings("1", "x", null, "2024-02-30 00:00:00+00"))
        .hasMessageStartingWith("field 3 (timestamptz)");
    assertThatThrownBy(() -> enc.encodeStrings("1", "x")).hasMessageContaining("expected 4");
    assertThatThrownBy(() -> enc.begin().text(new byte[] {'1'}, 0, 1).finish())
        .hasMessageContaining("1 of 4");
    byte[][] values = {{'1'}, {'x'}, null, null};
    assertThatThrownBy(() -> enc.encode(values, new byte[] {'t', 'u', 't', 't'}))
        .isInstanceOf(RowIdentityException.class)
        .hasMessageContaining("'u'");
  }

  @Test
  void rejectsSyntaxOutsidePostgresOutput() {
    KeyEncoder f =
        RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(ColumnType.of(701)));
    for (String bad : new String[] {"1d", "0x1p3", " 1", "1,5", "", "١"}) {
      assertThatThrownBy(() -> f.encodeStrings(bad))
          .as(bad)
          .isInstanceOf(RowIdentityException.class);
    }
    KeyEncoder bytea =
        RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(ColumnType.of(17)));
    assertThatThrownBy(() -> bytea.encodeStrings("abc")).hasMessageContaining("hex format");
  }

  @Test
  void decoderRejectsMalformedBytes() {
    byte[] ok = RowIdentityText.encode(RowIdentityDomain.SCAN_KEY, List.of("text"), List.of("a"));
    assertThatThrownBy(() -> RowIdentityDecoder.decode(java.util.Arrays.copyOf(ok, ok.length - 1)))
        .isInstanceOf(RowIdentityException.class);
    byte[] trailing = java.util.Arrays.copyOf(ok, ok.length + 1);
    assertThatThrownBy(() -> RowIdentityDecoder.decode(trailing))
        .hasMessageContaining("after the tuple end");
    byte[] v1 = ok.clone();
    v1[0] = 1;
    assertThatThrownBy(() -> RowIdentityDecoder.decode(v1)).hasMessageContaining("not V2");
    byte[] badState = ok.clone();
    badState[7] = 2;
    assertThatThrownBy(() -> RowIdentityDecoder.decode(badState)).hasMessageContaining("state");
  }

  @Test
  void decodesToTypedReadableFields() {
    DecodedIdentity d =
        RowIdentityText.decodeHex(
            RowIdentityText.encodeHex(
                RowIdentityDomain.JOIN_KEY,
                List.of("int8", "numeric", "timestamptz", "text"),
                java.util.Arrays.asList("-5", "-0.0500", "2024-01-02 03:04:05+05:45", null)));
    assertThat(d.domain()).isEqualTo(RowIdentityDomain.JOIN_KEY);
    assertThat(d.fields())
        .extracting(DecodedField::toString)
        .containsExactly(
            "int8 -5", "numeric -0.05", "timestamptz 2024-01-01 21:19:05+00", "text NULL");
    assertThat(d.render())
        .contains("domain JOIN_KEY")
        .contains("2\ttimestamptz\t2024-01-01 21:19:05+00");
  }
}
