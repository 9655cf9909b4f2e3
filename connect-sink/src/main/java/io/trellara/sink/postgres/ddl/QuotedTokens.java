package io.trellara.sink.postgres.ddl;

import static io.trellara.sink.postgres.ddl.SqlCharacters.at;
import static io.trellara.sink.postgres.ddl.SqlCharacters.identStart;
import static io.trellara.sink.postgres.ddl.SqlCharacters.isDigit;
import static io.trellara.sink.postgres.ddl.SqlCharacters.isSpace;
import static io.trellara.sink.postgres.ddl.SqlCharacters.lineCommentEnd;

/**
 * The extent and body of quoted tokens: {@code '...'} string constants of every prefix (with the
 * newline continuation of adjacent literals), {@code "..."} identifiers and {@code $tag$...$tag$}
 * dollar quotes. These decide statement boundaries (a {@code ;} inside one separates nothing), so
 * each follows {@code scan.l} exactly.
 *
 * <p>A scan returns the index after the token and appends the decoded body only when given a {@link
 * StringBuilder}: the lexer scans without one, allocating nothing per token, and decodes when a
 * value is asked for. Errors carry the token's start ({@code tokenStart}, where a prefix such as
 * {@code E} or {@code U&} stands), not the quote's.
 */
final class QuotedTokens {
  private QuotedTokens() {}

  // ---- string constants
  // ----------------------------------------------------------------------------------

  /**
   * Scans a quoted literal whose opening quote is at {@code quote}, through any continuation
   * ({@code 'a'<newline>'b'} is one literal); returns the index after it. Appends the decoded body
   * to {@code out} when given (for U&amp; literals the body is undecoded: unicode escapes are
   * applied later).
   */
  static int stringEnd(String sql, int quote, StringKind k, int tokenStart, StringBuilder out) {
    int length = sql.length();
    boolean doubling = k != StringKind.BIT && k != StringKind.HEX;
    int p = quote + 1;
    while (true) {
      if (p >= length) {
        throw new SqlSyntaxException("unterminated " + describe(k) + " string", tokenStart);
      }
      char ch = sql.charAt(p);
      if (ch == '\'') {
        if (doubling && at(sql, p + 1) == '\'') {
          append(out, '\'');
          p += 2;
          continue;
        }
        int next = continuation(sql, p + 1);
        if (next < 0) {
          return p + 1;
        }
        p = next + 1;
      } else if (ch == '\\' && k == StringKind.ESCAPE) {
        p = EscapeSequences.backslashEscapeEnd(sql, p, tokenStart, out);
      } else {
        append(out, ch);
        p++;
      }
    }
  }

  /**
   * The decoded body of the string token {@code [start, end)} of kind {@code k} (not {@link
   * StringKind#DOLLAR}; for {@link StringKind#UNICODE} still undecoded).
   */
  static String stringBody(String sql, int start, int end, StringKind k) {
    boolean prefixed =
        k == StringKind.ESCAPE
            || k == StringKind.BIT
            || k == StringKind.HEX
            || k == StringKind.NATIONAL;
    StringBuilder sb = new StringBuilder(end - start);
    stringEnd(sql, prefixed ? start + 1 : start, k, start, sb);
    return sb.toString();
  }

  /**
   * After a closing quote: whitespace containing a newline ({@code --} comments count as
   * whitespace) followed by a quote continues the literal ({@code quotecontinue} in scan.l);
   * returns that quote's index or -1.
   */
  static int continuation(String sql, int p) {
    int length = sql.length();
    while (p < length && (sql.charAt(p) == ' ' || sql.charAt(p) == '\t' || sql.charAt(p) == '\f')) {
      p++;
    }
    if (at(sql, p) == '-'
        && at(sql, p + 1) == '-') { // a line comment is horizontal whitespace up to its newline
      p = lineCommentEnd(sql, p);
    }
    if (p >= length || (sql.charAt(p) != '\n' && sql.charAt(p) != '\r')) {
      return -1;
    }
    p++;
    while (p < length) {
      char ch = sql.charAt(p);
      if (isSpace(ch)) {
        p++;
      } else if (ch == '-' && at(sql, p + 1) == '-') {
        p = lineCommentEnd(sql, p);
        if (p >= length) {
          return -1;
        }
      } else {
        break;
      }
    }
    return at(sql, p) == '\'' ? p : -1;
  }

  // ---- quoted identifiers
  // --------------------------------------------------------------------------------

  /**
   * Scans {@code "..."} ({@code ""} for a quote) from the quote at {@code quote}; returns the index
   * after it.
   */
  static int identifierEnd(String sql, int quote, int tokenStart, StringBuilder out) {
    int length = sql.length();
    int p = quote + 1;
    boolean empty = true;
    while (true) {
      if (p >= length) {
        throw new SqlSyntaxException("unterminated quoted identifier", tokenStart);
      }
      char ch = sql.charAt(p);
      if (ch == '"') {
        if (at(sql, p + 1) != '"') {
          break;
        }
        p++;
      }
      append(out, ch);
      empty = false;
      p++;
    }
    if (empty) {
      throw new SqlSyntaxException("zero-length delimited identifier", tokenStart);
    }
    return p + 1;
  }

  /** The name a {@code "..."} token {@code [start, end)} spells. */
  static String identifierBody(String sql, int start, int end) {
    StringBuilder sb = new StringBuilder(end - start);
    identifierEnd(sql, start, start, sb);
    return sb.toString();
  }

  // ---- dollar quotes
  // -------------------------------------------------------------------------------------

  /**
   * From a {@code $} at {@code dollar} (not followed by a digit: that is a parameter): the index of
   * the {@code $} that closes a dollar-quote tag, or -1 when none does. A tag never starts with a
   * digit, and never holds a {@code $}.
   */
  static int dollarTagEnd(String sql, int dollar) {
    int p = dollar + 1;
    if (identStart(at(sql, p))) {
      while (identStart(at(sql, p)) || isDigit(at(sql, p))) {
        p++;
      }
    }
    return at(sql, p) == '$' ? p : -1;
  }

  /**
   * The index after the dollar quote whose opening tag spans {@code [open, tagEnd]}: nothing inside
   * is special, the same tag ends it.
   */
  static int dollarQuoteEnd(String sql, int open, int tagEnd) {
    String tag = sql.substring(open, tagEnd + 1);
    int close = sql.indexOf(tag, tagEnd + 1);
    if (close < 0) {
      throw new SqlSyntaxException("unterminated dollar-quoted string " + tag, open);
    }
    return close + tag.length();
  }

  /** The text between the tags of the dollar quote {@code [start, end)}. */
  static String dollarBody(String sql, int start, int end) {
    int tag = sql.indexOf('$', start + 1) + 1 - start;
    return sql.substring(start + tag, end - tag);
  }

  /** Appends when decoding; a scan without a builder only measures. */
  static void append(StringBuilder out, char ch) {
    if (out != null) {
      out.append(ch);
    }
  }

  private static String describe(StringKind k) {
    return switch (k) {
      case STANDARD -> "quoted";
      case NATIONAL -> "national";
      case ESCAPE -> "escape (E'')";
      case UNICODE -> "Unicode (U&'')";
      case BIT -> "bit (B'')";
      case HEX -> "hexadecimal (X'')";
      case DOLLAR -> "dollar-quoted";
    };
  }
}
