package io.trellara.sink.postgres.ddl;

import io.trellara.sink.postgres.ddl.ReplayableStatement.Refusal;
import io.trellara.sink.postgres.names.QualifiedName;
import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Name resolution for one statement: reads {@code [schema.]name} at a token, resolves an
 * unqualified name to the default schema (the first schema of the search_path the statement is
 * replayed with), and keeps the tables the statement touches, in the order met, the target first:
 * these are what the allowlist judges.
 *
 * <p>It also remembers which tokens were read as names, so that a {@code (} after one (a table's
 * column list, an index's access method) is not mistaken for a function call.
 */
final class ObjectNames {
  private final StatementTokens t;
  private final String defaultSchema;

  /** Tokens read as object names (a {@code (} after them is no function call). */
  private final BitSet names = new BitSet();

  private final Set<QualifiedName> touched = new LinkedHashSet<>();

  ObjectNames(StatementTokens statement, String defaultSchema) {
    this.t = statement;
    this.defaultSchema = defaultSchema;
  }

  /** The tables touched so far, each once, in the order met. */
  List<QualifiedName> touched() {
    return List.copyOf(touched);
  }

  void touch(QualifiedName table) {
    touched.add(table);
  }

  /** Reads {@code [schema.]name} at {@code i} as a touched table. */
  QualifiedName touchTable(int i) {
    QualifiedName n = qualifiedName(i);
    touched.add(n);
    return n;
  }

  /** Reads {@code [schema.]name} at {@code i}; a database-qualified name is refused. */
  QualifiedName qualifiedName(int i) {
    String first = name(i);
    names.set(i);
    if (!t.isPunct(i + 1, ".")) {
      return new QualifiedName(defaultSchema, first);
    }
    String second = name(i + 2);
    names.set(i + 2);
    if (t.isPunct(i + 3, ".")) {
      throw new Refusal(
          RefusalReason.UNPARSABLE, "database-qualified name at offset " + t.get(i).start());
    }
    return new QualifiedName(first, second);
  }

  /** The index after the {@code [schema.]name} at {@code i}. */
  int afterName(int i) {
    return t.isPunct(i + 1, ".") ? i + 3 : i + 1;
  }

  /** The name at {@code i}, without recording it as read (see {@link #markName}). */
  String name(int i) {
    if (i >= t.size() || !t.get(i).isName()) {
      throw new Refusal(
          RefusalReason.UNPARSABLE,
          "expected a name "
              + (i < t.size()
                  ? "at offset " + t.get(i).start() + ", found '" + t.get(i).value() + "'"
                  : "at the end of the statement"));
    }
    return t.get(i).value();
  }

  /** Records the token at {@code i} as a name, so a {@code (} after it is no call. */
  void markName(int i) {
    names.set(i);
  }

  boolean isName(int i) {
    return names.get(i);
  }
}
