/**
 * The PostgreSQL implementation of the sink engine's target port ({@link
 * io.trellara.sink.postgres.TransactionApplier} implements {@code io.trellara.sink.port.Target};
 * {@link io.trellara.sink.postgres.StreamedBarrier} its streams): whole source transactions into
 * PostgreSQL, exactly once, with checkpoints, staging, row writing, schema evolution and the DDL
 * gate ({@code ddl}). Imports nothing from Kafka or Connect.
 *
 * <h2>One target transaction per group</h2>
 *
 * {@link io.trellara.sink.postgres.TransactionApplier} applies up to {@code groupMaxTransactions}
 * consecutive source transactions per target transaction: first one query finds which of them the
 * dedup table ({@code trellara_sink.applied_transactions}, primary key source_id, commit_lsn,
 * transaction_id) already holds (skipped, reported as duplicates); then every change and DDL event
 * of the rest in total order; then one statement writes their dedup rows, the progress row per
 * topic partition ({@code trellara_sink.progress}) and (optionally) {@code synchronous_commit =
 * off} for this transaction only; then COMMIT. Progress living in the target is what makes grouping
 * and asynchronous commit safe: after a crash the task resumes at the recorded offset and the dedup
 * table absorbs anything delivered again.
 *
 * <h2>Set-based rows</h2>
 *
 * Consecutive row changes of one target relation, operation and statement shape form a run (runs
 * continue across the transactions of a group). Insert runs of at least {@code copyThreshold} rows
 * go through COPY FROM STDIN (text format), shorter ones and upserts through multi-row INSERT (256
 * rows a statement, a remainder in power-of-two statements so the set of prepared shapes stays
 * bounded); updates and deletes through a JDBC batch of one prepared statement whose per-row update
 * counts are checked (zero rows: the target diverged). Values are bound as untyped text ({@code
 * Types.OTHER}), so the target column's input function parses PostgreSQL's canonical text form: the
 * target gets exactly the source value. Sessions run with TimeZone UTC, DateStyle ISO,
 * IntervalStyle postgres.
 *
 * <h2>Chunked and partitioned transactions</h2>
 *
 * {@link io.trellara.sink.engine.SinkEngine} is what a sink task runs: chunks are verified and
 * staged in {@code trellara_sink.staged_chunks} by whichever task receives them (lane watermarks
 * and progress in the same target transaction); envelopes, manifests and commit markers queue per
 * partition in arrival order; a manifest bound to its marker is a barrier, applied in order once
 * every listed chunk is staged ({@link io.trellara.sink.port.BarrierState} decides ready, waiting
 * or missing for good), by a k-way merge over the staged chunks ({@code BarrierMerge}, one chunk
 * per lane in memory) into the same writer, in one target transaction with its dedup record and
 * progress. See {@code docs/sink-barriers.md}.
 *
 * <h2>Failures</h2>
 *
 * SQLSTATE class 08, 40001, 40P01, 57P01-57P03 and a closed connection are transient: the session
 * is discarded and the whole group (or staging step, or barrier) is re-applied on a fresh
 * connection after a bounded exponential backoff; a commit whose outcome was lost is recognised by
 * the dedup check and reported as applied. Everything else rolls back and throws {@link
 * io.trellara.sink.port.ApplyException} naming the reason, the relation, the event key (or run of
 * keys) and the SQLSTATE; a protocol violation found while applying a barrier is thrown as the
 * {@code ProtocolViolationException} naming the rule, the field and the event key.
 */
package io.trellara.sink.postgres;
