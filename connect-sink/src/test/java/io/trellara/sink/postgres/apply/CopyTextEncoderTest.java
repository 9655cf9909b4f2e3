package io.trellara.sink.postgres.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CopyTextEncoderTest {
  private static String encode(String... values) {
    CopyTextEncoder e = new CopyTextEncoder();
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        e.delimiter();
      }
      if (values[i] == null) {
        e.nullValue();
      } else {
        e.value(ByteString.copyFromUtf8(values[i]));
      }
    }
    e.endRow();
    return new String(e.buffer(), 0, e.length(), StandardCharsets.UTF_8);
  }

  @Test
  void escapesBackslashTabNewlineAndCarriageReturn() {
    assertThat(encode("a\\b\tc\nd\re")).isEqualTo("a\\\\b\\tc\\nd\\re\n");
  }

  @Test
  void writesNullAsBackslashNAndALiteralBackslashNEscaped() {
    assertThat(encode(null, "\\N", "")).isEqualTo("\\N\t\\\\N\t\n");
  }

  @Test
  void encodesUnicodeAsUtf8IncludingSurrogatePairs() {
    assertThat(encode("ü名😀")).isEqualTo("ü名😀\n");
  }

  @Test
  void growsItsBufferForLargeValues() {
    String big = "ab\\".repeat(100_000);
    assertThat(encode(big)).hasSize(400_001);
  }
}
