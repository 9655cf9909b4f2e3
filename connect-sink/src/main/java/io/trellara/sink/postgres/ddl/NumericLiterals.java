package io.trellara.sink.postgres.ddl;

import static io.trellara.sink.postgres.ddl.SqlCharacters.at;
import static io.trellara.sink.postgres.ddl.SqlCharacters.identStart;
import static io.trellara.sink.postgres.ddl.SqlCharacters.isDigit;

/**
 * Numeric constants: decimal with an optional fraction and exponent, {@code 0x} / {@code 0o} /
 * {@code 0b} integers, and {@code _} between digits. A letter straight after a number is an error,
 * not the start of the next token: the server refuses {@code 123abc} ("trailing junk"), and reading
 * it as two tokens would be a guess at text the server never runs.
 */
final class NumericLiterals {
  private NumericLiterals() {}

  /** From a digit, or a {@code .} before one, at {@code from}: the index after the number. */
  static int end(String sql, int from) {
    int p = from;
    char c1 = at(sql, p + 1);
    if (sql.charAt(p) == '0'
        && (c1 == 'x' || c1 == 'X' || c1 == 'o' || c1 == 'O' || c1 == 'b' || c1 == 'B')) {
      int radix = c1 == 'x' || c1 == 'X' ? 16 : c1 == 'o' || c1 == 'O' ? 8 : 2;
      int q = p + 2;
      while (Character.digit(at(sql, q), radix) >= 0
          || (at(sql, q) == '_' && Character.digit(at(sql, q + 1), radix) >= 0)) {
        q++;
      }
      if (q > p + 2) {
        return checkedEnd(sql, from, q);
      }
      // "0x" with no digit: read as 0, and the x after it is trailing junk
    }
    p = digits(sql, p);
    // in 1..10 the number ends before the dots, as in scan.l
    if (at(sql, p) == '.' && at(sql, p + 1) != '.') {
      p = digits(sql, p + 1);
    }
    char e = at(sql, p);
    if (e == 'e' || e == 'E') {
      int q = p + 1;
      if (at(sql, q) == '+' || at(sql, q) == '-') {
        q++;
      }
      if (isDigit(at(sql, q))) {
        p = digits(sql, q);
      }
    }
    return checkedEnd(sql, from, p);
  }

  private static int checkedEnd(String sql, int from, int p) {
    if (identStart(at(sql, p))) {
      throw new SqlSyntaxException("trailing junk after numeric literal", from);
    }
    return p;
  }

  private static int digits(String sql, int p) {
    while (isDigit(at(sql, p)) || (at(sql, p) == '_' && isDigit(at(sql, p + 1)))) {
      p++;
    }
    return p;
  }
}
