package io.trellara.sink.postgres.ddl;

import io.trellara.sink.postgres.names.QualifiedName;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The verdict on a captured DDL statement's text ({@code DdlEvent.statement}, the client's whole
 * query string) before the opt-in DDL replay executes it: accepted when it is exactly one statement
 * of a conservative set of commands whose every object the allowlist covers; refused with a {@link
 * RefusalReason} and a message naming what was found otherwise.
 *
 * <p>Accepted, an allowlist of forms (docs/security.md, "What DDL replay may run"): {@code ALTER
 * TABLE} with the actions of {@link DdlStatementParser#ALTER_ACTIONS} only (no trigger, rule, row
 * security, owner, schema, tablespace, inheritance or partition changes), {@code CREATE [UNLOGGED]
 * TABLE} of its own columns and constraints with at most {@code PARTITION BY} and {@code WITH} (not
 * {@code AS}, {@code LIKE}, {@code INHERITS}, {@code PARTITION OF}, {@code OF}, not temporary),
 * {@code DROP TABLE}, {@code CREATE [UNIQUE] INDEX} (not {@code CONCURRENTLY}), {@code DROP INDEX},
 * {@code COMMENT ON TABLE|COLUMN}; {@code CASCADE} nowhere. A trailing {@code ;} and comments are
 * fine.
 *
 * <p>Objects checked against the allowlist: the target table, the name a rename gives it, tables
 * named by {@code REFERENCES}. {@code DROP INDEX} cannot tell from its text which table an index
 * belongs to, so it is checked as {@code (index schema, "*")}: it passes only an allowlist that
 * covers every table of that schema. Unqualified names resolve to {@code defaultSchema}.
 *
 * <p>Refused anywhere in the statement: a schema qualifier {@code pg_*}, {@code information_schema}
 * or {@code trellara_sink}; a parameter ({@code $1}); a standard string holding a backslash (its
 * meaning depends on {@code standard_conforming_strings}); a name longer than 63 bytes (the server
 * would truncate it to a name the allowlist did not see); and a function call other than a few
 * built-ins ({@code now()}, {@code lower()}...): a DEFAULT, CHECK, generated column, USING or index
 * expression is evaluated for every existing row while the DDL runs, so a call there executes
 * arbitrary code on the target, including {@code set_config()}, which would undo the SET refusal.
 *
 * <p>What the executor must still do: run the statement in the applier's transaction with {@code
 * standard_conforming_strings = on} and a {@code search_path} whose first schema is the {@code
 * defaultSchema} given here, with {@code pg_catalog} not moved behind a writable schema (the
 * built-ins allowed here are unqualified).
 */
public final class ReplayableStatement {
  private final ReplayCommand command;
  private final List<QualifiedName> objects;
  private final RefusalReason refusal;
  private final String message;

  private ReplayableStatement(
      ReplayCommand command, List<QualifiedName> objects, RefusalReason refusal, String message) {
    this.command = command;
    this.objects = objects;
    this.refusal = refusal;
    this.message = message;
  }

  /**
   * Judges {@code sql}.
   *
   * @param defaultSchema the schema an unqualified name resolves to: the first schema of the
   *     event's search_path that exists on the target (the caller resolves {@code "$user"})
   * @param allowed the allowlist; every object the statement touches must pass it
   */
  public static ReplayableStatement check(
      String sql, String defaultSchema, Predicate<QualifiedName> allowed) {
    Objects.requireNonNull(sql, "sql");
    Objects.requireNonNull(defaultSchema, "defaultSchema");
    Objects.requireNonNull(allowed, "allowed");
    try {
      List<Token> statement = SingleStatement.of(sql);
      DdlStatementParser.Parsed parsed = new DdlStatementParser(statement, defaultSchema).parse();
      for (QualifiedName name : parsed.objects()) {
        if (!allowed.test(name)) {
          return refused(
              RefusalReason.OBJECT_NOT_ALLOWED,
              parsed.command().tag()
                  + " touches "
                  + name
                  + ", which the DDL replay allowlist does not cover");
        }
      }
      return new ReplayableStatement(
          parsed.command(),
          parsed.objects(),
          null,
          parsed.command().tag() + " on " + parsed.objects());
    } catch (SqlSyntaxException e) {
      return refused(RefusalReason.UNPARSABLE, e.getMessage());
    } catch (Refusal r) {
      return refused(r.reason, r.getMessage());
    }
  }

  static ReplayableStatement refused(RefusalReason reason, String message) {
    return new ReplayableStatement(null, List.of(), reason, message);
  }

  public boolean accepted() {
    return refusal == null;
  }

  /** The accepted command; null when refused. */
  public ReplayCommand command() {
    return command;
  }

  /** The objects an accepted statement touches, the target first; empty when refused. */
  public List<QualifiedName> objects() {
    return objects;
  }

  /** Why it was refused; null when accepted. */
  public RefusalReason refusal() {
    return refusal;
  }

  /** What was found: the command and its objects, or the reason for the refusal. */
  public String message() {
    return message;
  }

  @Override
  public String toString() {
    return accepted() ? "accepted: " + message : "refused (" + refusal + "): " + message;
  }

  /** A refusal found while parsing; no stack trace (it is a verdict, not a bug). */
  static final class Refusal extends RuntimeException {
    final RefusalReason reason;

    Refusal(RefusalReason reason, String message) {
      super(message, null, false, false);
      this.reason = reason;
    }
  }
}
