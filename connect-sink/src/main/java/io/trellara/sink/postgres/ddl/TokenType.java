package io.trellara.sink.postgres.ddl;

/** What a {@link SqlLexer} token is; whitespace and comments are skipped, never tokens. */
public enum TokenType {
  /**
   * An unquoted identifier or keyword; its value is folded to lower case (ASCII only, as the server
   * does).
   */
  IDENTIFIER,
  /** {@code "..."} or {@code U&"..."}; its value is the decoded name, case preserved. */
  QUOTED_IDENTIFIER,
  /** Any string constant ({@link StringKind} says which); its value is the decoded text. */
  STRING,
  NUMBER,
  /** {@code $1}, {@code $2}...: a positional parameter, not a dollar quote. */
  PARAMETER,
  /**
   * A run of operator characters ({@code + - * / < > = ~ ! @ # % ^ & | ` ?}), also {@code ::} and
   * {@code :=}.
   */
  OPERATOR,
  /** {@code ( ) [ ] , . :} */
  PUNCTUATION,
  /** {@code ;}, the statement separator. */
  SEMICOLON,
  /**
   * A character the server's lexer passes to the grammar as itself and the grammar rejects ({@code
   * \ { } $}).
   */
  OTHER,
  EOF
}
