package io.trellara.protocol;

import static org.assertj.core.api.Assertions.assertThat;

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
}
