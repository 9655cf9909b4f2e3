package io.trellara.sink.postgres.ddl;

import io.trellara.sink.postgres.ddl.ReplayableStatement.Refusal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits a query string at {@code ;} and insists on exactly one statement with at most one trailing
 * {@code ;}.
 */
final class SingleStatement {
  private SingleStatement() {}

  /** The one statement's tokens, without the trailing {@code ;}. */
  static List<Token> of(String sql) {
    List<Token> tokens = SqlLexer.tokenize(sql);
    List<Token> statement = null;
    List<String> found = new ArrayList<>();
    int semicolons = 0;
    int from = 0;
    for (int i = 0; i <= tokens.size(); i++) {
      boolean separator = i < tokens.size() && tokens.get(i).type() == TokenType.SEMICOLON;
      if (i < tokens.size() && !separator) {
        continue;
      }
      if (separator) {
        semicolons++;
      }
      if (i > from) {
        if (statement == null) {
          statement = tokens.subList(from, i);
        }
        found.add(
            tokens.get(from).value().toUpperCase(Locale.ROOT)
                + "... at offset "
                + tokens.get(from).start());
      }
      from = i + 1;
    }
    if (statement == null) {
      throw new Refusal(
          RefusalReason.EMPTY, "the text holds no statement (only whitespace, comments or ;)");
    }
    if (found.size() > 1) {
      throw new Refusal(
          RefusalReason.MULTIPLE_STATEMENTS,
          found.size() + " statements, only one is replayed: " + String.join(", ", found));
    }
    boolean terminated = tokens.get(tokens.size() - 1).type() == TokenType.SEMICOLON;
    if (semicolons > (terminated ? 1 : 0)) {
      throw new Refusal(
          RefusalReason.EMPTY,
          "an empty statement (a ; with nothing before it) beside " + found.get(0));
    }
    return statement;
  }
}
