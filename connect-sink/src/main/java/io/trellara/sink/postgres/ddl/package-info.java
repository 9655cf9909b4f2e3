/**
 * The gate in front of opt-in DDL replay: {@link io.trellara.sink.postgres.ddl.SqlLexer} tokenises
 * a captured query string as PostgreSQL does, and {@link
 * io.trellara.sink.postgres.ddl.ReplayableStatement} accepts only one statement of a conservative
 * set of commands on allowlisted objects. Replay "trusts every writer of the topic"; the gate still
 * refuses what would escape the applier's transaction, session or allowlist.
 *
 * <p>The lexer is a cursor ({@code SqlLexer}) over pure scans of the text: {@code QuotedTokens},
 * {@code EscapeSequences}, {@code NumericLiterals} and {@code SqlCharacters}. The gate splits the
 * text ({@code SingleStatement}), names the command ({@code CommandClassifier}), refuses what is
 * refused anywhere ({@code StatementHazards}) and reads the command's clauses ({@code
 * DdlStatementParser}), resolving the tables they name ({@code ObjectNames}).
 */
package io.trellara.sink.postgres.ddl;
