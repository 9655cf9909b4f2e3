package io.trellara.sink.postgres.ddl;

import io.trellara.sink.postgres.ddl.ReplayableStatement.Refusal;
import io.trellara.sink.postgres.schema.QualifiedName;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Classifies one statement's tokens and finds the objects it touches. Not a SQL grammar: it
 * recognises the replayable commands' leading clauses and the clauses that name other tables, and
 * refuses the rest; the server parses what is accepted.
 */
final class DdlStatementParser {
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

  private static final Set<String> TRANSACTION_CONTROL =
      Set.of("begin", "start", "commit", "end", "rollback", "abort", "savepoint", "release");

  record Parsed(ReplayCommand command, List<QualifiedName> objects) {}

  private final List<Token> t;
  private final String defaultSchema;

  /** Tokens read as object names (a {@code (} after them is no function call). */
  private final BitSet names = new BitSet();

  private final Set<QualifiedName> objects = new LinkedHashSet<>();

  DdlStatementParser(List<Token> statement, String defaultSchema) {
    this.t = statement;
    this.defaultSchema = defaultSchema;
  }

  Parsed parse() {
    ReplayCommand command = classify();
    refuseHazards();
    switch (command) {
      case ALTER_TABLE -> alterTable();
      case CREATE_TABLE -> createTable();
      case DROP_TABLE -> dropTable();
      case CREATE_INDEX -> createIndex();
      case DROP_INDEX -> dropIndex();
      case COMMENT_ON_TABLE, COMMENT_ON_COLUMN -> comment(command);
    }
    refuseFunctionCalls();
    return new Parsed(command, List.copyOf(objects));
  }

  // ---- what command is it
  // ------------------------------------------------------------------------------

  private ReplayCommand classify() {
    String first = kw(0);
    if (TRANSACTION_CONTROL.contains(first)
        || (first.equals("prepare") && kw(1).equals("transaction"))) {
      throw refuse(
          RefusalReason.TRANSACTION_CONTROL,
          upper(0, 2) + " is transaction control; the applier" + " owns the transaction");
    }
    switch (first) {
      case "set", "reset", "discard" ->
          throw refuse(
              RefusalReason.SESSION_SETTING,
              upper(0, 3) + " would change the sink's session for everything applied after it");
      case "do" -> throw refuse(RefusalReason.DO_BLOCK, "DO runs an anonymous code block");
      case "copy" ->
          throw refuse(RefusalReason.COPY, "COPY reads or writes server files and programs");
      case "vacuum" -> throw notTransactional("VACUUM");
      case "call" ->
          throw refuse(
              RefusalReason.UNSUPPORTED_COMMAND,
              "CALL runs a procedure, which may" + " commit and run arbitrary code");
      default -> {}
    }
    String second = kw(1);
    if ((first.equals("create") || first.equals("drop"))
            && (second.equals("database")
                || second.equals("tablespace")
                || second.equals("subscription"))
        || (first.equals("alter") && (second.equals("system") || second.equals("subscription")))
        || (first.equals("reindex") && (second.equals("system") || second.equals("database")))
        || (first.equals("cluster") && t.size() == 1)) {
      throw notTransactional(upper(0, 2));
    }
    for (Token token : t) {
      if (token.isKeyword("concurrently")) {
        throw notTransactional(upper(0, 3) + " ... CONCURRENTLY");
      }
    }
    int i = 1;
    if (first.equals("create")) {
      if (kw(i).equals("unique")) {
        i++;
      }
      if (kw(i).equals("index")) {
        return ReplayCommand.CREATE_INDEX;
      }
      i = 1;
      if (Set.of("temp", "temporary", "global", "local").contains(kw(i))) {
        throw refuse(
            RefusalReason.UNSUPPORTED_COMMAND, "a temporary table ends with the replay session");
      }
      if (kw(i).equals("unlogged")) {
        i++;
      }
      if (kw(i).equals("table")) {
        return ReplayCommand.CREATE_TABLE;
      }
    } else if (first.equals("alter") && second.equals("table")) {
      return ReplayCommand.ALTER_TABLE;
    } else if (first.equals("drop") && second.equals("table")) {
      return ReplayCommand.DROP_TABLE;
    } else if (first.equals("drop") && second.equals("index")) {
      return ReplayCommand.DROP_INDEX;
    } else if (first.equals("comment") && second.equals("on")) {
      if (kw(2).equals("table")) {
        return ReplayCommand.COMMENT_ON_TABLE;
      }
      if (kw(2).equals("column")) {
        return ReplayCommand.COMMENT_ON_COLUMN;
      }
    }
    throw refuse(
        RefusalReason.UNSUPPORTED_COMMAND, upper(0, 3) + "... is not a replayable DDL command");
  }

