package io.trellara.sink.postgres.ddl;

import io.trellara.sink.postgres.ddl.ReplayableStatement.Refusal;
import java.util.Set;

/**
 * Which command a statement is, from its leading words. Commands that would escape the applier's
 * transaction or session, and those the server refuses inside a transaction block, are refused
 * first and by what they are (transaction control, a session setting, a DO block, COPY, not
 * transactional...): an operator reading the refusal learns what the statement would have done, not
 * merely that it is unsupported. Only what is left is matched against the replayable commands.
 */
final class CommandClassifier {
  private static final Set<String> TRANSACTION_CONTROL =
      Set.of("begin", "start", "commit", "end", "rollback", "abort", "savepoint", "release");

  /** {@code CREATE TEMP | TEMPORARY | GLOBAL | LOCAL ... TABLE}. */
  private static final Set<String> TEMPORARY = Set.of("temp", "temporary", "global", "local");

  private CommandClassifier() {}

  /** The replayable command {@code t} is; otherwise a {@link Refusal} naming what it is. */
  static ReplayCommand classify(StatementTokens t) {
    refuseWhatEscapesTheApplier(t);
    refuseNotTransactional(t);
    return replayableCommand(t);
  }

  /** Transaction control, session settings, anonymous code, COPY, VACUUM, CALL. */
  private static void refuseWhatEscapesTheApplier(StatementTokens t) {
    String first = t.keyword(0);
    if (TRANSACTION_CONTROL.contains(first)
        || (first.equals("prepare") && t.keyword(1).equals("transaction"))) {
      throw new Refusal(
          RefusalReason.TRANSACTION_CONTROL,
          t.upper(0, 2) + " is transaction control; the applier owns the transaction");
    }
    switch (first) {
      case "set", "reset", "discard" ->
          throw new Refusal(
              RefusalReason.SESSION_SETTING,
              t.upper(0, 3) + " would change the sink's session for everything applied after it");
      case "do" -> throw new Refusal(RefusalReason.DO_BLOCK, "DO runs an anonymous code block");
      case "copy" ->
          throw new Refusal(RefusalReason.COPY, "COPY reads or writes server files and programs");
      case "vacuum" -> throw notTransactional("VACUUM");
      case "call" ->
          throw new Refusal(
              RefusalReason.UNSUPPORTED_COMMAND,
              "CALL runs a procedure, which may commit and run arbitrary code");
      default -> {}
    }
  }

  /** Commands the server refuses inside a transaction block, as replay would run them. */
  private static void refuseNotTransactional(StatementTokens t) {
    String first = t.keyword(0);
    String second = t.keyword(1);
    if ((first.equals("create") || first.equals("drop"))
            && (second.equals("database")
                || second.equals("tablespace")
                || second.equals("subscription"))
        || (first.equals("alter") && (second.equals("system") || second.equals("subscription")))
        || (first.equals("reindex") && (second.equals("system") || second.equals("database")))
        || (first.equals("cluster") && t.size() == 1)) {
      throw notTransactional(t.upper(0, 2));
    }
    for (int i = 0; i < t.size(); i++) {
      if (t.get(i).isKeyword("concurrently")) {
        throw notTransactional(t.upper(0, 3) + " ... CONCURRENTLY");
      }
    }
  }

  private static ReplayCommand replayableCommand(StatementTokens t) {
    String first = t.keyword(0);
    String second = t.keyword(1);
    if (first.equals("create")) {
      ReplayCommand created = createCommand(t);
      if (created != null) {
        return created;
      }
    } else if (first.equals("alter") && second.equals("table")) {
      return ReplayCommand.ALTER_TABLE;
    } else if (first.equals("drop") && second.equals("table")) {
      return ReplayCommand.DROP_TABLE;
    } else if (first.equals("drop") && second.equals("index")) {
      return ReplayCommand.DROP_INDEX;
    } else if (first.equals("comment") && second.equals("on")) {
      if (t.keyword(2).equals("table")) {
        return ReplayCommand.COMMENT_ON_TABLE;
      }
      if (t.keyword(2).equals("column")) {
        return ReplayCommand.COMMENT_ON_COLUMN;
      }
    }
    throw new Refusal(
        RefusalReason.UNSUPPORTED_COMMAND, t.upper(0, 3) + "... is not a replayable DDL command");
  }

  /** {@code CREATE [UNIQUE] INDEX} or {@code CREATE [UNLOGGED] TABLE}; null for other CREATEs. */
  private static ReplayCommand createCommand(StatementTokens t) {
    int i = 1;
    if (t.keyword(i).equals("unique")) {
      i++;
    }
    if (t.keyword(i).equals("index")) {
      return ReplayCommand.CREATE_INDEX;
    }
    i = 1;
    if (TEMPORARY.contains(t.keyword(i))) {
      throw new Refusal(
          RefusalReason.UNSUPPORTED_COMMAND, "a temporary table ends with the replay session");
    }
    if (t.keyword(i).equals("unlogged")) {
      i++;
    }
    return t.keyword(i).equals("table") ? ReplayCommand.CREATE_TABLE : null;
  }

  private static Refusal notTransactional(String what) {
    return new Refusal(
        RefusalReason.NOT_TRANSACTIONAL, what + " cannot run inside the applier's transaction");
  }
}
