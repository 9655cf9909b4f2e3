package io.trellara.sink.postgres.ddl;

import java.util.ArrayList;
import java.util.List;

/**
 * Tokenises PostgreSQL SQL the way the server's lexer ({@code scan.l}) does where it matters for
 * statement boundaries: whitespace, {@code --} and nested {@code /* *}{@code /} comments, standard,
 * {@code E}, {@code N}, {@code B}, {@code X} and {@code U&} strings (with the newline continuation
 * of adjacent literals), dollar quotes, quoted and {@code U&} identifiers (with {@code UESCAPE}),
 * identifiers (which may contain {@code $}), numbers, parameters, operators and {@code ;}. Anything
 * unterminated or malformed is a {@link SqlSyntaxException}, never a best guess.
 *
 * <p>Assumes the server reads the text with {@code standard_conforming_strings = on} (the default
 * since 9.1): a backslash in a standard string is then an ordinary character. Callers that cannot
 * be sure refuse standard strings containing a backslash ({@link #hasBackslash()}); the two
 * readings only differ there.
 *
 * <p>Streaming and allocation-free while scanning: {@link #next()} moves to the next token and the
 * accessors describe it; only {@link #value()} / {@link #text()} build strings, on demand.
 */
public final class SqlLexer {
  private final String sql;
  private final int length;
  private int pos;
  private TokenType type;
  private StringKind kind;
  private int start;
  private int end;

  /** For U& tokens: the escape character, and where the literal ends before any UESCAPE clause. */
  private char unicodeEscape;

  private int literalEnd;

  public SqlLexer(String sql) {
    this.sql = sql;
    this.length = sql.length();
  }

  /** Every token of {@code sql} (without the final {@link TokenType#EOF}). */
  public static List<Token> tokenize(String sql) {
    SqlLexer lexer = new SqlLexer(sql);
    List<Token> tokens = new ArrayList<>();
    while (lexer.next() != TokenType.EOF) {
      tokens.add(lexer.token());
    }
    return tokens;
  }

  /**
   * How many non-empty statements the server would see ({@code ;;} and a trailing {@code ;} add
   * none).
   */
  public static int countStatements(String sql) {
    SqlLexer lexer = new SqlLexer(sql);
    int statements = 0;
    boolean inStatement = false;
    for (TokenType t = lexer.next(); t != TokenType.EOF; t = lexer.next()) {
      if (t == TokenType.SEMICOLON) {
        inStatement = false;
      } else if (!inStatement) {
        inStatement = true;
        statements++;
      }
    }
    return statements;
  }

  /**
   * Moves to the next token and returns its type ({@link TokenType#EOF} at the end, and after it).
   */
  public TokenType next() {
    skipWhitespaceAndComments();
    start = pos;
    kind = null;
    if (pos >= length) {
      end = pos;
      return type = TokenType.EOF;
    }
    char c = sql.charAt(pos);
    char c1 = charAt(pos + 1);
    if (c1 == '\'') {
      StringKind prefixed =
          switch (c) {
            case 'e', 'E' -> StringKind.ESCAPE;
            case 'n', 'N' -> StringKind.NATIONAL;
            case 'b', 'B' -> StringKind.BIT;
            case 'x', 'X' -> StringKind.HEX;
            default -> null;
          };
      if (prefixed != null) {
        return string(prefixed, pos + 1);
      }
    }
    if ((c == 'u' || c == 'U')
        && c1 == '&'
        && (charAt(pos + 2) == '\'' || charAt(pos + 2) == '"')) {
      return unicode();
    }
    if (c == '\'') {
      return string(StringKind.STANDARD, pos);
    }
    if (c == '"') {
      end = pos = quotedIdentifierEnd(pos, null);
      return type = TokenType.QUOTED_IDENTIFIER;
    }
    if (c == '$') {
      return dollar();
    }
    if (identStart(c)) {
      int p = pos + 1;
      while (p < length && identCont(sql.charAt(p))) {
        p++;
      }
      end = pos = p;
      return type = TokenType.IDENTIFIER;
    }
    if (isDigit(c) || (c == '.' && isDigit(c1))) {
      return number();
    }
    pos++;
    end = pos;
    switch (c) {
      case ';':
        return type = TokenType.SEMICOLON;
      case ',', '(', ')', '[', ']', '.':
        return type = TokenType.PUNCTUATION;
      case ':':
        if (c1 == ':' || c1 == '=') {
          end = ++pos;
          return type = TokenType.OPERATOR;
        }
        return type = TokenType.PUNCTUATION;
      default:
        if (!opChar(c)) {
          return type = TokenType.OTHER;
        }
        // an operator never swallows the start of a comment
        while (pos < length && opChar(sql.charAt(pos)) && !commentStartsAt(pos)) {
          pos++;
        }
        end = pos;
        return type = TokenType.OPERATOR;
    }
  }

