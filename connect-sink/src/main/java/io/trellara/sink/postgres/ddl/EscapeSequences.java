package io.trellara.sink.postgres.ddl;

import static io.trellara.sink.postgres.ddl.QuotedTokens.append;
import static io.trellara.sink.postgres.ddl.SqlCharacters.at;
import static io.trellara.sink.postgres.ddl.SqlCharacters.hexValue;

/**
 * Escape sequences inside quoted tokens: the backslash escapes of {@code E'...'} strings ({@code
 * \n}, octal, {@code \xHH}, 4- and 8-digit Unicode code points, surrogate pairs) and the Unicode
 * escapes of {@code U&'...'} strings and {@code U&"..."} names ({@code \XXXX}, {@code \+XXXXXX},
 * with {@code \} or the character {@code UESCAPE} chose). The server rejects a bad escape while
 * lexing, so a bad one is a {@link SqlSyntaxException} here too, not a character guessed at.
 */
final class EscapeSequences {
  private EscapeSequences() {}

  // ---- E'' backslash escapes
  // -----------------------------------------------------------------------------

  /**
   * A backslash escape of an E'' string at {@code p}; returns the index after it. Only an escaped
   * quote matters to statement boundaries ({@code \'} ends nothing), but the value is decoded too.
   */
  static int backslashEscapeEnd(String sql, int p, int tokenStart, StringBuilder out) {
    char e = at(sql, p + 1);
    if (p + 1 >= sql.length()) {
      throw new SqlSyntaxException("unterminated escape string", tokenStart);
    }
    switch (e) {
      case 'b' -> append(out, '\b');
      case 'f' -> append(out, '\f');
      case 'n' -> append(out, '\n');
      case 'r' -> append(out, '\r');
      case 't' -> append(out, '\t');
      case 'x' -> {
        return hexByteEscapeEnd(sql, p, out);
      }
      case 'u', 'U' -> {
        return unicodeBackslashEscapeEnd(sql, p, e, out);
      }
      default -> {
        if (e >= '0' && e <= '7') {
          int q = p + 1;
          int v = 0;
          while (q < p + 4 && at(sql, q) >= '0' && at(sql, q) <= '7') {
            v = v * 8 + (at(sql, q++) - '0');
          }
          append(out, (char) (v & 0xFF));
          return q;
        }
        append(out, e);
      }
    }
    return p + 2;
  }

  /** {@code \xH} or {@code \xHH}; a bare {@code \x} is the letter x. */
  private static int hexByteEscapeEnd(String sql, int p, StringBuilder out) {
    int q = p + 2;
    int v = 0;
    while (q < p + 4 && hexValue(at(sql, q)) >= 0) {
      v = v * 16 + hexValue(at(sql, q++));
    }
    if (q == p + 2) {
      append(out, 'x');
      return p + 2;
    }
    append(out, (char) v);
    return q;
  }

  /**
   * A code point of 4 ({@code u}) or 8 ({@code U}) hex digits after the backslash at {@code p}, a
   * high surrogate only with its low one after it.
   */
  private static int unicodeBackslashEscapeEnd(String sql, int p, char e, StringBuilder out) {
    int digits = e == 'u' ? 4 : 8;
    int cp = hexCodePoint(sql, p + 2, digits, "invalid Unicode escape in escape string");
    int q = p + 2 + digits;
    if (Character.isHighSurrogate((char) cp) && cp <= 0xFFFF) {
      if (at(sql, q) != '\\' || (at(sql, q + 1) != 'u' && at(sql, q + 1) != 'U')) {
        throw new SqlSyntaxException("invalid Unicode surrogate pair", p);
      }
      int lowDigits = at(sql, q + 1) == 'u' ? 4 : 8;
      int low = hexCodePoint(sql, q + 2, lowDigits, "invalid Unicode escape in escape string");
      if (!Character.isLowSurrogate((char) low) || low > 0xFFFF) {
        throw new SqlSyntaxException("invalid Unicode surrogate pair", p);
      }
      cp = Character.toCodePoint((char) cp, (char) low);
      q += 2 + lowDigits;
    }
    appendCodePoint(out, cp, p);
    return q;
  }

  /** {@code digits} hex digits from {@code from}; -1 beyond Unicode. */
  private static int hexCodePoint(String sql, int from, int digits, String error) {
    long v = 0;
    for (int i = from; i < from + digits; i++) {
      int h = hexValue(at(sql, i));
      if (h < 0) {
        throw new SqlSyntaxException(error, from - 2);
      }
      v = v * 16 + h;
    }
    return v > Character.MAX_CODE_POINT ? -1 : (int) v;
  }

  // ---- U& Unicode escapes
  // --------------------------------------------------------------------------------

  /**
   * Applies the Unicode escapes of a U&amp; body {@code raw} (already undoubled) with escape
   * character {@code esc}: {@code esc esc} is {@code esc}, {@code esc XXXX} and {@code esc +XXXXXX}
   * a code point, a high surrogate only with its low one after it.
   */
  static String decodeUnicode(CharSequence raw, char esc, int tokenStart) {
    StringBuilder out = new StringBuilder(raw.length());
    for (int i = 0; i < raw.length(); ) {
      char ch = raw.charAt(i);
      if (ch != esc) {
        out.append(ch);
        i++;
        continue;
      }
      if (i + 1 < raw.length() && raw.charAt(i + 1) == esc) {
        out.append(esc);
        i += 2;
        continue;
      }
      int cp;
      if (i + 1 < raw.length() && raw.charAt(i + 1) == '+') {
        cp = hex(raw, i + 2, 6, tokenStart);
        i += 8;
      } else {
        cp = hex(raw, i + 1, 4, tokenStart);
        i += 5;
      }
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        int low =
            i < raw.length() && raw.charAt(i) == esc
                ? (i + 1 < raw.length() && raw.charAt(i + 1) == '+'
                    ? hex(raw, i + 2, 6, tokenStart)
                    : hex(raw, i + 1, 4, tokenStart))
                : -1;
        if (low < 0xDC00 || low > 0xDFFF) {
          throw new SqlSyntaxException("invalid Unicode surrogate pair", tokenStart);
        }
        i += raw.charAt(i + 1) == '+' ? 8 : 5;
        cp = Character.toCodePoint((char) cp, (char) low);
      }
      appendCodePoint(out, cp, tokenStart);
    }
    return out.toString();
  }

  private static int hex(CharSequence s, int from, int digits, int tokenStart) {
    int v = 0;
    for (int i = from; i < from + digits; i++) {
      int h = i < s.length() ? hexValue(s.charAt(i)) : -1;
      if (h < 0) {
        throw new SqlSyntaxException("invalid Unicode escape", tokenStart);
      }
      v = v * 16 + h;
    }
    return v;
  }

  /** NUL, a lone surrogate and anything beyond U+10FFFF are refused, as by the server. */
  private static void appendCodePoint(StringBuilder out, int cp, int offset) {
    if (cp <= 0 || cp > Character.MAX_CODE_POINT || (cp >= 0xD800 && cp <= 0xDFFF)) {
      throw new SqlSyntaxException("invalid Unicode escape value", offset);
    }
    if (out != null) {
      out.appendCodePoint(cp);
    }
  }
}