  /** Constructs refused wherever they appear. */
  private void refuseHazards() {
    for (int i = 0; i < t.size(); i++) {
      Token token = t.get(i);
      switch (token.type()) {
        case PARAMETER ->
            throw refuse(
                RefusalReason.UNPARSABLE,
                "parameter "
                    + token.value()
                    + " at offset "
                    + token.start()
                    + ": nothing binds it on replay");
        case OTHER ->
            throw refuse(
                RefusalReason.UNPARSABLE,
                "unexpected '" + token.value() + "' at offset " + token.start());
        case STRING -> {
          if ((token.stringKind() == StringKind.STANDARD
                  || token.stringKind() == StringKind.NATIONAL)
              && token.value().indexOf('\\') >= 0) {
            throw refuse(
                RefusalReason.UNPARSABLE,
                "a backslash in the string at offset "
                    + token.start()
                    + ": its meaning depends on standard_conforming_strings; use E'' instead");
          }
        }
        case IDENTIFIER, QUOTED_IDENTIFIER -> {
          if (isPunct(i + 1, ".") && reservedSchema(token.value())) {
            throw refuse(
                RefusalReason.OBJECT_NOT_ALLOWED,
                "schema "
                    + token.value()
                    + " (offset "
                    + token.start()
                    + ") is never touched by DDL replay");
          }
          if (token.value().getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
            throw refuse(
                RefusalReason.UNPARSABLE,
                "name at offset "
                    + token.start()
                    + " is longer than "
                    + MAX_NAME_BYTES
                    + " bytes; the server would truncate it");
          }
        }
        default -> {}
      }
    }
    if (reservedSchema(defaultSchema)) {
      throw refuse(
          RefusalReason.OBJECT_NOT_ALLOWED,
          "unqualified names would resolve to schema " + defaultSchema);
    }
  }

  private static boolean reservedSchema(String schema) {
    String s = schema.toLowerCase(Locale.ROOT);
    return s.startsWith("pg_") || s.equals("information_schema") || s.equals("trellara_sink");
  }

  // ---- the replayable commands
  // ----------------------------------------------------------------------------

  /** {@code ALTER TABLE [IF EXISTS] [ONLY] name [*] action [, action]...} */
  private void alterTable() {
    int i = 2;
    if (kw(i).equals("all")) {
      throw refuse(
          RefusalReason.UNSUPPORTED_COMMAND, "ALTER TABLE ALL IN TABLESPACE moves every table");
    }
    i = skipIfExists(i);
    if (kw(i).equals("only")) {
      i++;
    }
    QualifiedName target = objectName(i);
    i = afterName(i);
    if (isOperator(i, "*")) {
      i++;
    }
    if (i >= t.size()) {
      throw refuse(RefusalReason.UNPARSABLE, "ALTER TABLE " + target + " names no action");
    }
    for (int action : actionStarts(i)) {
      String word = kw(action);
      if (word.equals("rename") && kw(action + 1).equals("to")) {
        objects.add(new QualifiedName(target.schema(), name(action + 2)));
      } else if (word.equals("set") && kw(action + 1).equals("schema")) {
        objects.add(new QualifiedName(name(action + 2), target.table()));
      } else if ((word.equals("attach") || word.equals("detach"))
          && kw(action + 1).equals("partition")) {
        objectName(action + 2);
      } else if (word.equals("inherit")) {
        objectName(action + 1);
      } else if (word.equals("no") && kw(action + 1).equals("inherit")) {
        objectName(action + 2);
      }
    }
    references(i);
  }

  /**
   * {@code CREATE [UNLOGGED] TABLE [IF NOT EXISTS] name ( ... ) | PARTITION OF parent ... | OF type
   * ...}
   */
  private void createTable() {
    int i = kw(1).equals("unlogged") ? 3 : 2;
    if (kw(i).equals("if")) {
      expect(i + 1, "not");
      expect(i + 2, "exists");
      i += 3;
    }
    objectName(i);
    i = afterName(i);
    int depth = 0;
    for (int j = i; j < t.size(); j++) {
      if (isPunct(j, "(")) {
        depth++;
        if (depth == 1 && kw(j + 1).equals("like")) {
          objectName(j + 2);
        }
      } else if (isPunct(j, ")")) {
        depth--;
      } else if (depth == 0 && kw(j).equals("as")) {
        throw refuse(RefusalReason.UNSUPPORTED_COMMAND, "CREATE TABLE ... AS runs a query");
      } else if (depth == 1 && isPunct(j, ",") && kw(j + 1).equals("like")) {
        objectName(j + 2);
      } else if (depth == 0 && kw(j).equals("partition") && kw(j + 1).equals("of")) {
        objectName(j + 2);
      } else if (depth == 0 && kw(j).equals("inherits") && isPunct(j + 1, "(")) {
        int k = j + 2;
        while (true) {
          objectName(k);
          k = afterName(k);
          if (!isPunct(k, ",")) {
            break;
          }
          k++;
        }
      }
    }
    references(i);
  }

