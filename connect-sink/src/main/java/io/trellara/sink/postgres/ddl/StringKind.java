package io.trellara.sink.postgres.ddl;

/** The spelling of a {@link TokenType#STRING} token, which decides how its body is read. */
public enum StringKind {
  /**
   * {@code '...'} ({@code ''} for a quote); backslashes are literal under
   * standard_conforming_strings.
   */
  STANDARD,
  /** {@code N'...'}, read as {@link #STANDARD}. */
  NATIONAL,
  /** {@code E'...'}: backslash escapes. */
  ESCAPE,
  /**
   * {@code U&'...'} with {@code \XXXX} / {@code \+XXXXXX} escapes and an optional {@code UESCAPE
   * 'c'}.
   */
  UNICODE,
  /** {@code $tag$...$tag$}: nothing inside is special. */
  DOLLAR,
  /** {@code B'0101'}. */
  BIT,
  /** {@code X'1F'}. */
  HEX
}
