package io.trellara.sink.postgres.ddl;

/**
 * The text cannot be tokenised the way the server would (unterminated quote, comment, bad
 * escape...).
 */
public final class SqlSyntaxException extends RuntimeException {
  private final int offset;

  public SqlSyntaxException(String message, int offset) {
    super(message + " at offset " + offset);
    this.offset = offset;
  }

  /** Where in the text the problem starts (a UTF-16 index). */
  public int offset() {
    return offset;
  }
}
