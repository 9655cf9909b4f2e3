package io.trellara.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LogTextTest {
  @Test
  void anOrdinaryNameIsKeptAsItIs() {
    String name = "app.accounts_2026 \"Straße\" 日本";
    assertThat(LogText.escape(name)).isSameAs(name);
  }

  @Test
  void lineBreaksAndControlCharactersBecomeEscapes() {
    assertThat(LogText.escape("accounts\nERROR forged line\r\tx"))
        .isEqualTo("accounts\\nERROR forged line\\r\\tx");
    assertThat(LogText.escape("a\u0000b\u001bc\u007fd\u0085e"))
        .isEqualTo("a\\u0000b\\u001bc\\u007fd\\u0085e");
    // line and paragraph separators, and a bidirectional override that would reorder what a reader
    // sees
    assertThat(LogText.escape("x\u2028y\u2029z\u202eq\u2066r"))
        .isEqualTo("x\\u2028y\\u2029z\\u202eq\\u2066r");
  }

  /** A backslash is escaped too, so an escape in the output always means an escape in the input. */
  @Test
  void aBackslashIsEscapedSoTheOutputReadsBackUniquely() {
    assertThat(LogText.escape("a\\nb")).isEqualTo("a\\\\nb");
    assertThat(LogText.escape("a\nb")).isNotEqualTo(LogText.escape("a\\nb"));
  }

  @Test
  void nullIsSpelledOut() {
    assertThat(LogText.escape(null)).isEqualTo("null");
  }

  @Test
  void quotedTextIsOneLineAndRecognisablyQuoted() {
    String forged = "x\n2026-12-03 12:00:00 ERROR forged\r\t\u0000\u0085\u2028\"\\";
    assertThat(LogText.quote(forged))
        .isEqualTo("\"x\\n2026-12-03 12:00:00 ERROR forged\\r\\t\\u0000\\u0085\\u2028\\\"\\\\\"")
        .doesNotContain("\n", "\r", "\u2028");
  }

  @Test
  void longQuotedTextIsCutAndTheRestCounted() {
    String text = "a".repeat(LogText.MAX_CHARS + 10);
    assertThat(LogText.quote(text))
        .isEqualTo("\"" + "a".repeat(LogText.MAX_CHARS) + "\"... (10 more characters)");
    byte[] bytes = "b".repeat(LogText.MAX_CHARS + 3).getBytes(StandardCharsets.UTF_8);
    assertThat(LogText.quote(bytes)).endsWith("\"... (3 more bytes)");
  }

  @Test
  void bytesThatAreNotUtf8AndNullAreQuotedSafely() {
    assertThat(LogText.quote(new byte[] {(byte) 0xff, '\n', '{'})).isEqualTo("\"\uFFFD\\n{\"");
    assertThat(LogText.quote((String) null)).isEqualTo("null");
  }
}