  /** {@code DROP TABLE [IF EXISTS] name [, ...] [RESTRICT]} */
  private void dropTable() {
    int i = dropList(skipIfExists(2), false);
    dropEnd(i, "DROP TABLE");
  }

  /** {@code DROP INDEX [IF EXISTS] name [, ...] [RESTRICT]}: each checked as (schema, "*"). */
  private void dropIndex() {
    int i = dropList(skipIfExists(2), true);
    dropEnd(i, "DROP INDEX");
  }

  private int dropList(int i, boolean indexes) {
    while (true) {
      QualifiedName n = qualifiedName(i);
      objects.add(indexes ? new QualifiedName(n.schema(), "*") : n);
      i = afterName(i);
      if (!isPunct(i, ",")) {
        return i;
      }
      i++;
    }
  }

  private void dropEnd(int i, String command) {
    if (kw(i).equals("cascade")) {
      throw refuse(
          RefusalReason.OBJECT_NOT_ALLOWED,
          command + " ... CASCADE would drop objects the statement" + " does not name");
    }
    if (kw(i).equals("restrict")) {
      i++;
    }
    if (i < t.size()) {
      throw refuse(
          RefusalReason.UNPARSABLE,
          "unexpected '" + t.get(i).value() + "' after " + command + " names");
    }
  }

  /**
   * {@code CREATE [UNIQUE] INDEX [[IF NOT EXISTS] name] ON [ONLY] table [USING method] (...) ...}
   */
  private void createIndex() {
    int i = kw(1).equals("unique") ? 3 : 2;
    if (kw(i).equals("if")) {
      expect(i + 1, "not");
      expect(i + 2, "exists");
      i += 3;
    }
    if (!kw(i).equals("on")) {
      name(i); // the index name: unqualified, it lands in the table's schema
      names.set(i);
      i++;
    }
    expect(i, "on");
    i++;
    if (kw(i).equals("only")) {
      i++;
    }
    objectName(i);
    i = afterName(i);
    if (kw(i).equals("using")) {
      name(i + 1);
      names.set(i + 1); // the access method, e.g. btree (
    }
  }

  /**
   * {@code COMMENT ON TABLE name IS ...} or {@code COMMENT ON COLUMN [schema.]table.column IS ...}
   */
  private void comment(ReplayCommand command) {
    int i = 3;
    List<String> parts = new ArrayList<>();
    while (true) {
      parts.add(name(i));
      names.set(i);
      i++;
      if (!isPunct(i, ".")) {
        break;
      }
      i++;
    }
    int tableParts = command == ReplayCommand.COMMENT_ON_COLUMN ? parts.size() - 1 : parts.size();
    if (tableParts < 1 || tableParts > 2) {
      throw refuse(
          RefusalReason.UNPARSABLE,
          "COMMENT ON "
              + kw(2).toUpperCase(Locale.ROOT)
              + " needs "
              + (command == ReplayCommand.COMMENT_ON_COLUMN
                  ? "[schema.]table.column"
                  : "[schema.]table"));
    }
    objects.add(
        tableParts == 2
            ? new QualifiedName(parts.get(0), parts.get(1))
            : new QualifiedName(defaultSchema, parts.get(0)));
    expect(i, "is");
    i++;
    if (!(i < t.size() && (t.get(i).type() == TokenType.STRING || kw(i).equals("null")))
        || i + 1 != t.size()) {
      throw refuse(RefusalReason.UNPARSABLE, "COMMENT ON ... IS takes one string or NULL");
    }
  }

  /** {@code REFERENCES other} anywhere names another table (a foreign key locks and reads it). */
  private void references(int from) {
    for (int j = from; j < t.size(); j++) {
      if (kw(j).equals("references")) {
        objectName(j + 1);
      }
    }
  }

  /** Indexes where each comma-separated action of an ALTER TABLE starts. */
  private List<Integer> actionStarts(int from) {
    List<Integer> starts = new ArrayList<>();
    starts.add(from);
    int depth = 0;
    for (int j = from; j < t.size(); j++) {
      if (isPunct(j, "(") || isPunct(j, "[")) {
        depth++;
      } else if (isPunct(j, ")") || isPunct(j, "]")) {
        depth--;
      } else if (depth == 0 && isPunct(j, ",")) {
        starts.add(j + 1);
      }
    }
    return starts;
  }

