package io.trellara.sink.postgres.ddl;

/**
 * One token, materialised: {@code value} is the lower-cased identifier, the decoded name or string,
 * or the raw text for anything else; {@code start}/{@code end} index the original text.
 */
public record Token(TokenType type, StringKind stringKind, String value, int start, int end) {

  /**
   * An unquoted identifier equal to {@code lowerCaseWord} (a quoted {@code "select"} is no
   * keyword).
   */
  public boolean isKeyword(String lowerCaseWord) {
    return type == TokenType.IDENTIFIER && value.equals(lowerCaseWord);
  }

  /** An identifier, quoted or not: something that can name an object. */
  public boolean isName() {
    return type == TokenType.IDENTIFIER || type == TokenType.QUOTED_IDENTIFIER;
  }

  public boolean is(TokenType t, String text) {
    return type == t && value.equals(text);
  }
}
