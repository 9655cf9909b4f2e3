package io.trellara.sink.postgres.ddl;

import static io.trellara.sink.postgres.ddl.SqlCharacters.asciiLower;
import static io.trellara.sink.postgres.ddl.SqlCharacters.commentStartsAt;
import static io.trellara.sink.postgres.ddl.SqlCharacters.hexValue;
import static io.trellara.sink.postgres.ddl.SqlCharacters.identCont;
import static io.trellara.sink.postgres.ddl.SqlCharacters.identStart;
import static io.trellara.sink.postgres.ddl.SqlCharacters.isDigit;
import static io.trellara.sink.postgres.ddl.SqlCharacters.isSpace;
import static io.trellara.sink.postgres.ddl.SqlCharacters.lowerAscii;
import static io.trellara.sink.postgres.ddl.SqlCharacters.opChar;
import static io.trellara.sink.postgres.ddl.SqlCharacters.skipWhitespaceAndComments;

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
 *
 * <p>This class is the cursor: it decides from a token's first characters what the token is and
 * keeps where it lies. The scans it dispatches to are pure functions of the text and an index:
 * {@link QuotedTokens} (strings, quoted names, dollar quotes), {@link EscapeSequences} (what E''
 * and U&amp; escapes mean), {@link NumericLiterals}, and {@link SqlCharacters} (character classes,
 * spaces and comments).
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
    pos = skipWhitespaceAndComments(sql, pos);
    start = pos;
    kind = null;
    if (pos >= length) {
      end = pos;
      return type = TokenType.EOF;
    }
    char c = sql.charAt(pos);
    char c1 = charAt(pos + 1);
    if (c1 == '\'') {
      StringKind prefixed = stringPrefix(c);
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
      end = pos = QuotedTokens.identifierEnd(sql, pos, start, null);
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
      end = pos = NumericLiterals.end(sql, pos);
      return type = TokenType.NUMBER;
    }
    return operatorOrPunctuation(c, c1);
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
      case QUOTED_IDENTIFIER ->
          sql.charAt(start) == '"' ? QuotedTokens.identifierBody(sql, start, end) : unicodeValue();
      case STRING ->
          switch (kind) {
            case DOLLAR -> QuotedTokens.dollarBody(sql, start, end);
            case UNICODE -> unicodeValue();
            default -> QuotedTokens.stringBody(sql, start, end, kind);
          };
      default -> text();
    };
  }

  /** The current token as a record. */
  public Token token() {
    return new Token(type, kind, value(), start, end);
  }

  // ---- what a token's first characters start
  // -----------------------------------------------------------

  /** The kind of string a letter before a quote makes ({@code E'}, {@code N'}...), or null. */
  private static StringKind stringPrefix(char c) {
    return switch (c) {
      case 'e', 'E' -> StringKind.ESCAPE;
      case 'n', 'N' -> StringKind.NATIONAL;
      case 'b', 'B' -> StringKind.BIT;
      case 'x', 'X' -> StringKind.HEX;
      default -> null;
    };
  }

  private TokenType string(StringKind k, int quote) {
    kind = k;
    end = pos = QuotedTokens.stringEnd(sql, quote, k, start, null);
    return type = TokenType.STRING;
  }

  /** {@code $1} is a parameter, {@code $tag$} opens a dollar quote, any other {@code $} itself. */
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
    int tagEnd = QuotedTokens.dollarTagEnd(sql, pos);
    if (tagEnd < 0) {
      end = ++pos; // the server passes a lone '$' on as itself (and the grammar rejects it)
      return type = TokenType.OTHER;
    }
    kind = StringKind.DOLLAR;
    end = pos = QuotedTokens.dollarQuoteEnd(sql, pos, tagEnd);
    return type = TokenType.STRING;
  }

  private TokenType operatorOrPunctuation(char c, char c1) {
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
        while (pos < length && opChar(sql.charAt(pos)) && !commentStartsAt(sql, pos)) {
          pos++;
        }
        end = pos;
        return type = TokenType.OPERATOR;
    }
  }

  // ---- U& strings and identifiers
  // ----------------------------------------------------------------------

  private TokenType unicode() {
    char quote = sql.charAt(pos + 2);
    literalEnd =
        quote == '"'
            ? QuotedTokens.identifierEnd(sql, pos + 2, start, null)
            : QuotedTokens.stringEnd(sql, pos + 2, StringKind.UNICODE, start, null);
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
   * clause. The clause is part of the token, as in the server: it changes what the literal's
   * escapes mean.
   */
  private int uescapeClauseEnd(int p) {
    int q = skipWhitespaceAndComments(sql, p);
    if (!wordAt(q, "uescape")) {
      return p;
    }
    q = skipWhitespaceAndComments(sql, q + "uescape".length());
    if (charAt(q) != '\''
        || q + 2 >= length
        || sql.charAt(q + 2) != '\''
        || charAt(q + 3) == '\''
        || QuotedTokens.continuation(sql, q + 3) >= 0) {
      throw new SqlSyntaxException("UESCAPE must be followed by a simple string literal", q);
    }
    char e = sql.charAt(q + 1);
    if (hexValue(e) >= 0 || e == '+' || e == '\'' || e == '"' || isSpace(e)) {
      throw new SqlSyntaxException("invalid Unicode escape character", q);
    }
    unicodeEscape = e;
    return q + 3;
  }

  /** The current U&amp; token's body, undoubled by its quote rules, then its escapes applied. */
  private String unicodeValue() {
    StringBuilder raw = new StringBuilder(literalEnd - start);
    if (sql.charAt(start + 2) == '"') {
      QuotedTokens.identifierEnd(sql, start + 2, start, raw);
    } else {
      QuotedTokens.stringEnd(sql, start + 2, StringKind.UNICODE, start, raw);
    }
    return EscapeSequences.decodeUnicode(raw, unicodeEscape, start);
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
}