  /**
   * A function called anywhere runs code on the target while the DDL runs; only a few built-ins may
   * be.
   */
  private void refuseFunctionCalls() {
    for (int j = 0; j + 2 < t.size(); j++) {
      if (kw(j).equals("exclude") && kw(j + 1).equals("using")) {
        names.set(j + 2); // EXCLUDE USING gist ( : an access method, not a call
      }
    }
    for (int i = 0; i + 1 < t.size(); i++) {
      if (!isPunct(i + 1, "(") || names.get(i) || !t.get(i).isName()) {
        continue;
      }
      Token word = t.get(i);
      boolean unquoted = word.type() == TokenType.IDENTIFIER;
      boolean qualified = isPunct(i - 1, ".");
      if (unquoted
          && !qualified
          && (PAREN_KEYWORDS.contains(word.value()) || SAFE_FUNCTIONS.contains(word.value()))) {
        continue;
      }
      throw refuse(
          RefusalReason.OBJECT_NOT_ALLOWED,
          "calls "
              + (qualified ? t.get(i - 2).value() + "." : "")
              + word.value()
              + "() at offset "
              + word.start()
              + ": a function in DDL runs on the target for"
              + " every row; only "
              + SAFE_FUNCTIONS.stream().sorted().toList()
              + " are replayed");
    }
  }

  // ---- names
  // ----------------------------------------------------------------------------------------------

  /** Reads {@code [schema.]name} at {@code i} as a touched table. */
  private QualifiedName objectName(int i) {
    QualifiedName n = qualifiedName(i);
    objects.add(n);
    return n;
  }

  private QualifiedName qualifiedName(int i) {
    String first = name(i);
    names.set(i);
    if (!isPunct(i + 1, ".")) {
      return new QualifiedName(defaultSchema, first);
    }
    String second = name(i + 2);
    names.set(i + 2);
    if (isPunct(i + 3, ".")) {
      throw refuse(
          RefusalReason.UNPARSABLE, "database-qualified name at offset " + t.get(i).start());
    }
    return new QualifiedName(first, second);
  }

  private int afterName(int i) {
    return isPunct(i + 1, ".") ? i + 3 : i + 1;
  }

  private String name(int i) {
    if (i >= t.size() || !t.get(i).isName()) {
      throw refuse(
          RefusalReason.UNPARSABLE,
          "expected a name "
              + (i < t.size()
                  ? "at offset " + t.get(i).start() + ", found '" + t.get(i).value() + "'"
                  : "at the end of the statement"));
    }
    return t.get(i).value();
  }

  // ---- tokens
  // ---------------------------------------------------------------------------------------------

  /** The keyword at {@code i}, or "" when it is not an unquoted identifier (or past the end). */
  private String kw(int i) {
    return i >= 0 && i < t.size() && t.get(i).type() == TokenType.IDENTIFIER
        ? t.get(i).value()
        : "";
  }

  private boolean isPunct(int i, String p) {
    return i >= 0 && i < t.size() && t.get(i).is(TokenType.PUNCTUATION, p);
  }

  private boolean isOperator(int i, String p) {
    return i >= 0 && i < t.size() && t.get(i).is(TokenType.OPERATOR, p);
  }

  private int skipIfExists(int i) {
    if (kw(i).equals("if")) {
      expect(i + 1, "exists");
      return i + 2;
    }
    return i;
  }

  private void expect(int i, String keyword) {
    if (!kw(i).equals(keyword)) {
      throw refuse(
          RefusalReason.UNPARSABLE,
          "expected "
              + keyword.toUpperCase(Locale.ROOT)
              + (i < t.size() ? " at offset " + t.get(i).start() : " at the end of the statement"));
    }
  }

  /** Up to {@code n} leading words, upper case, for messages. */
  private String upper(int from, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = from; i < Math.min(t.size(), from + n); i++) {
      if (t.get(i).type() != TokenType.IDENTIFIER) {
        break;
      }
      sb.append(sb.isEmpty() ? "" : " ").append(t.get(i).value().toUpperCase(Locale.ROOT));
    }
    return sb.isEmpty() ? "'" + t.get(from).value() + "'" : sb.toString();
  }

  private Refusal notTransactional(String what) {
    return refuse(
        RefusalReason.NOT_TRANSACTIONAL, what + " cannot run inside the applier's transaction");
  }

  private static Refusal refuse(RefusalReason reason, String message) {
    return new Refusal(reason, message);
  }
}
