package io.trellara.sink.postgres.ddl;

/**
 * What PostgreSQL's lexer ({@code scan.l}) calls a space, a letter, a digit or an operator
 * character, and what it skips between tokens: spaces and both kinds of comment. The classes are
 * written out by hand rather than taken from {@link Character}: the server decides byte by byte, so
 * neither the JVM's locale nor Unicode's tables may change an answer.
 *
 * <p>Every scanner of the package looks ahead through {@link #at}, which answers {@code '\0'} past
 * the end, so a look-ahead needs no bounds check of its own.
 */
final class SqlCharacters {
  private SqlCharacters() {}

  /** The character at {@code i}, or {@code '\0'} past the end of {@code sql}. */
  static char at(String sql, int i) {
    return i < sql.length() ? sql.charAt(i) : '\0';
  }

  // ---- whitespace and comments
  // ---------------------------------------------------------------------------

  /** The index of the first character at or after {@code p} that is neither space nor comment. */
  static int skipWhitespaceAndComments(String sql, int p) {
    int length = sql.length();
    while (p < length) {
      char ch = sql.charAt(p);
      if (isSpace(ch)) {
        p++;
      } else if (ch == '-' && at(sql, p + 1) == '-') {
        p = lineCommentEnd(sql, p);
      } else if (ch == '/' && at(sql, p + 1) == '*') {
        p = blockCommentEnd(sql, p);
      } else {
        break;
      }
    }
    return p;
  }

  /**
   * From a {@code --} at {@code p}: the index of the newline that ends the comment, or the end of
   * the text (the newline itself is not part of it, as a string continuation needs to see it).
   */
  static int lineCommentEnd(String sql, int p) {
    int length = sql.length();
    while (p < length && sql.charAt(p) != '\n' && sql.charAt(p) != '\r') {
      p++;
    }
    return p;
  }

  /** Block comments nest, as in the SQL standard and PostgreSQL. */
  static int blockCommentEnd(String sql, int open) {
    int length = sql.length();
    int depth = 1;
    int p = open + 2;
    while (depth > 0) {
      if (p >= length) {
        throw new SqlSyntaxException("unterminated /* comment", open);
      }
      char ch = sql.charAt(p);
      if (ch == '/' && at(sql, p + 1) == '*') {
        depth++;
        p += 2;
      } else if (ch == '*' && at(sql, p + 1) == '/') {
        depth--;
        p += 2;
      } else {
        p++;
      }
    }
    return p;
  }

  /** Whether a {@code --} or {@code /*} comment starts at {@code p} (which must be in the text). */
  static boolean commentStartsAt(String sql, int p) {
    char ch = sql.charAt(p);
    return (ch == '-' && at(sql, p + 1) == '-') || (ch == '/' && at(sql, p + 1) == '*');
  }

  // ---- character classes
  // ---------------------------------------------------------------------------------

  /** The server's {@code space}: {@code [ \t\n\r\f\v]}. */
  static boolean isSpace(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\u000B';
  }

  /** {@code [A-Za-z\200-\377_]}: every non-ASCII character starts an identifier (even U+00A0). */
  static boolean identStart(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch >= 0x80;
  }

  static boolean identCont(char ch) {
    return identStart(ch) || isDigit(ch) || ch == '$';
  }

  static boolean isDigit(char ch) {
    return ch >= '0' && ch <= '9';
  }

  static boolean opChar(char ch) {
    return "~!@#^&|`?+-*/%<>=".indexOf(ch) >= 0;
  }

  /** The value of an ASCII hexadecimal digit, or -1. */
  static int hexValue(char ch) {
    if (ch >= '0' && ch <= '9') {
      return ch - '0';
    }
    if (ch >= 'a' && ch <= 'f') {
      return ch - 'a' + 10;
    }
    if (ch >= 'A' && ch <= 'F') {
      return ch - 'A' + 10;
    }
    return -1;
  }

  static char asciiLower(char ch) {
    return ch >= 'A' && ch <= 'Z' ? (char) (ch + 32) : ch;
  }

  /**
   * Lower-cases ASCII letters only: the server folds nothing else, and the JVM's locale must not
   * matter.
   */
  static String lowerAscii(String s, int from, int to) {
    char[] out = new char[to - from];
    for (int i = from; i < to; i++) {
      out[i - from] = asciiLower(s.charAt(i));
    }
    return new String(out);
  }
}
