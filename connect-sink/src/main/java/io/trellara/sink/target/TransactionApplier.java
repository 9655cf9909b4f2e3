package io.trellara.sink.target;

import io.trellara.sink.engine.ApplyException;
import io.trellara.sink.engine.ApplyMetrics;
import io.trellara.sink.engine.ApplyOptions;
import io.trellara.sink.engine.ApplyResult;
import io.trellara.sink.engine.BarrierResult;
import io.trellara.sink.engine.BarrierState;
import io.trellara.sink.engine.FlowKey;
import io.trellara.sink.engine.SourceTransaction;
import io.trellara.sink.engine.StagedChunk;
import io.trellara.sink.engine.Target;
import io.trellara.sink.engine.TargetStream;
import io.trellara.sink.engine.TopicPartitionKey;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.codec.Checksums;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Applies whole source transactions to the target PostgreSQL database. Consecutive transactions are grouped
 * (up to {@link ApplyOptions#groupMaxTransactions()}) into one target transaction holding, in source order,
 * every change and DDL event, then the dedup records and the progress positions. A transaction already in the
 * dedup table is skipped and reported as a duplicate. Transient failures re-apply the whole group on a fresh
 * connection with bounded exponential backoff; the dedup check at the start of every attempt makes a retry
 * after an unknown commit outcome safe.
 *
 * <p>Chunked and partitioned boundaries go through {@link #stage} (chunks into {@code trellara_sink.staged_chunks}),
 * {@link #checkBarrier} (is every listed chunk staged?) and {@link #applyBarrier} (the whole transaction from its
 * staged chunks, in one target transaction); all three share the same retry and failure handling.
 *
 * <p>Not thread-safe: one applier per sink task.
 */
public final class TransactionApplier implements Target {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TransactionApplier.class);
    private final ConnectionFactory connections;
    private final RelationMapper mapper;
    private final ApplyOptions options;
    private final ApplyMetrics metrics = new ApplyMetrics();
    private final Sleeper sleeper;
    private final java.util.function.LongSupplier nanoClock;
    private final CommitOrder order = new CommitOrder();
    private TargetSession session;
    /** The session of the streamed barrier in progress (kept open across them); see {@link StreamedBarrier}. */
    private TargetSession streamSession;

    /** Pauses between attempts; replaceable in tests. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    public TransactionApplier(ConnectionFactory connections, RelationMapper mapper, ApplyOptions options) {
        this(connections, mapper, options, Thread::sleep);
    }

    public TransactionApplier(ConnectionFactory connections, RelationMapper mapper, ApplyOptions options,
                              Sleeper sleeper) {
        this(connections, mapper, options, sleeper, System::nanoTime);
    }

    /** With a clock for the retry budget (tests advance it with their sleeper). */
    public TransactionApplier(ConnectionFactory connections, RelationMapper mapper, ApplyOptions options,
                              Sleeper sleeper, java.util.function.LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.connections = Objects.requireNonNull(connections, "connections");
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        this.options = Objects.requireNonNull(options, "options");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    }

    @Override
    public ApplyMetrics metrics() {
        return metrics;
    }

    @Override
    public ApplyOptions options() {
        return options;
    }

    RelationMapper mapper() {
        return mapper;
    }

    // ---- streamed barriers ------------------------------------------------------------------------------

    /**
     * Opens the target transaction of a strict-chunked transaction whose first chunk is {@code first} (see
     * {@link StreamedBarrier}), on the stream's own session: the dedup check and the commit-order check run now.
     * Throws {@link TargetStream.TransientFailure} when the target cannot be reached.
     */
    @Override
    public StreamedBarrier openStream(PartitionChunk first) {
        try {
            if (streamSession == null) {
                streamSession = TargetSession.open(connections);
            }
            return new StreamedBarrier(this, streamSession, first, order.pending());
        } catch (SQLException e) {
            String state = SqlStates.of(e);
            boolean transientFailure = streamSession == null || isTransient(streamSession, e);
            rolledBack(streamSession);
            if (transientFailure) {
                throw new TargetStream.TransientFailure("cannot open the target transaction of "
                        + first.getSourceId() + ':' + first.getCommitLsn() + ':' + first.getTransactionId()
                        + " (SQLSTATE " + state + "): " + e.getMessage(), e);
            }
            throw translate(e, null, first.getSourceId() + ':' + first.getCommitLsn() + ':' + first.getTransactionId());
        } catch (RuntimeException e) {
            rolledBack(streamSession);
            throw e;
        }
    }

    /** A streamed barrier committed: its commit order becomes known, its rows count. */
    void committed(StreamedBarrier b, ChangeWriter writer, CommitOrder.Pending admitted, boolean duplicate) {
        order.committed(admitted);
        if (duplicate) {
            metrics.targetCommits.incrementAndGet();
            metrics.duplicatesSkipped.incrementAndGet();
        } else {
            publish(writer, 1, 0);
            metrics.barriersApplied.incrementAndGet();
        }
    }

    /** A streamed barrier rolled back (or failed to open): a broken session is discarded. */
    void rolledBack(TargetSession s) {
        if (s == null) {
            return;
        }
        order.forget();
        if (!s.rollbackQuietly()) {
            s.close();
            if (s == streamSession) {
                streamSession = null;
            }
        } else {
            s.forgetTables();
        }
    }

    boolean isTransient(TargetSession s, Exception e) {
        if (SqlStates.isTransient(e)) {
            return true;
        }
        try {
            return e instanceof SQLException && s != null && s.connection.isClosed();
        } catch (SQLException closedCheck) {
            return true;
        }
    }

    /** Applies one transaction (in its own target transaction). */
    public ApplyResult apply(SourceTransaction transaction) {
        return apply(List.of(transaction));
    }

    /**
     * Applies consecutive source transactions in order, grouped per {@link ApplyOptions#groupMaxTransactions()}.
     * Returns when every one is applied or found already applied; throws {@link ApplyException} otherwise, in
     * which case the groups before the failing one are committed (see the result of earlier calls) and the
     * failing group left nothing behind.
     */
    @Override
    public ApplyResult apply(List<SourceTransaction> transactions) {
        List<TransactionBoundaryKey> applied = new ArrayList<>();
        List<TransactionBoundaryKey> duplicates = new ArrayList<>();
        Map<TopicPartitionKey, Long> positions = new LinkedHashMap<>();
        int commits = 0;
        int attempts = 0;
        int group = options.groupMaxTransactions();
        for (int from = 0; from < transactions.size(); from += group) {
            List<SourceTransaction> g = transactions.subList(from, Math.min(transactions.size(), from + group));
            GroupOutcome o = applyGroup(g);
            applied.addAll(o.applied);
            duplicates.addAll(o.duplicates);
            positions.putAll(o.positions);
            commits++;
            attempts += o.attempts;
        }
        return new ApplyResult(applied, duplicates, positions, commits, attempts);
    }

    private record GroupOutcome(List<TransactionBoundaryKey> applied, List<TransactionBoundaryKey> duplicates,
                                Map<TopicPartitionKey, Long> positions, int attempts) {
    }

    private GroupOutcome applyGroup(List<SourceTransaction> group) {
        return retrying(group.get(0).key().display(), (s, a) -> applyOnce(s, group, a));
    }

    // ---- barriers ---------------------------------------------------------------------------------------

    /**
     * Stages verified chunks in one target transaction: the chunks (a replay, or a chunk of a transaction already
     * applied, is a no-op), the watermarks of their lanes, and {@code positions} (progress of the partitions
     * whose every record up to there is now durable in the target). Returns the chunks newly staged.
     */
    @Override
    public int stage(List<StagedChunk> chunks, Map<TopicPartitionKey, Long> positions) {
        if (chunks.isEmpty() && positions.isEmpty()) {
            return 0;
        }
        String where = chunks.isEmpty() ? null : chunks.get(0).describe();
        boolean[] inserted = retrying(where, (s, a) -> {
            s.at(null, where);
            boolean[] rows = chunks.isEmpty() ? new boolean[0] : StagingStore.stage(s, options.sinkName(), chunks);
            CheckpointStore.record(s, options.sinkName(), List.of(), positions, options.synchronousCommitOff());
            a.committing = true;
            s.connection.commit();
            return rows;
        });
        int staged = 0;
        for (int i = 0; i < inserted.length; i++) {
            if (inserted[i]) {
                staged++;
                metrics.stagedBytes.addAndGet(chunks.get(i).payload().length);
            }
        }
        metrics.chunksStaged.addAndGet(staged);
        return staged;
    }

    /**
     * Where the barrier of {@code m} stands: applied already, ready, or waiting for chunks that may still be
     * staged. A chunk that can no longer arrive fails closed: {@link ProtocolViolationException} with
     * {@code MISSING_CHUNK}, or, when another version of the chunk is staged, the rule its verification against
     * the manifest breaks (transaction id, identity, checksum).
     */
    @Override
    public BarrierState.Verdict checkBarrier(TransactionManifest m) {
        String key = boundaryKey(m).display();
        return retrying(key, (s, a) -> {
            s.at(null, key);
            BarrierState state = StagingStore.state(s, options.sinkName(), m);
            BarrierState.Verdict v = state.evaluate(m);
            if (v.kind() == BarrierState.Kind.MISSING
                    && !CheckpointStore.findApplied(s, List.of(FlowKey.of(m))).isEmpty()) {
                v = new BarrierState(true, List.of(), Map.of()).evaluate(m); // applied (and swept) meanwhile
            }
            if (v.kind() == BarrierState.Kind.MISSING) {
                ManifestPartition p = v.missing();
                if (v.otherVersion() != null) {
                    byte[] bytes = StagingStore.payload(s, options.sinkName(), m, v.otherVersion().partitionId(),
                            v.otherVersion().chunkSequence(), v.otherVersion().checksum());
                    if (bytes != null) {
                        BarrierVerifier.verifyChunk(m, TrellaraCodec.decodeChunk(bytes)); // names the rule
                    }
                }
                throw new ProtocolViolationException(ProtocolRule.MISSING_CHUNK, "partitions[" + indexOf(m, p) + "]",
                        txKey(m), "chunk " + Integer.toUnsignedString(p.getId()) + "/"
                                + Integer.toUnsignedString(p.getChunkSequence()) + " (checksum "
                                + Checksums.hex(p.getChecksum()) + ") listed by the manifest is not staged and can no"
                                + " longer arrive: " + (m.getBoundaryMode()
                                == ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER
                                ? "in strict chunked order every chunk precedes its manifest on the strict topic"
                                : "lane " + Integer.toUnsignedString(p.getId()) + " has been staged past commit "
                                        + m.getSourceCommitLsn()));
            }
            s.connection.commit(); // read only: end the snapshot
            return v;
        });
    }

    /**
     * Applies the barrier of {@code m} (its marker already bound to it, every listed chunk staged) in one target
     * transaction: the dedup check, every event of every chunk in total order (read back from staging one chunk
     * per lane at a time, decoded and verified against the manifest), the dedup record, {@code positions}, and
     * the removal of the dataset's staged chunks up to this commit. Any protocol violation rolls everything back
     * and is thrown as it is.
     */
    @Override
    public BarrierResult applyBarrier(TransactionManifest m, Map<TopicPartitionKey, Long> positions) {
        TransactionBoundaryKey key = boundaryKey(m);
        FlowKey flowKey = FlowKey.of(m);
        BarrierResult r = retrying(key.display(), (s, a) -> {
            s.at(null, key.display());
            boolean present = !CheckpointStore.findApplied(s, List.of(flowKey)).isEmpty();
            if (present) {
                CheckpointStore.record(s, options.sinkName(), List.of(), positions, options.synchronousCommitOff());
                StagingStore.sweep(s, options.sinkName(), m);
                a.committing = true;
                s.connection.commit();
                boolean ours = a.commitUnknown.contains(flowKey); // our earlier attempt did commit it
                metrics.targetCommits.incrementAndGet();
                if (ours) {
                    metrics.transactionsApplied.incrementAndGet();
                    metrics.barriersApplied.incrementAndGet();
                } else {
                    metrics.duplicatesSkipped.incrementAndGet();
                }
                return new BarrierResult(key, !ours, 0, 0, 0, 0, a.number);
            }
            a.order.admit(s, flowKey);
            ChangeWriter writer = new ChangeWriter(s, mapper, options);
            writer.begin(m.getSourceId(), m.getDatasetId(), m.getSourceCommitLsn(), m.getTransactionId());
            BarrierMerge merge = new BarrierMerge();
            merge.run(m, entry -> readChunk(s, m, entry), new BarrierMerge.EventSink() {
                @Override
                public void change(ChangeRecord change, List<SchemaVersion> schemas) throws SQLException {
                    writer.change(change, schemas);
                }

                @Override
                public void ddl(DdlEvent ddl) throws SQLException {
                    writer.ddl(ddl);
                }
            });
            writer.flush();
            s.at(null, key.display());
            a.recording = true;
            CheckpointStore.record(s, options.sinkName(),
                    List.of(AppliedTransaction.of(m, merge.changes(), merge.ddlEvents())), positions,
                    options.synchronousCommitOff());
            StagingStore.sweep(s, options.sinkName(), m);
            a.toApply = Set.of(flowKey);
            a.committing = true;
            s.connection.commit();
            order.committed(a.order);
            publish(writer, 1, 0);
            metrics.barriersApplied.incrementAndGet();
            return new BarrierResult(key, false, merge.changes(), merge.ddlEvents(), merge.chunksRead(),
                    merge.peakOpenChunks(), a.number);
        });
        return r;
    }

    /** True when the transaction is recorded as applied (one query in its own read-only transaction). */
    @Override
    public boolean isApplied(FlowKey key) {
        return retrying(key.display(), (s, a) -> {
            boolean present = !CheckpointStore.findApplied(s, List.of(key)).isEmpty();
            s.connection.commit();
            return present;
        });
    }

    private PartitionChunk readChunk(TargetSession s, TransactionManifest m, ManifestPartition entry)
            throws SQLException {
        byte[] bytes = StagingStore.payload(s, options.sinkName(), m, entry);
        if (bytes == null) { // swept or removed since the barrier was found ready
            throw new ProtocolViolationException(ProtocolRule.MISSING_CHUNK, "partitions[" + indexOf(m, entry) + "]",
                    txKey(m), "chunk " + Integer.toUnsignedString(entry.getId()) + "/"
                            + Integer.toUnsignedString(entry.getChunkSequence()) + " is no longer staged");
        }
        // validated when it was staged: verify the checksum over the staged bytes again, then parse
        return (PartitionChunk) TrellaraCodec.decodeStored(MessageKind.CHUNK, bytes);
    }

    private static int indexOf(TransactionManifest m, ManifestPartition p) {
        return m.getPartitionsList().indexOf(p);
    }

    private static String txKey(TransactionManifest m) {
        return m.getSourceId() + ':' + m.getSourceCommitLsn() + ':' + m.getTransactionId();
    }

    private static TransactionBoundaryKey boundaryKey(TransactionManifest m) {
        return FlowKey.boundaryKey(m);
    }

    // ---- retries ----------------------------------------------------------------------------------------

    /** One attempt of a unit of work in one target transaction. */
    @FunctionalInterface
    private interface Work<T> {
        T run(TargetSession session, Attempt attempt) throws SQLException;
    }

    /**
     * Runs {@code work} until it succeeds, retrying transient failures on a fresh connection with bounded
     * exponential backoff; anything else rolls back and is thrown (protocol violations as they are, everything
     * else as an {@link ApplyException}).
     */
    private <T> T retrying(String what, Work<T> work) {
        Set<FlowKey> commitUnknown = Set.of();
        long backoff = Math.max(1, options.initialBackoff().toMillis());
        long started = nanoClock.getAsLong();
        long budgetMillis = options.maxRetryDuration().toMillis();
        for (int attempt = 1; ; attempt++) {
            Attempt a = new Attempt(attempt, commitUnknown, order);
            try {
                return work.run(session(), a);
            } catch (SQLException | RuntimeException e) {
                boolean transientFailure = !(e instanceof ApplyException) && !(e instanceof ProtocolViolationException)
                        && (isTransient(e) || (a.recording && "23505".equals(SqlStates.of(e))));
                String relation = lastRelation();
                String eventKey = lastEventKey() == null ? what : lastEventKey();
                discardOrRollback(transientFailure);
                if (!transientFailure) {
                    throw translate(e, relation, eventKey);
                }
                if (a.committing) {
                    commitUnknown = a.toApply;
                }
                long elapsedMillis = (nanoClock.getAsLong() - started) / 1_000_000L;
                if (elapsedMillis + backoff > budgetMillis) {
                    LOG.error("Giving up on {} after {} ms and {} attempts: transient failures persisted (SQLSTATE {})",
                            eventKey, elapsedMillis, attempt, SqlStates.of(e));
                    throw new ApplyException(ApplyException.Reason.RETRIES_EXHAUSTED, relation, eventKey,
                            SqlStates.of(e), "transient failure persisted for " + elapsedMillis + " ms through "
                                    + attempt + " attempts (retry.max.duration.ms " + budgetMillis + "): "
                                    + e.getMessage(), e);
                }
                LOG.warn("Transient failure applying {} (SQLSTATE {}, attempt {}, {} ms so far); retrying on a fresh"
                        + " connection in {} ms: {}", eventKey, SqlStates.of(e), attempt, elapsedMillis, backoff,
                        e.getMessage());
                metrics.retries.incrementAndGet();
                pause(backoff);
                backoff = Math.min(backoff * 2, Math.max(1, options.maxBackoff().toMillis()));
            }
        }
    }

    /** State of one attempt that the failure handling needs. */
    private static final class Attempt {
        final int number;
        /** Transactions an earlier attempt was committing when it failed: found applied now means it committed. */
        final Set<FlowKey> commitUnknown;
        /** The commit order this attempt admits, made known to the applier only once it commits. */
        final CommitOrder.Pending order;
        boolean committing;
        /** Writing the dedup records: a unique violation there means another task applied it concurrently. */
        boolean recording;
        Set<FlowKey> toApply = Set.of();

        Attempt(int number, Set<FlowKey> commitUnknown, CommitOrder order) {
            this.number = number;
            this.commitUnknown = commitUnknown;
            this.order = order.pending();
        }
    }

    private GroupOutcome applyOnce(TargetSession s, List<SourceTransaction> group, Attempt attempt)
            throws SQLException {
        Set<FlowKey> commitUnknown = attempt.commitUnknown;
        List<FlowKey> keys = new ArrayList<>(group.size());
        Map<TopicPartitionKey, Long> positions = new LinkedHashMap<>();
        for (SourceTransaction t : group) {
            keys.add(t.flowKey());
            if (t.topicPartition() != null) {
                positions.put(t.topicPartition(), t.nextOffset());
            }
        }
        s.at(null, group.get(0).key().display());
        Set<FlowKey> present = CheckpointStore.findApplied(s, keys);
        List<TransactionBoundaryKey> applied = new ArrayList<>();
        List<TransactionBoundaryKey> duplicates = new ArrayList<>();
        List<AppliedTransaction> records = new ArrayList<>();
        Set<FlowKey> seen = new HashSet<>();
        Set<FlowKey> toApply = new HashSet<>();
        ChangeWriter writer = new ChangeWriter(s, mapper, options);
        for (int i = 0; i < group.size(); i++) {
            SourceTransaction t = group.get(i);
            FlowKey k = keys.get(i);
            if (!seen.add(k) || (present.contains(k) && !commitUnknown.contains(k))) {
                duplicates.add(k.transaction());
            } else if (present.contains(k)) {
                applied.add(k.transaction()); // our earlier attempt did commit it
                toApply.add(k);
            } else {
                attempt.order.admit(s, k);
                writer.write(t.envelope());
                records.add(AppliedTransaction.of(t.envelope()));
                applied.add(k.transaction());
                toApply.add(k);
            }
        }
        writer.flush();
        s.at(null, group.get(0).key().display());
        attempt.recording = true;
        CheckpointStore.record(s, options.sinkName(), records, positions, options.synchronousCommitOff());
        attempt.toApply = toApply;
        attempt.committing = true;
        s.connection.commit();
        order.committed(attempt.order);
        publish(writer, applied.size(), duplicates.size());
        return new GroupOutcome(applied, duplicates, positions, attempt.number);
    }

    private void publish(ChangeWriter w, int applied, int duplicates) {
        metrics.targetCommits.incrementAndGet();
        metrics.transactionsApplied.addAndGet(applied);
        metrics.duplicatesSkipped.addAndGet(duplicates);
        metrics.rowsInserted.addAndGet(w.inserted);
        metrics.rowsUpdated.addAndGet(w.updated);
        metrics.rowsDeleted.addAndGet(w.deleted);
        metrics.truncates.addAndGet(w.truncates);
        metrics.ddlReplayed.addAndGet(w.ddlReplayed());
        metrics.ddlSkipped.addAndGet(w.ddlSkipped());
        metrics.schemaChanges.addAndGet(w.schemaChanges());
        metrics.missingRowsIgnored.addAndGet(w.missingRowsIgnored);
    }

    private TargetSession session() throws SQLException {
        if (session == null) {
            session = TargetSession.open(connections);
        }
        return session;
    }

    private boolean isTransient(Exception e) {
        return isTransient(session, e);
    }

    private void discardOrRollback(boolean discard) {
        if (session == null) {
            return;
        }
        order.forget(); // re-read from the target: another task may have applied meanwhile
        if (discard || !session.rollbackQuietly()) {
            session.close();
            session = null;
        } else {
            session.forgetTables(); // a table created or altered by the rolled-back transaction is as it was
        }
    }

    private String lastRelation() {
        return session == null ? null : session.relation;
    }

    private String lastEventKey() {
        return session == null ? null : session.eventKey;
    }

    private static RuntimeException translate(Exception e, String relation, String eventKey) {
        if (e instanceof ApplyException ae) {
            return ae;
        }
        if (e instanceof ProtocolViolationException pve) {
            return pve;
        }
        if (e instanceof SQLException) {
            return new ApplyException(ApplyException.Reason.DATABASE_ERROR, relation, eventKey, SqlStates.of(e),
                    "the target refused the change: " + e.getMessage(), e);
        }
        return new ApplyException(ApplyException.Reason.UNSUPPORTED_CHANGE, relation, eventKey, null,
                "apply failed: " + e, e);
    }

    @Override
    public void pause(long millis) {
        try {
            sleeper.sleep(millis);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new ApplyException(ApplyException.Reason.RETRIES_EXHAUSTED, null, null, null,
                    "interrupted while waiting to retry", ie);
        }
    }

    @Override
    public void close() {
        if (streamSession != null) {
            streamSession.rollbackQuietly();
            streamSession.close();
            streamSession = null;
        }
        if (session != null) {
            session.rollbackQuietly();
            session.close();
            session = null;
        }
    }
}
