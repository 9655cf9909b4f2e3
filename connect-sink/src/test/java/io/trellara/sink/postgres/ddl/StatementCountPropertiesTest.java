package io.trellara.sink.postgres.ddl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random statements of tokens that hide {@code ;} and comment starts inside quotes, joined with
 * random whitespace and comments: the lexer counts exactly the non-empty top-level statements.
 */
class StatementCountPropertiesTest {

  /** A script and how many non-empty statements it was built from. */
  record Script(String sql, int statements) {}

  private static final List<String> TOKENS =
      List.of(
          "alter",
          "TABLE",
          "t",
          "a$$",
          "x1",
          "Ärger",
          "\"a;b\"",
          "\"q\"\"; --\"",
          "'x;y'",
          "'it''s; /*'",
          "E'\\';'",
          "e'\\\\'",
          "$q$ ; $r$ ; $q$",
          "$$;--$$",
          "$_$/*$_$",
          "U&\"d\\0061;\"",
          "U&'!0061;' UESCAPE '!'/**/",
          "B'01'",
          "X'1F'",
          "42",
          "1.5e3",
          "$1",
          "+",
          "::",
          "<>",
          "(",
          ")",
          ",",
          ".",
          "[",
          "]");
  // the /**/ stops a following newline-and-quote from continuing the one-character escape literal
  private static final List<String> GAPS =
      List.of(" ", "\n", "\t", "  \r\n", "/* ; */", "/* /* ; */ ; */", "-- ; '\n", " /**/ ");

  @Provide
  Arbitrary<Script> scripts() {
    Arbitrary<String> gap =
        Arbitraries.of(GAPS).list().ofMinSize(1).ofMaxSize(3).map(g -> String.join("", g));
    Arbitrary<List<String>> statement = Arbitraries.of(TOKENS).list().ofMinSize(0).ofMaxSize(8);
    return Combinators.combine(statement.list().ofMinSize(0).ofMaxSize(6), gap.list().ofSize(64))
        .as(
            (statements, gaps) -> {
              StringBuilder sql = new StringBuilder();
              int g = 0;
              int nonEmpty = 0;
              for (int s = 0; s < statements.size(); s++) {
                if (s > 0) {
                  sql.append(gaps.get(g++ % gaps.size())).append(';');
                }
                List<String> tokens = statements.get(s);
                nonEmpty += tokens.isEmpty() ? 0 : 1;
                for (String token : tokens) {
                  sql.append(gaps.get(g++ % gaps.size())).append(token);
                }
              }
              return new Script(sql.append(gaps.get(g % gaps.size())).toString(), nonEmpty);
            });
  }

  @Property(tries = 500)
  void countsTheNonEmptyTopLevelStatements(@ForAll("scripts") Script script) {
    assertThat(SqlLexer.countStatements(script.sql()))
        .as(script.sql())
        .isEqualTo(script.statements());
  }

  @Property(tries = 300)
  void aSingleStatementPassesTheGateSplitOrIsRefusedForSomethingElse(
      @ForAll("scripts") Script script) {
    ReplayableStatement verdict = ReplayableStatement.check(script.sql(), "public", n -> true);
    if (script.statements() > 1) {
      assertThat(verdict.refusal()).isEqualTo(RefusalReason.MULTIPLE_STATEMENTS);
    } else {
      assertThat(verdict.refusal()).isNotEqualTo(RefusalReason.MULTIPLE_STATEMENTS);
    }
  }
}
