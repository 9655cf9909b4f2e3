package io.trellara.sink.postgres.ddl;

import io.trellara.sink.postgres.ddl.ReplayableStatement.Refusal;
import io.trellara.sink.postgres.names.QualifiedName;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Classifies one statement's tokens and finds the objects it touches. Not a SQL grammar: it
 * recognises the replayable commands' leading clauses and the clauses that name other tables, and
 * refuses the rest; the server parses what is accepted. An allowlist at each level: the commands
 * ({@link CommandClassifier}), the actions of ALTER TABLE ({@link #ALTER_ACTIONS}) and the clauses
 * after CREATE TABLE's column list; anything not on it is refused, whatever it is.
 *
 * <p>The order of {@link #parse()} is the gate's: what the command is ({@link CommandClassifier}),
 * then what is refused anywhere ({@link StatementHazards}), then the command's own clauses (here,
 * resolving names with {@link ObjectNames}), and last the function calls, which can only be told
 * from a table's column list once the clauses have marked which tokens are names.
 */
final class DdlStatementParser {
  record Parsed(ReplayCommand command, List<QualifiedName> objects) {}

  /**
   * The ALTER TABLE actions replay runs, each followed by what the server parses. Not on it, so
   * refused: trigger, rule and replica-role switches ({@code DISABLE/ENABLE TRIGGER|RULE}, {@code
   * ENABLE REPLICA|ALWAYS}), row level security, {@code OWNER TO}, {@code SET SCHEMA}, {@code SET
   * TABLESPACE}, {@code INHERIT}, {@code NO INHERIT}, {@code ATTACH/DETACH PARTITION}, {@code OF},
   * {@code CLUSTER ON}, {@code SET LOGGED/UNLOGGED}, storage and identity options.
   */
  static final List<String> ALTER_ACTIONS =
      List.of(
          "ADD [COLUMN] ...",
          "ADD [CONSTRAINT name] CHECK|UNIQUE|PRIMARY KEY|FOREIGN KEY|EXCLUDE ...",
          "DROP [COLUMN] ...",
          "DROP CONSTRAINT ...",
          "ALTER [COLUMN] c [SET DATA] TYPE ...",
          "ALTER [COLUMN] c SET|DROP DEFAULT",
          "ALTER [COLUMN] c SET|DROP NOT NULL",
          "ALTER CONSTRAINT ...",
          "VALIDATE CONSTRAINT ...",
          "RENAME ...",
          "REPLICA IDENTITY ...");

  private final StatementTokens t;
  private final String defaultSchema;
  private final ObjectNames names;

  DdlStatementParser(List<Token> statement, String defaultSchema) {
    this.t = new StatementTokens(statement);
    this.defaultSchema = defaultSchema;
    this.names = new ObjectNames(t, defaultSchema);
  }

  Parsed parse() {
    ReplayCommand command = CommandClassifier.classify(t);
    StatementHazards.refuseTokens(t, defaultSchema);
    switch (command) {
      case ALTER_TABLE -> alterTable();
      case CREATE_TABLE -> createTable();
      case DROP_TABLE -> dropTable();
      case CREATE_INDEX -> createIndex();
      case DROP_INDEX -> dropIndex();
      case COMMENT_ON_TABLE, COMMENT_ON_COLUMN -> comment(command);
    }
    StatementHazards.refuseFunctionCalls(t, names);
    return new Parsed(command, names.touched());
  }

  // ---- ALTER TABLE
  // ---------------------------------------------------------------------------------------

  /** {@code ALTER TABLE [IF EXISTS] [ONLY] name [*] action [, action]...} */
  private void alterTable() {
    int i = 2;
    if (t.keyword(i).equals("all")) {
      throw new Refusal(
          RefusalReason.UNSUPPORTED_COMMAND, "ALTER TABLE ALL IN TABLESPACE moves every table");
    }
    i = t.skipIfExists(i);
    if (t.keyword(i).equals("only")) {
      i++;
    }
    QualifiedName target = names.touchTable(i);
    i = names.afterName(i);
    if (t.isOperator(i, "*")) {
      i++;
    }
    if (i >= t.size()) {
      throw new Refusal(RefusalReason.UNPARSABLE, "ALTER TABLE " + target + " names no action");
    }
    for (int action : actionStarts(i)) {
      alterTableAction(target, action);
    }
    references(i);
  }

  /**
   * One action, refused unless it is on {@link #ALTER_ACTIONS}; a rename touches the name it lands
   * on.
   */
  private void alterTableAction(QualifiedName target, int action) {
    String word = t.keyword(action);
    String next = t.keyword(action + 1);
    boolean allowed =
        switch (word) {
          case "add", "drop", "rename" -> true;
          case "validate" -> next.equals("constraint");
          case "replica" -> next.equals("identity");
          case "alter" -> next.equals("constraint") || alterColumn(action + 1);
          default -> false;
        };
    if (!allowed) {
      throw new Refusal(
          RefusalReason.UNSUPPORTED_COMMAND,
          "ALTER TABLE ... "
              + t.upper(action, 3)
              + " is not an action DDL replay runs; it runs only "
              + ALTER_ACTIONS);
    }
    if (word.equals("rename") && next.equals("to")) {
      names.touch(new QualifiedName(target.schema(), names.name(action + 2)));
    }
  }

  /** {@code [COLUMN] c} from {@code i}, then a type, default or NOT NULL change. */
  private boolean alterColumn(int i) {
    int sub = t.keyword(i).equals("column") ? i + 2 : i + 1;
    String verb = t.keyword(sub);
    String what = t.keyword(sub + 1);
    return switch (verb) {
      case "type" -> true;
      case "set" ->
          (what.equals("data") && t.keyword(sub + 2).equals("type"))
              || what.equals("default")
              || (what.equals("not") && t.keyword(sub + 2).equals("null"));
      case "drop" ->
          what.equals("default") || (what.equals("not") && t.keyword(sub + 2).equals("null"));
      default -> false;
    };
  }

  /** Indexes where each comma-separated action of an ALTER TABLE starts. */
  private List<Integer> actionStarts(int from) {
    List<Integer> starts = new ArrayList<>();
    starts.add(from);
    int depth = 0;
    for (int j = from; j < t.size(); j++) {
      if (t.isPunct(j, "(") || t.isPunct(j, "[")) {
        depth++;
      } else if (t.isPunct(j, ")") || t.isPunct(j, "]")) {
        depth--;
      } else if (depth == 0 && t.isPunct(j, ",")) {
        starts.add(j + 1);
      }
    }
    return starts;
  }

  // ---- CREATE TABLE, CREATE INDEX
  // ------------------------------------------------------------------------

  /**
   * {@code CREATE [UNLOGGED] TABLE [IF NOT EXISTS] name ( columns and constraints ) [PARTITION BY
   * RANGE|LIST|HASH ( ... )] [WITH ( ... )]}, nothing else: not {@code AS}, {@code OF type}, {@code
   * PARTITION OF}, {@code INHERITS}, {@code TABLESPACE}, {@code USING}, and no {@code LIKE} in the
   * list (each would tie the new table to another object, or copy one).
   */
  private void createTable() {
    int i = t.keyword(1).equals("unlogged") ? 3 : 2;
    i = skipIfNotExists(i);
    names.touchTable(i);
    i = names.afterName(i);
    if (!t.isPunct(i, "(")) {
      throw createTableRefusal(i);
    }
    int j = closing(i);
    for (int k = i + 1; k < j; k++) {
      if (t.keyword(k).equals("like") && (t.isPunct(k - 1, "(") || t.isPunct(k - 1, ","))) {
        throw new Refusal(
            RefusalReason.UNSUPPORTED_COMMAND, "CREATE TABLE ( LIKE ... ) copies another table");
      }
    }
    j++;
    while (j < t.size()) {
      if (t.keyword(j).equals("partition")
          && t.keyword(j + 1).equals("by")
          && Set.of("range", "list", "hash").contains(t.keyword(j + 2))
          && t.isPunct(j + 3, "(")) {
        j = closing(j + 3) + 1;
      } else if (t.keyword(j).equals("with") && t.isPunct(j + 1, "(")) {
        j = closing(j + 1) + 1;
      } else {
        throw createTableRefusal(j);
      }
    }
    references(i);
  }

  private Refusal createTableRefusal(int at) {
    return new Refusal(
        RefusalReason.UNSUPPORTED_COMMAND,
        t.keyword(at).equals("as")
            ? "CREATE TABLE ... AS runs a query"
            : "CREATE TABLE ... "
                + (at < t.size() ? t.upper(at, 2) : "without a column list")
                + " is not replayed; replay creates only a table of its own columns and"
                + " constraints, optionally PARTITION BY and WITH ( ... )");
  }

  /** The index of the {@code )} that closes the {@code (} at {@code open}. */
  private int closing(int open) {
    int depth = 0;
    for (int k = open; k < t.size(); k++) {
      if (t.isPunct(k, "(")) {
        depth++;
      } else if (t.isPunct(k, ")") && --depth == 0) {
        return k;
      }
    }
    throw new Refusal(RefusalReason.UNPARSABLE, "unbalanced parentheses");
  }

  /**
   * {@code CREATE [UNIQUE] INDEX [[IF NOT EXISTS] name] ON [ONLY] table [USING method] (...) ...}
   */
  private void createIndex() {
    int i = t.keyword(1).equals("unique") ? 3 : 2;
    i = skipIfNotExists(i);
    if (!t.keyword(i).equals("on")) {
      names.name(i); // the index name: unqualified, it lands in the table's schema
      names.markName(i);
      i++;
    }
    t.expect(i, "on");
    i++;
    if (t.keyword(i).equals("only")) {
      i++;
    }
    names.touchTable(i);
    i = names.afterName(i);
    if (t.keyword(i).equals("using")) {
      names.name(i + 1);
      names.markName(i + 1); // the access method, e.g. btree (
    }
  }

  private int skipIfNotExists(int i) {
    if (t.keyword(i).equals("if")) {
      t.expect(i + 1, "not");
      t.expect(i + 2, "exists");
      return i + 3;
    }
    return i;
  }

  /** {@code REFERENCES other} anywhere names another table (a foreign key locks and reads it). */
  private void references(int from) {
    for (int j = from; j < t.size(); j++) {
      if (t.keyword(j).equals("references")) {
        names.touchTable(j + 1);
      }
    }
  }

  // ---- DROP TABLE, DROP INDEX
  // ----------------------------------------------------------------------------

  /** {@code DROP TABLE [IF EXISTS] name [, ...] [RESTRICT]} */
  private void dropTable() {
    int i = dropList(t.skipIfExists(2), false);
    dropEnd(i, "DROP TABLE");
  }

  /** {@code DROP INDEX [IF EXISTS] name [, ...] [RESTRICT]}: each checked as (schema, "*"). */
  private void dropIndex() {
    int i = dropList(t.skipIfExists(2), true);
    dropEnd(i, "DROP INDEX");
  }

  private int dropList(int i, boolean indexes) {
    while (true) {
      QualifiedName n = names.qualifiedName(i);
      names.touch(indexes ? new QualifiedName(n.schema(), "*") : n);
      i = names.afterName(i);
      if (!t.isPunct(i, ",")) {
        return i;
      }
      i++;
    }
  }

  private void dropEnd(int i, String command) {
    if (t.keyword(i).equals("restrict")) {
      i++;
    }
    if (i < t.size()) {
      throw new Refusal(
          RefusalReason.UNPARSABLE,
          "unexpected '" + t.get(i).value() + "' after " + command + " names");
    }
  }

  // ---- COMMENT ON
  // ----------------------------------------------------------------------------------------

  /**
   * {@code COMMENT ON TABLE name IS ...} or {@code COMMENT ON COLUMN [schema.]table.column IS ...}
   */
  private void comment(ReplayCommand command) {
    int i = 3;
    List<String> parts = new ArrayList<>();
    while (true) {
      parts.add(names.name(i));
      names.markName(i);
      i++;
      if (!t.isPunct(i, ".")) {
        break;
      }
      i++;
    }
    int tableParts = command == ReplayCommand.COMMENT_ON_COLUMN ? parts.size() - 1 : parts.size();
    if (tableParts < 1 || tableParts > 2) {
      throw new Refusal(
          RefusalReason.UNPARSABLE,
          "COMMENT ON "
              + t.keyword(2).toUpperCase(Locale.ROOT)
              + " needs "
              + (command == ReplayCommand.COMMENT_ON_COLUMN
                  ? "[schema.]table.column"
                  : "[schema.]table"));
    }
    names.touch(
        tableParts == 2
            ? new QualifiedName(parts.get(0), parts.get(1))
            : new QualifiedName(defaultSchema, parts.get(0)));
    t.expect(i, "is");
    i++;
    if (!(i < t.size() && (t.get(i).type() == TokenType.STRING || t.keyword(i).equals("null")))
        || i + 1 != t.size()) {
      throw new Refusal(RefusalReason.UNPARSABLE, "COMMENT ON ... IS takes one string or NULL");
    }
  }
}
