package io.trellara.sink.postgres.ddl;

import io.trellara.sink.postgres.ddl.ReplayableStatement.Refusal;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/**
 * Constructs refused wherever they appear in a statement, whatever the command: {@code CASCADE}, a
 * parameter, a character the grammar rejects, a standard string holding a backslash, a reserved
 * schema, a name the server would truncate, and a function call other than a few built-ins. They
 * are checked token by token rather than per clause because the gate is no SQL grammar: a clause it
 * does not know must not hide one of them.
 */
final class StatementHazards {
  /** The server truncates longer names (NAMEDATALEN - 1 bytes). */
  private static final int MAX_NAME_BYTES = 63;

  /**
   * Words a {@code (} may follow without being a function call: clauses, expression keywords, type
   * names.
   */
  private static final Set<String> PAREN_KEYWORDS =
      Set.of(
          "key",
          "unique",
          "check",
          "include",
          "exclude",
          "where",
          "with",
          "as",
          "default",
          "in",
          "from",
          "to",
          "values",
          "range",
          "list",
          "hash",
          "inherits",
          "identity",
          "distinct",
          "null",
          "set",
          "reset",
          "by",
          "using",
          "and",
          "or",
          "not",
          "any",
          "all",
          "some",
          "between",
          "like",
          "ilike",
          "when",
          "then",
          "else",
          "is",
          "cast",
          "varchar",
          "char",
          "character",
          "varying",
          "nchar",
          "numeric",
          "decimal",
          "dec",
          "bit",
          "varbit",
          "time",
          "timetz",
          "timestamp",
          "timestamptz",
          "interval",
          "second",
          "float",
          "bpchar");

  /**
   * Unqualified built-ins a DEFAULT or index expression may call: no side effect, no object access.
   */
  private static final Set<String> SAFE_FUNCTIONS =
      Set.of(
          "now",
          "clock_timestamp",
          "statement_timestamp",
          "transaction_timestamp",
          "current_timestamp",
          "current_time",
          "localtimestamp",
          "localtime",
          "gen_random_uuid",
          "lower",
          "upper",
          "length",
          "char_length",
          "abs",
          "coalesce",
          "nullif",
          "greatest",
          "least",
          "btrim",
          "trim");

  private StatementHazards() {}

  /** Every token's own hazards, and a default schema replay must never write to. */
  static void refuseTokens(StatementTokens t, String defaultSchema) {
    for (int i = 0; i < t.size(); i++) {
      refuseToken(t, i);
    }
    if (reservedSchema(defaultSchema)) {
      throw new Refusal(
          RefusalReason.OBJECT_NOT_ALLOWED,
          "unqualified names would resolve to schema " + defaultSchema);
    }
  }

  private static void refuseToken(StatementTokens t, int i) {
    Token token = t.get(i);
    switch (token.type()) {
      case PARAMETER ->
          throw new Refusal(
              RefusalReason.UNPARSABLE,
              "parameter "
                  + token.value()
                  + " at offset "
                  + token.start()
                  + ": nothing binds it on replay");
      case OTHER ->
          throw new Refusal(
              RefusalReason.UNPARSABLE,
              "unexpected '" + token.value() + "' at offset " + token.start());
      case STRING -> {
        if ((token.stringKind() == StringKind.STANDARD || token.stringKind() == StringKind.NATIONAL)
            && token.value().indexOf('\\') >= 0) {
          throw new Refusal(
              RefusalReason.UNPARSABLE,
              "a backslash in the string at offset "
                  + token.start()
                  + ": its meaning depends on standard_conforming_strings; use E'' instead");
        }
      }
      case IDENTIFIER, QUOTED_IDENTIFIER -> {
        if (t.keyword(i).equals("cascade")) {
          throw new Refusal(
              RefusalReason.OBJECT_NOT_ALLOWED,
              "CASCADE at offset "
                  + token.start()
                  + " reaches objects the statement does not name (other tables' constraints,"
                  + " views, columns), which the allowlist never saw");
        }
        refuseName(t, i);
      }
      default -> {}
    }
  }

  /**
   * A reserved schema as a qualifier, and a name longer than the server keeps: it would truncate it
   * to a name the allowlist never saw.
   */
  private static void refuseName(StatementTokens t, int i) {
    Token token = t.get(i);
    if (t.isPunct(i + 1, ".") && reservedSchema(token.value())) {
      throw new Refusal(
          RefusalReason.OBJECT_NOT_ALLOWED,
          "schema "
              + token.value()
              + " (offset "
              + token.start()
              + ") is never touched by DDL replay");
    }
    if (token.value().getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
      throw new Refusal(
          RefusalReason.UNPARSABLE,
          "name at offset "
              + token.start()
              + " is longer than "
              + MAX_NAME_BYTES
              + " bytes; the server would truncate it");
    }
  }

  private static boolean reservedSchema(String schema) {
    String s = schema.toLowerCase(Locale.ROOT);
    return s.startsWith("pg_") || s.equals("information_schema") || s.equals("trellara_sink");
  }

  /**
   * A function called anywhere runs code on the target while the DDL runs; only a few built-ins may
   * be. Runs after the command's grammar, which has marked the tokens it read as names: a {@code (}
   * after a table or an access method opens no call.
   */
  static void refuseFunctionCalls(StatementTokens t, ObjectNames names) {
    for (int j = 0; j + 2 < t.size(); j++) {
      if (t.keyword(j).equals("exclude") && t.keyword(j + 1).equals("using")) {
        names.markName(j + 2); // EXCLUDE USING gist ( : an access method, not a call
      }
    }
    for (int i = 0; i + 1 < t.size(); i++) {
      if (!t.isPunct(i + 1, "(") || names.isName(i) || !t.get(i).isName()) {
        continue;
      }
      Token word = t.get(i);
      boolean unquoted = word.type() == TokenType.IDENTIFIER;
      boolean qualified = t.isPunct(i - 1, ".");
      if (unquoted
          && !qualified
          && (PAREN_KEYWORDS.contains(word.value()) || SAFE_FUNCTIONS.contains(word.value()))) {
        continue;
      }
      throw new Refusal(
          RefusalReason.OBJECT_NOT_ALLOWED,
          "calls "
              + (qualified ? t.get(i - 2).value() + "." : "")
              + word.value()
              + "() at offset "
              + word.start()
              + ": a function in DDL runs on the target for every row; only "
              + SAFE_FUNCTIONS.stream().sorted().toList()
              + " are replayed");
    }
  }
}