  public TokenType type() {
    return type;
  }

  /** The string token's spelling; null for other tokens. */
  public StringKind stringKind() {
    return kind;
  }

  public int start() {
    return start;
  }

  public int end() {
    return end;
  }

  /** The token exactly as written. */
  public String text() {
    return sql.substring(start, end);
  }

  /** An unquoted identifier equal to {@code lowerCaseWord}, compared without allocating. */
  public boolean isKeyword(String lowerCaseWord) {
    if (type != TokenType.IDENTIFIER || end - start != lowerCaseWord.length()) {
      return false;
    }
    for (int i = 0; i < lowerCaseWord.length(); i++) {
      if (asciiLower(sql.charAt(start + i)) != lowerCaseWord.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** A {@link StringKind#STANDARD} or {@link StringKind#NATIONAL} string with a backslash in it. */
  public boolean hasBackslash() {
    return (kind == StringKind.STANDARD || kind == StringKind.NATIONAL)
        && sql.indexOf('\\', start) >= 0
        && sql.indexOf('\\', start) < end;
  }

  /**
   * Identifiers folded to lower case (ASCII letters only, like the server), quoted identifiers and
   * strings decoded, anything else as written.
   */
  public String value() {
    return switch (type) {
      case IDENTIFIER -> lowerAscii(sql, start, end);
      case QUOTED_IDENTIFIER -> {
        if (sql.charAt(start) == '"') {
          StringBuilder sb = new StringBuilder(end - start);
          quotedIdentifierEnd(start, sb);
          yield sb.toString();
        }
        yield unicodeValue();
      }
      case STRING ->
          switch (kind) {
            case DOLLAR -> {
              int tag = sql.indexOf('$', start + 1) + 1 - start;
              yield sql.substring(start + tag, end - tag);
            }
            case UNICODE -> unicodeValue();
            default -> {
              StringBuilder sb = new StringBuilder(end - start);
              quotedEnd(
                  kind == StringKind.ESCAPE
                          || kind == StringKind.BIT
                          || kind == StringKind.HEX
                          || kind == StringKind.NATIONAL
                      ? start + 1
                      : start,
                  kind,
                  sb);
              yield sb.toString();
            }
          };
      default -> text();
    };
  }

  /** The current token as a record. */
  public Token token() {
    return new Token(type, kind, value(), start, end);
  }

  // ---- strings
  // ------------------------------------------------------------------------------------------

  private TokenType string(StringKind k, int quote) {
    kind = k;
    end = pos = quotedEnd(quote, k, null);
    return type = TokenType.STRING;
  }

  /**
   * Scans a quoted literal whose opening quote is at {@code quote}, through any continuation
   * ({@code 'a'<newline>'b'} is one literal); returns the index after it. Appends the decoded body
   * to {@code out} when given (for U&amp; literals the body is undecoded: unicode escapes are
   * applied later).
   */
  private int quotedEnd(int quote, StringKind k, StringBuilder out) {
    boolean doubling = k != StringKind.BIT && k != StringKind.HEX;
    int p = quote + 1;
    while (true) {
      if (p >= length) {
        throw new SqlSyntaxException("unterminated " + describe(k) + " string", start);
      }
      char ch = sql.charAt(p);
      if (ch == '\'') {
        if (doubling && charAt(p + 1) == '\'') {
          append(out, '\'');
          p += 2;
          continue;
        }
        int next = continuation(p + 1);
        if (next < 0) {
          return p + 1;
        }
        p = next + 1;
      } else if (ch == '\\' && k == StringKind.ESCAPE) {
        p = escape(p, out);
      } else {
        append(out, ch);
        p++;
      }
    }
  }

  /**
   * After a closing quote: whitespace containing a newline ({@code --} comments count as
   * whitespace) followed by a quote continues the literal ({@code quotecontinue} in scan.l);
   * returns that quote's index or -1.
   */
  private int continuation(int p) {
    while (p < length && (sql.charAt(p) == ' ' || sql.charAt(p) == '\t' || sql.charAt(p) == '\f')) {
      p++;
    }
    if (charAt(p) == '-'
        && charAt(p + 1) == '-') { // a line comment is horizontal whitespace up to its newline
      while (p < length && sql.charAt(p) != '\n' && sql.charAt(p) != '\r') {
        p++;
      }
    }
    if (p >= length || (sql.charAt(p) != '\n' && sql.charAt(p) != '\r')) {
      return -1;
    }
    p++;
    while (p < length) {
      char ch = sql.charAt(p);
      if (isSpace(ch)) {
        p++;
      } else if (ch == '-' && charAt(p + 1) == '-') {
        while (p < length && sql.charAt(p) != '\n' && sql.charAt(p) != '\r') {
          p++;
        }
        if (p >= length) {
          return -1;
        }
      } else {
        break;
      }
    }
    return charAt(p) == '\'' ? p : -1;
  }

  /** A backslash escape of an E'' string at {@code p}; returns the index after it. */
  private int escape(int p, StringBuilder out) {
    char e = charAt(p + 1);
    if (p + 1 >= length) {
      throw new SqlSyntaxException("unterminated escape string", start);
    }
    switch (e) {
      case 'b' -> append(out, '\b');
      case 'f' -> append(out, '\f');
      case 'n' -> append(out, '\n');
      case 'r' -> append(out, '\r');
      case 't' -> append(out, '\t');
      case 'x' -> {
        int q = p + 2;
        int v = 0;
        while (q < p + 4 && hexValue(charAt(q)) >= 0) {
          v = v * 16 + hexValue(charAt(q++));
        }
        if (q == p + 2) {
          append(out, 'x');
          return p + 2;
        }
        append(out, (char) v);
        return q;
      }
      case 'u', 'U' -> {
        int digits = e == 'u' ? 4 : 8;
        int cp = hex(p + 2, digits, "invalid Unicode escape in escape string");
        int q = p + 2 + digits;
        if (Character.isHighSurrogate((char) cp) && cp <= 0xFFFF) {
          if (charAt(q) != '\\' || (charAt(q + 1) != 'u' && charAt(q + 1) != 'U')) {
            throw new SqlSyntaxException("invalid Unicode surrogate pair", p);
          }
          int lowDigits = charAt(q + 1) == 'u' ? 4 : 8;
          int low = hex(q + 2, lowDigits, "invalid Unicode escape in escape string");
          if (!Character.isLowSurrogate((char) low) || low > 0xFFFF) {
            throw new SqlSyntaxException("invalid Unicode surrogate pair", p);
          }
          cp = Character.toCodePoint((char) cp, (char) low);
          q += 2 + lowDigits;
        }
        appendCodePoint(out, cp, p);
        return q;
      }
      default -> {
        if (e >= '0' && e <= '7') {
          int q = p + 1;
          int v = 0;
          while (q < p + 4 && charAt(q) >= '0' && charAt(q) <= '7') {
            v = v * 8 + (charAt(q++) - '0');
          }
          append(out, (char) (v & 0xFF));
          return q;
        }
        append(out, e);
      }
    }
    return p + 2;
  }

  private TokenType unicode() {
    char quote = sql.charAt(pos + 2);
    literalEnd =
        quote == '"'
            ? quotedIdentifierEnd(pos + 2, null)
            : quotedEnd(pos + 2, StringKind.UNICODE, null);
    unicodeEscape = '\\';
    end = pos = uescapeClauseEnd(literalEnd);
    if (quote == '"') {
      type = TokenType.QUOTED_IDENTIFIER;
    } else {
      type = TokenType.STRING;
      kind = StringKind.UNICODE;
    }
    String decoded = unicodeValue(); // the server rejects bad escapes while lexing; so do we
    if (decoded.isEmpty() && type == TokenType.QUOTED_IDENTIFIER) {
      throw new SqlSyntaxException("zero-length delimited identifier", start);
    }
    return type;
  }

  /**
   * {@code UESCAPE 'c'} after a U&amp; literal: sets the escape and returns the index after the
   * clause.
   */
  private int uescapeClauseEnd(int p) {
    int q = skipWhitespaceAndComments(p);
    if (!wordAt(q, "uescape")) {
      return p;
    }
    q = skipWhitespaceAndComments(q + "uescape".length());
    if (charAt(q) != '\''
        || q + 2 >= length
        || sql.charAt(q + 2) != '\''
        || charAt(q + 3) == '\''
        || continuation(q + 3) >= 0) {
      throw new SqlSyntaxException("UESCAPE must be followed by a simple string literal", q);
    }
    char e = sql.charAt(q + 1);
    if (hexValue(e) >= 0 || e == '+' || e == '\'' || e == '"' || isSpace(e)) {
      throw new SqlSyntaxException("invalid Unicode escape character", q);
    }
    unicodeEscape = e;
    return q + 3;
  }

  private String unicodeValue() {
    StringBuilder raw = new StringBuilder(literalEnd - start);
    if (sql.charAt(start + 2) == '"') {
      quotedIdentifierEnd(start + 2, raw);
    } else {
      quotedEnd(start + 2, StringKind.UNICODE, raw);
    }
    StringBuilder out = new StringBuilder(raw.length());
    char esc = unicodeEscape;
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
        cp = hex(raw, i + 2, 6);
        i += 8;
      } else {
        cp = hex(raw, i + 1, 4);
        i += 5;
      }
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        int low =
            i < raw.length() && raw.charAt(i) == esc
                ? (i + 1 < raw.length() && raw.charAt(i + 1) == '+'
                    ? hex(raw, i + 2, 6)
                    : hex(raw, i + 1, 4))
                : -1;
        if (low < 0xDC00 || low > 0xDFFF) {
          throw new SqlSyntaxException("invalid Unicode surrogate pair", start);
        }
        i += raw.charAt(i + 1) == '+' ? 8 : 5;
        cp = Character.toCodePoint((char) cp, (char) low);
      }
      appendCodePoint(out, cp, start);
    }
    return out.toString();
  }

  private int hex(CharSequence s, int from, int digits) {
    int v = 0;
    for (int i = from; i < from + digits; i++) {
      int h = i < s.length() ? hexValue(s.charAt(i)) : -1;
      if (h < 0) {
        throw new SqlSyntaxException("invalid Unicode escape", start);
      }
      v = v * 16 + h;
    }
    return v;
  }

  private int hex(int from, int digits, String error) {
    long v = 0;
    for (int i = from; i < from + digits; i++) {
      int h = hexValue(charAt(i));
      if (h < 0) {
        throw new SqlSyntaxException(error, from - 2);
      }
      v = v * 16 + h;
    }
    return v > Character.MAX_CODE_POINT ? -1 : (int) v;
  }

  private static void appendCodePoint(StringBuilder out, int cp, int offset) {
    if (cp <= 0 || cp > Character.MAX_CODE_POINT || (cp >= 0xD800 && cp <= 0xDFFF)) {
      throw new SqlSyntaxException("invalid Unicode escape value", offset);
    }
    if (out != null) {
      out.appendCodePoint(cp);
    }
  }

  /**
   * Scans {@code "..."} ({@code ""} for a quote) from the quote at {@code quote}; returns the index
   * after it.
   */
  private int quotedIdentifierEnd(int quote, StringBuilder out) {
    int p = quote + 1;
    boolean empty = true;
    while (true) {
      if (p >= length) {
        throw new SqlSyntaxException("unterminated quoted identifier", start);
      }
      char ch = sql.charAt(p);
      if (ch == '"') {
        if (charAt(p + 1) != '"') {
          break;
        }
        p++;
      }
      append(out, ch);
      empty = false;
      p++;
    }
    if (empty) {
      throw new SqlSyntaxException("zero-length delimited identifier", start);
    }
    return p + 1;
  }

  private TokenType dollar() {
    int p = pos + 1;
    if (isDigit(charAt(p))) {
      while (isDigit(charAt(p))) {
        p++;
      }
      if (identStart(charAt(p))) {
        throw new SqlSyntaxException("trailing junk after parameter", pos);
      }
      end = pos = p;
      return type = TokenType.PARAMETER;
    }
    if (identStart(charAt(p))) { // a tag never starts with a digit, and never holds a '$'
      while (identStart(charAt(p)) || isDigit(charAt(p))) {
        p++;
      }
    }
    if (charAt(p) != '$') {
      end = ++pos; // the server passes a lone '$' on as itself (and the grammar rejects it)
      return type = TokenType.OTHER;
    }
    String tag = sql.substring(pos, p + 1);
    int close = sql.indexOf(tag, p + 1);
    if (close < 0) {
      throw new SqlSyntaxException("unterminated dollar-quoted string " + tag, pos);
    }
    kind = StringKind.DOLLAR;
    end = pos = close + tag.length();
    return type = TokenType.STRING;
  }

  private TokenType number() {
    int p = pos;
    char c1 = charAt(p + 1);
    if (sql.charAt(p) == '0'
        && (c1 == 'x' || c1 == 'X' || c1 == 'o' || c1 == 'O' || c1 == 'b' || c1 == 'B')) {
      int radix = c1 == 'x' || c1 == 'X' ? 16 : c1 == 'o' || c1 == 'O' ? 8 : 2;
      int q = p + 2;
      while (Character.digit(charAt(q), radix) >= 0
          || (charAt(q) == '_' && Character.digit(charAt(q + 1), radix) >= 0)) {
        q++;
      }
      if (q > p + 2) {
        p = q;
        return numberEnd(p);
      }
    }
    p = digits(p);
    if (charAt(p) == '.' && charAt(p + 1) != '.') {
      p = digits(p + 1);
    }
    char e = charAt(p);
    if (e == 'e' || e == 'E') {
      int q = p + 1;
      if (charAt(q) == '+' || charAt(q) == '-') {
        q++;
      }
      if (isDigit(charAt(q))) {
        p = digits(q);
      }
    }
    return numberEnd(p);
  }

  private TokenType numberEnd(int p) {
    if (identStart(charAt(p))) {
      throw new SqlSyntaxException("trailing junk after numeric literal", start);
    }
    end = pos = p;
    return type = TokenType.NUMBER;
  }

  private int digits(int p) {
    while (isDigit(charAt(p)) || (charAt(p) == '_' && isDigit(charAt(p + 1)))) {
      p++;
    }
    return p;
  }

  // ---- whitespace and comments
  // ---------------------------------------------------------------------------

  private void skipWhitespaceAndComments() {
    pos = skipWhitespaceAndComments(pos);
  }

  private int skipWhitespaceAndComments(int p) {
    while (p < length) {
      char ch = sql.charAt(p);
      if (isSpace(ch)) {
        p++;
      } else if (ch == '-' && charAt(p + 1) == '-') {
        while (p < length && sql.charAt(p) != '\n' && sql.charAt(p) != '\r') {
          p++;
        }
      } else if (ch == '/' && charAt(p + 1) == '*') {
        p = blockCommentEnd(p);
      } else {
        break;
      }
    }
    return p;
  }

  /** Block comments nest, as in the SQL standard and PostgreSQL. */
  private int blockCommentEnd(int open) {
    int depth = 1;
    int p = open + 2;
    while (depth > 0) {
      if (p >= length) {
        throw new SqlSyntaxException("unterminated /* comment", open);
      }
      char ch = sql.charAt(p);
      if (ch == '/' && charAt(p + 1) == '*') {
        depth++;
        p += 2;
      } else if (ch == '*' && charAt(p + 1) == '/') {
        depth--;
        p += 2;
      } else {
        p++;
      }
    }
    return p;
  }

  private boolean commentStartsAt(int p) {
    char ch = sql.charAt(p);
    return (ch == '-' && charAt(p + 1) == '-') || (ch == '/' && charAt(p + 1) == '*');
  }

  // ---- characters
  // -------------------------------------------------------------------------------------------

  private char charAt(int i) {
    return i < length ? sql.charAt(i) : '\0';
  }

  private boolean wordAt(int p, String lowerCaseWord) {
    int n = lowerCaseWord.length();
    if (p + n > length || (p + n < length && identCont(sql.charAt(p + n)))) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (asciiLower(sql.charAt(p + i)) != lowerCaseWord.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private static void append(StringBuilder out, char ch) {
    if (out != null) {
      out.append(ch);
    }
  }

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

  private static boolean isDigit(char ch) {
    return ch >= '0' && ch <= '9';
  }

  private static boolean opChar(char ch) {
    return "~!@#^&|`?+-*/%<>=".indexOf(ch) >= 0;
  }

  private static int hexValue(char ch) {
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

  private static char asciiLower(char ch) {
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
