package io.trellara.sink.postgres.ddl;

import io.trellara.sink.postgres.ddl.ReplayableStatement.Refusal;
import io.trellara.sink.postgres.names.QualifiedName;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Classifies one statement's tokens and finds the objects it touches. Not a SQL grammar: it
 * recognises the replayable commands' leading clauses and the clauses that name other tables, and
 * refuses the rest; the server parses what is accepted.
 *
 * <p>The order of {@link #parse()} is the gate's: what the command is ({@link CommandClassifier}),
 * then what is refused anywhere ({@link StatementHazards}), then the command's own clauses (here,
 * resolving names with {@link ObjectNames}), and last the function calls, which can only be told
 * from a table's column list once the clauses have marked which tokens are names.
 */
final class DdlStatementParser {
  record Parsed(ReplayCommand command, List<QualifiedName> objects) {}

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

  /** The actions that name another table: where a rename or move lands, and new relatives. */
  private void alterTableAction(QualifiedName target, int action) {
    String word = t.keyword(action);
    if (word.equals("rename") && t.keyword(action + 1).equals("to")) {
      names.touch(new QualifiedName(target.schema(), names.name(action + 2)));
    } else if (word.equals("set") && t.keyword(action + 1).equals("schema")) {
      names.touch(new QualifiedName(names.name(action + 2), target.table()));
    } else if ((word.equals("attach") || word.equals("detach"))
        && t.keyword(action + 1).equals("partition")) {
      names.touchTable(action + 2);
    } else if (word.equals("inherit")) {
      names.touchTable(action + 1);
    } else if (word.equals("no") && t.keyword(action + 1).equals("inherit")) {
      names.touchTable(action + 2);
    }
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
   * {@code CREATE [UNLOGGED] TABLE [IF NOT EXISTS] name ( ... ) | PARTITION OF parent ... | OF type
   * ...}
   */
  private void createTable() {
    int i = t.keyword(1).equals("unlogged") ? 3 : 2;
    i = skipIfNotExists(i);
    names.touchTable(i);
    i = names.afterName(i);
    int depth = 0;
    for (int j = i; j < t.size(); j++) {
      if (t.isPunct(j, "(")) {
        depth++;
        if (depth == 1 && t.keyword(j + 1).equals("like")) {
          names.touchTable(j + 2);
        }
      } else if (t.isPunct(j, ")")) {
        depth--;
      } else if (depth == 0 && t.keyword(j).equals("as")) {
        throw new Refusal(RefusalReason.UNSUPPORTED_COMMAND, "CREATE TABLE ... AS runs a query");
      } else if (depth == 1 && t.isPunct(j, ",") && t.keyword(j + 1).equals("like")) {
        names.touchTable(j + 2);
      } else if (depth == 0 && t.keyword(j).equals("partition") && t.keyword(j + 1).equals("of")) {
        names.touchTable(j + 2);
      } else if (depth == 0 && t.keyword(j).equals("inherits") && t.isPunct(j + 1, "(")) {
        inherits(j + 2);
      }
    }
    references(i);
  }

  /** The parents listed by {@code INHERITS (} from {@code first}. */
  private void inherits(int first) {
    int k = first;
    while (true) {
      names.touchTable(k);
      k = names.afterName(k);
      if (!t.isPunct(k, ",")) {
        break;
      }
      k++;
    }
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
    if (t.keyword(i).equals("cascade")) {
      throw new Refusal(
          RefusalReason.OBJECT_NOT_ALLOWED,
          command + " ... CASCADE would drop objects the statement does not name");
    }
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
