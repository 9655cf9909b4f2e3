package io.trellara.sink.postgres.ddl;

import io.trellara.sink.postgres.ddl.ReplayableStatement.Refusal;
import java.util.List;
import java.util.Locale;

/**
 * One statement's tokens, looked up by index the way the gate asks: a look past either end finds
 * nothing rather than failing, so a short statement is refused for its shape by the rule that
 * expected more, not by an {@link IndexOutOfBoundsException}.
 */
final class StatementTokens {
  private final List<Token> tokens;

  StatementTokens(List<Token> tokens) {
    this.tokens = tokens;
  }

  int size() {
    return tokens.size();
  }

  Token get(int i) {
    return tokens.get(i);
  }

  /** The keyword at {@code i}, or "" when it is not an unquoted identifier (or past the end). */
  String keyword(int i) {
    return i >= 0 && i < tokens.size() && tokens.get(i).type() == TokenType.IDENTIFIER
        ? tokens.get(i).value()
        : "";
  }

  boolean isPunct(int i, String p) {
    return i >= 0 && i < tokens.size() && tokens.get(i).is(TokenType.PUNCTUATION, p);
  }

  boolean isOperator(int i, String p) {
    return i >= 0 && i < tokens.size() && tokens.get(i).is(TokenType.OPERATOR, p);
  }

  /** The index after {@code IF EXISTS} at {@code i}, or {@code i} when there is none. */
  int skipIfExists(int i) {
    if (keyword(i).equals("if")) {
      expect(i + 1, "exists");
      return i + 2;
    }
    return i;
  }

  void expect(int i, String keyword) {
    if (!keyword(i).equals(keyword)) {
      throw new Refusal(
          RefusalReason.UNPARSABLE,
          "expected "
              + keyword.toUpperCase(Locale.ROOT)
              + (i < tokens.size()
                  ? " at offset " + tokens.get(i).start()
                  : " at the end of the statement"));
    }
  }

  /** Up to {@code n} leading words, upper case, for messages. */
  String upper(int from, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = from; i < Math.min(tokens.size(), from + n); i++) {
      if (tokens.get(i).type() != TokenType.IDENTIFIER) {
        break;
      }
      sb.append(sb.isEmpty() ? "" : " ").append(tokens.get(i).value().toUpperCase(Locale.ROOT));
    }
    return sb.isEmpty() ? "'" + tokens.get(from).value() + "'" : sb.toString();
  }
}
