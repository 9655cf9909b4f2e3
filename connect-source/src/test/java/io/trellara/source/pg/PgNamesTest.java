package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PgNamesTest {

  @Test
  void slotNamesAreLowerCaseLettersDigitsAndUnderscoreUpTo63Bytes() {
    assertThat(PgNames.slotNameProblem("orders_slot_2")).isNull();
    assertThat(PgNames.slotNameProblem("a".repeat(63))).isNull();
    assertThat(PgNames.slotNameProblem("a".repeat(64))).contains("64 bytes", "at most 63 bytes");
    assertThat(PgNames.slotNameProblem("Orders"))
        .contains("'O'", "lower-case letters (a-z), digits");
    assertThat(PgNames.slotNameProblem("x;DROP")).contains("';'");
    assertThat(PgNames.slotNameProblem("")).contains("empty");
  }

  @Test
  void publicationNamesAreBoundedInBytesNotCharacters() {
    assertThat(PgNames.publicationNameProblem("ä".repeat(31))).isNull(); // 62 bytes
    assertThat(PgNames.publicationNameProblem("ä".repeat(32))).contains("64 bytes long");
    assertThat(PgNames.publicationNameProblem("a\0")).contains("NUL");
  }

  @Test
  void thePublicationNamesOptionIsAQuotedIdentifierInsideAnEscapedLiteral() {
    assertThat(PgNames.publicationNamesOption("shop_pub")).isEqualTo("\"shop_pub\"");
    // pgoutput would lower-case and split an unquoted "Shop,Pub"; pgjdbc adds the single quotes
    // unescaped
    assertThat(PgNames.publicationNamesOption("Shop,Pub")).isEqualTo("\"Shop,Pub\"");
    assertThat(PgNames.publicationNamesOption("it's \"x\"")).isEqualTo("\"it''s \"\"x\"\"\"");
  }
}
