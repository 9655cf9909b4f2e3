/**
 * The gate in front of opt-in DDL replay: {@link io.trellara.sink.postgres.ddl.SqlLexer} tokenises
 * a captured query string as PostgreSQL does, and {@link
 * io.trellara.sink.postgres.ddl.ReplayableStatement} accepts only one statement of a conservative
 * set of commands on allowlisted objects. Replay "trusts every writer of the topic"; the gate still
 * refuses what would escape the applier's transaction, session or allowlist.
 */
package io.trellara.sink.postgres.ddl;
