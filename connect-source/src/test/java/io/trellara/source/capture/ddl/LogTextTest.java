package io.trellara.source.capture.ddl;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Source-database text in a log line: one line, bounded, recognisably quoted. */
class LogTextTest {

  @Test
  void aNewlineOrAnotherControlCharacterCannotStartAForgedLogLine() {
    String forged = "x\n2026-12-03 12:00:00 ERROR forged\r\t\u0000\u0085\u2028\"\\";
    assertThat(LogText.quote(forged))
        .isEqualTo("\"x\\n2026-12-03 12:00:00 ERROR forged\\r\\t\\u0000\\u0085\\u2028\\\"\\\\\"")
        .doesNotContain("\n", "\r", "\u2028");
  }

  @Test
  void longTextIsCutAndTheRestCounted() {
    String text = "a".repeat(LogText.MAX_CHARS + 10);
    assertThat(LogText.quote(text))
        .isEqualTo("\"" + "a".repeat(LogText.MAX_CHARS) + "\"... (10 more characters)");
    byte[] bytes = "b".repeat(LogText.MAX_CHARS + 3).getBytes(StandardCharsets.UTF_8);
    assertThat(LogText.quote(bytes)).endsWith("\"... (3 more bytes)");
  }

  @Test
  void bytesThatAreNotUtf8AndNullAreShownSafely() {
    assertThat(LogText.quote(new byte[] {(byte) 0xff, '\n', '{'})).isEqualTo("\"\uFFFD\\n{\"");
    assertThat(LogText.quote((String) null)).isEqualTo("null");
  }
}
