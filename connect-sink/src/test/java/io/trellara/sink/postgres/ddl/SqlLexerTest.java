package io.trellara.sink.postgres.ddl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SqlLexerTest {

  private static List<TokenType> types(String sql) {
    return SqlLexer.tokenize(sql).stream().map(Token::type).toList();
  }

  private static Token only(String sql) {
    List<Token> tokens = SqlLexer.tokenize(sql);
    assertThat(tokens).hasSize(1);
    return tokens.get(0);
  }

  @Test
  void keywordsFoldToLowerCaseAsciiOnlyWhateverTheJvmLocale() {
    List<Token> tokens = SqlLexer.tokenize("ALTER TaBlE IDX Ärger");
    assertThat(tokens).extracting(Token::value).containsExactly("alter", "table", "idx", "Ärger");
    assertThat(tokens.get(0).isKeyword("alter")).isTrue();
  }

  @Test
  void identifiersMayHoldDollarsSoADollarAfterOneIsNoQuote() {
    assertThat(SqlLexer.tokenize("SELECT a$$ ; b$$"))
        .extracting(Token::value)
        .containsExactly("select", "a$$", ";", "b$$");
    assertThat(SqlLexer.countStatements("SELECT a$$ ; b$$")).isEqualTo(2);
  }

  @Test
  void quotedIdentifiersKeepCaseDotsQuotesAndSemicolons() {
    Token t = only("\"My.\"\"Table\"\";\"");
    assertThat(t.type()).isEqualTo(TokenType.QUOTED_IDENTIFIER);
    assertThat(t.value()).isEqualTo("My.\"Table\";");
    assertThat(t.isKeyword("my")).isFalse();
  }

  @Test
  void standardStringsDoubleQuotesAndKeepBackslashes() {
    Token t = only("'it''s \\n'");
    assertThat(t.stringKind()).isEqualTo(StringKind.STANDARD);
    assertThat(t.value()).isEqualTo("it's \\n");
  }

  @Test
  void escapeStringsDecodeBackslashEscapes() {
    Token t = only("E'a\\'b\\\\c\\n\\x41\\101\\u00e9\\U0001F600'");
    assertThat(t.stringKind()).isEqualTo(StringKind.ESCAPE);
    assertThat(t.value()).isEqualTo("a'b\\c\nAAé\uD83D\uDE00");
  }

  @Test
  void escapedQuoteDoesNotEndAnEscapeString() {
    assertThat(types("E'\\';DROP TABLE x;--'")).containsExactly(TokenType.STRING);
  }

  @Test
  void unicodeIdentifiersAndStringsDecodeTheirEscapes() {
    Token ident = only("U&\"d\\0061t\\+000061\"");
    assertThat(ident.type()).isEqualTo(TokenType.QUOTED_IDENTIFIER);
    assertThat(ident.value()).isEqualTo("data");
    Token custom = only("u&'d!0061t!!' UESCAPE '!'");
    assertThat(custom.type()).isEqualTo(TokenType.STRING);
    assertThat(custom.value()).isEqualTo("dat!");
    assertThat(only("U&'\\D83D\\DE00'").value()).isEqualTo("\uD83D\uDE00");
  }

  @Test
  void uAmpersandWithoutAQuoteIsAnIdentifierAndAnOperator() {
    assertThat(types("u & 'x'"))
        .containsExactly(TokenType.IDENTIFIER, TokenType.OPERATOR, TokenType.STRING);
  }

  @Test
  void dollarQuotesFollowPostgresTagRules() {
    Token t = only("$a$ $b$ ; $b$ $a$");
    assertThat(t.stringKind()).isEqualTo(StringKind.DOLLAR);
    assertThat(t.value()).isEqualTo(" $b$ ; $b$ ");
    assertThat(only("$$;$$").value()).isEqualTo(";");
    assertThat(only("$_x9$body$_x9$").value()).isEqualTo("body");
    assertThat(only("$1").type()).isEqualTo(TokenType.PARAMETER);
    assertThat(types("$1;$2"))
        .containsExactly(TokenType.PARAMETER, TokenType.SEMICOLON, TokenType.PARAMETER);
  }

  @Test
  void aDigitCannotStartADollarTag() {
    assertThat(types("$1$ ; $1$"))
        .containsExactly(
            TokenType.PARAMETER,
            TokenType.OTHER,
            TokenType.SEMICOLON,
            TokenType.PARAMETER,
            TokenType.OTHER);
  }

  @Test
  void nestedBlockCommentsAndLineCommentsAreSkipped() {
    assertThat(types("/* nested /* */ ; */ a -- ; b\n c"))
        .containsExactly(TokenType.IDENTIFIER, TokenType.IDENTIFIER);
    assertThat(SqlLexer.countStatements("a /* /* ; */ ; */ b")).isEqualTo(1);
  }

  @Test
  void adjacentLiteralsSeparatedByANewlineAreOneLiteralInTheFirstOnesMode() {
    // the continuation stays an E'' string, so \' ends nothing: one statement, not two
    assertThat(SqlLexer.countStatements("SELECT E'x'\n'\\'; DROP TABLE t; --'")).isEqualTo(1);
    // and there \'' is an escaped quote followed by the closing one
    assertThat(SqlLexer.countStatements("SELECT E'x'\n'\\''; DROP TABLE t; --'")).isEqualTo(2);
    assertThat(only("'a' -- c\n  'b'").value()).isEqualTo("ab");
    assertThat(types("'a' 'b'")).containsExactly(TokenType.STRING, TokenType.STRING);
  }

  @Test
  void operatorsStopWhereACommentStarts() {
    assertThat(SqlLexer.tokenize("a +-- c\n b"))
        .extracting(Token::value)
        .containsExactly("a", "+", "b");
    assertThat(SqlLexer.tokenize("a */* c */ b"))
        .extracting(Token::value)
        .containsExactly("a", "*", "b");
    assertThat(SqlLexer.tokenize("x::int"))
        .extracting(Token::value)
        .containsExactly("x", "::", "int");
  }

  @Test
  void numbersAndBitStrings() {
    assertThat(SqlLexer.tokenize("1 1.5 .5 1e-3 0x1F 1_000"))
        .extracting(Token::type)
        .containsOnly(TokenType.NUMBER)
        .hasSize(6);
    assertThat(only("B'0101'").stringKind()).isEqualTo(StringKind.BIT);
    assertThat(only("X'1F'").stringKind()).isEqualTo(StringKind.HEX);
    assertThat(only("N'x'").stringKind()).isEqualTo(StringKind.NATIONAL);
  }

  @Test
  void tokensKnowWhereTheyAre() {
    List<Token> tokens = SqlLexer.tokenize("  ALTER \"T\"");
    assertThat(tokens.get(0).start()).isEqualTo(2);
    assertThat(tokens.get(0).end()).isEqualTo(7);
    assertThat(tokens.get(1).start()).isEqualTo(8);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "'abc",
        "E'abc\\'",
        "\"abc",
        "$a$ abc $b$",
        "$$",
        "/* abc",
        "/* /* */",
        "U&'x",
        "\"\"",
        "U&\"\"",
        "U&'\\00'",
        "U&'\\D83D'",
        "U&'x' UESCAPE 'ab'",
        "U&'x' UESCAPE '+'",
        "E'\\u12'",
        "B'01",
        "123abc",
        "$1a",
        "1 /* /* */ 2"
      })
  void unterminatedOrMalformedTextIsAnErrorNeverAGuess(String sql) {
    assertThatThrownBy(() -> SqlLexer.tokenize(sql)).isInstanceOf(SqlSyntaxException.class);
  }

  @Test
  void errorsSayWhere() {
    assertThatThrownBy(() -> SqlLexer.tokenize("ALTER TABLE t ADD c text DEFAULT 'x"))
        .isInstanceOfSatisfying(SqlSyntaxException.class, e -> assertThat(e.offset()).isEqualTo(33))
        .hasMessageContaining("unterminated");
  }

  @Test
  void streamingApiComparesKeywordsWithoutValues() {
    SqlLexer lexer = new SqlLexer("Create INDEX");
    assertThat(lexer.next()).isEqualTo(TokenType.IDENTIFIER);
    assertThat(lexer.isKeyword("create")).isTrue();
    assertThat(lexer.isKeyword("creat")).isFalse();
    assertThat(lexer.next()).isEqualTo(TokenType.IDENTIFIER);
    assertThat(lexer.text()).isEqualTo("INDEX");
    assertThat(lexer.next()).isEqualTo(TokenType.EOF);
    assertThat(lexer.next()).isEqualTo(TokenType.EOF);
  }
}
