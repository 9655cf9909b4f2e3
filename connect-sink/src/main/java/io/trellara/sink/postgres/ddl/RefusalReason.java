package io.trellara.sink.postgres.ddl;

/** Why a captured DDL statement is not replayed. */
public enum RefusalReason {
  /** More than one statement: the text could smuggle a second command behind an allowed one. */
  MULTIPLE_STATEMENTS,
  /**
   * BEGIN, COMMIT, ROLLBACK, SAVEPOINT, PREPARE TRANSACTION...: would break the applier's
   * transaction.
   */
  TRANSACTION_CONTROL,
  /**
   * SET, RESET, DISCARD: would change the sink session (role, search_path, settings) for what
   * follows.
   */
  SESSION_SETTING,
  /** DO: anonymous code. */
  DO_BLOCK,
  /** COPY, which can read and write server files and run programs. */
  COPY,
  /** Cannot run inside a transaction block (CONCURRENTLY, VACUUM, CREATE DATABASE...). */
  NOT_TRANSACTIONAL,
  /** Any command outside the replayable set, and constructs of it that are not replayed. */
  UNSUPPORTED_COMMAND,
  /**
   * An object (table, schema, function, CASCADE's unnamed dependants) the allowlist does not cover.
   */
  OBJECT_NOT_ALLOWED,
  /** Not valid SQL for the lexer, or not of the shape the replayable command has. */
  UNPARSABLE,
  /** No statement at all, or an empty statement beside the one there is. */
  EMPTY
}
