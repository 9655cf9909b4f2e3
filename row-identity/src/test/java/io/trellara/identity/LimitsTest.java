package io.trellara.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class LimitsTest {

  /**
   * A finite range bound encoded as NULL (only a flag may make a bound infinite) is malformed, not
   * a crash.
   */
  @Test
  void aNullRangeBoundIsRejectedAsMalformed() {
    // KEYLESS_ROW, 1 field: int4range, length 10, flags [lower inclusive, lower NULL, upper 5
    byte[] bytes = Hex.parse("02 01 00000001 41 01 0000000a 02 03 00 03 01 80000005 ff ff");
    assertThatThrownBy(() -> RowIdentityDecoder.decode(bytes))
        .isInstanceOf(RowIdentityException.class)
        .hasMessageContaining("range lower bound")
        .hasMessageContaining("NULL");
  }

  @Test
  void rejectsMoreThan1024FieldsBeforeResolving() {
    List<ColumnType> cols = new ArrayList<>(Collections.nCopies(1025, ColumnType.of(23)));
    assertThatThrownBy(() -> RowIdentityEncoder.forColumns(RowIdentityDomain.KEYLESS_ROW, cols))
        .isInstanceOf(RowIdentityException.class)
        .hasMessageContaining("1024");
    assertThat(
            RowIdentityEncoder.forColumns(RowIdentityDomain.KEYLESS_ROW, cols.subList(0, 1024))
                .fieldCount())
        .isEqualTo(1024);
    assertThatThrownBy(
            () -> RowIdentityEncoder.forColumns(RowIdentityDomain.KEYLESS_ROW, List.of()))
        .isInstanceOf(RowIdentityException.class);
  }

  @Test
  void rejectsIdentitiesOverOneMebibyteWithFieldContext() {
    KeyEncoder enc =
        RowIdentityEncoder.forColumns(
            RowIdentityDomain.KEYLESS_ROW, List.of(ColumnType.of(23), ColumnType.of(25)));
    String big = "x".repeat(1 << 20);
    assertThatThrownBy(() -> enc.encodeStrings("1", big))
        .isInstanceOf(RowIdentityException.class)
        .hasMessageStartingWith("field 1 (text)")
        .hasMessageContaining("1048576");
    assertThat(enc.encodeStrings("1", "x".repeat((1 << 20) - 20)))
        .hasSizeLessThanOrEqualTo(1 << 20);
    // the encoder stays usable after a failure
    assertThat(enc.encodeStrings("1", "ok")).isNotEmpty();
  }

  @Test
  void rejectsJsonbDeeperThan32() {
    KeyEncoder enc =
        RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(ColumnType.of(3802)));
    assertThat(enc.encodeStrings("[".repeat(31) + "]".repeat(31))).isNotEmpty();
    assertThatThrownBy(() -> enc.encodeStrings("[".repeat(33) + "]".repeat(33)))
        .isInstanceOf(RowIdentityException.class)
        .hasMessageContaining("depth 32")
        .hasMessageStartingWith("field 0 (jsonb)");
  }

  @Test
  void rejectsTypesNestedDeeperThan32() {
    ColumnType t = ColumnType.of(23);
    for (int i = 0; i < 33; i++) {
      t = ColumnType.composite(80_000 + i, "c" + i, List.of(t));
    }
    ColumnType deep = t;
    assertThatThrownBy(
            () -> RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(deep)))
        .isInstanceOf(RowIdentityException.class)
        .hasMessageContaining("depth 32");
  }

  @Test
  void decoderRefusesFieldCountsOverTheLimitBeforeAllocating() {
    byte[] forged = Hex.parse("0201" + "7fffffff" + "ff");
    assertThatThrownBy(() -> RowIdentityDecoder.decode(forged))
        .isInstanceOf(RowIdentityException.class)
        .hasMessageContaining("exceeds 1024");
  }
}
