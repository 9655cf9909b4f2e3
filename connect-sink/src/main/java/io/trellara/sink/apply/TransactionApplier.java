package io.trellara.sink.apply;

import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.v1.TransactionEnvelope;
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
 * <p>Not thread-safe: one applier per sink task.
 */
public final class TransactionApplier implements AutoCloseable {
    private final ConnectionFactory connections;
    private final RelationMapper mapper;
    private final ApplyOptions options;
    private final ApplyMetrics metrics = new ApplyMetrics();
    private final Sleeper sleeper;
    private TargetSession session;

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
        this.connections = Objects.requireNonNull(connections, "connections");
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        this.options = Objects.requireNonNull(options, "options");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    }

    public ApplyMetrics metrics() {
        return metrics;
    }

    public ApplyOptions options() {
        return options;
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
        Set<TransactionBoundaryKey> commitUnknown = Set.of();
        long backoff = Math.max(1, options.initialBackoff().toMillis());
        for (int attempt = 1; ; attempt++) {
            Attempt a = new Attempt();
            try {
                GroupOutcome o = applyOnce(group, commitUnknown, a, attempt);
                return o;
            } catch (SQLException | RuntimeException e) {
                boolean transientFailure = !(e instanceof ApplyException)
                        && (isTransient(e) || (a.recording && "23505".equals(SqlStates.of(e))));
                String relation = lastRelation();
                String eventKey = lastEventKey();
                discardOrRollback(transientFailure);
                if (!transientFailure) {
                    throw translate(e, relation, eventKey);
                }
                if (a.committing) {
                    commitUnknown = a.toApply;
                }
                if (attempt >= options.maxAttempts()) {
                    throw new ApplyException(ApplyException.Reason.RETRIES_EXHAUSTED, relation, eventKey,
                            SqlStates.of(e), "transient failure persisted through " + attempt + " attempts: "
                                    + e.getMessage(), e);
                }
                metrics.retries.incrementAndGet();
                pause(backoff);
                backoff = Math.min(backoff * 2, Math.max(1, options.maxBackoff().toMillis()));
            }
        }
    }

    /** State of one attempt that the failure handling needs. */
    private static final class Attempt {
        boolean committing;
        /** Writing the dedup records: a unique violation there means another task applied it concurrently. */
        boolean recording;
        Set<TransactionBoundaryKey> toApply = Set.of();
    }

    private GroupOutcome applyOnce(List<SourceTransaction> group, Set<TransactionBoundaryKey> commitUnknown,
                                   Attempt attempt, int attemptNumber) throws SQLException {
        TargetSession s = session();
        List<TransactionBoundaryKey> keys = new ArrayList<>(group.size());
        Map<TopicPartitionKey, Long> positions = new LinkedHashMap<>();
        for (SourceTransaction t : group) {
            keys.add(t.key());
            if (t.topicPartition() != null) {
                positions.put(t.topicPartition(), t.nextOffset());
            }
        }
        s.at(null, group.get(0).key().display());
        Set<TransactionBoundaryKey> present = CheckpointStore.findApplied(s, keys);
        List<TransactionBoundaryKey> applied = new ArrayList<>();
        List<TransactionBoundaryKey> duplicates = new ArrayList<>();
        List<TransactionEnvelope> envelopes = new ArrayList<>();
        Set<TransactionBoundaryKey> seen = new HashSet<>();
        ChangeWriter writer = new ChangeWriter(s, mapper, options);
        for (SourceTransaction t : group) {
            TransactionBoundaryKey k = t.key();
            if (!seen.add(k) || (present.contains(k) && !commitUnknown.contains(k))) {
                duplicates.add(k);
            } else if (present.contains(k)) {
                applied.add(k); // our earlier attempt did commit it
            } else {
                writer.write(t.envelope());
                envelopes.add(t.envelope());
                applied.add(k);
            }
        }
        writer.flush();
        s.at(null, group.get(0).key().display());
        attempt.recording = true;
        CheckpointStore.record(s, options.sinkName(), envelopes, positions, options.synchronousCommitOff());
        attempt.toApply = new HashSet<>(applied);
        attempt.committing = true;
        s.connection.commit();
        publish(writer, applied.size(), duplicates.size());
        return new GroupOutcome(applied, duplicates, positions, attemptNumber);
    }

    private void publish(ChangeWriter w, int applied, int duplicates) {
        metrics.targetCommits.incrementAndGet();
        metrics.transactionsApplied.addAndGet(applied);
        metrics.duplicatesSkipped.addAndGet(duplicates);
        metrics.rowsInserted.addAndGet(w.inserted);
        metrics.rowsUpdated.addAndGet(w.updated);
        metrics.rowsDeleted.addAndGet(w.deleted);
        metrics.truncates.addAndGet(w.truncates);
        metrics.ddlReplayed.addAndGet(w.ddlReplayed);
        metrics.ddlSkipped.addAndGet(w.ddlSkipped);
        metrics.missingRowsIgnored.addAndGet(w.missingRowsIgnored);
    }

    private TargetSession session() throws SQLException {
        if (session == null) {
            session = TargetSession.open(connections);
        }
        return session;
    }

    private boolean isTransient(Exception e) {
        if (SqlStates.isTransient(e)) {
            return true;
        }
        try {
            return e instanceof SQLException && session != null && session.connection.isClosed();
        } catch (SQLException closedCheck) {
            return true;
        }
    }

    private void discardOrRollback(boolean discard) {
        if (session == null) {
            return;
        }
        if (discard || !session.rollbackQuietly()) {
            session.close();
            session = null;
        } else {
            session.verifiedTables.clear(); // a table created by the rolled-back transaction is gone again
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
        if (e instanceof SQLException) {
            return new ApplyException(ApplyException.Reason.DATABASE_ERROR, relation, eventKey, SqlStates.of(e),
                    "the target refused the change: " + e.getMessage(), e);
        }
        return new ApplyException(ApplyException.Reason.UNSUPPORTED_CHANGE, relation, eventKey, null,
                "apply failed: " + e, e);
    }

    private void pause(long millis) {
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
        if (session != null) {
            session.rollbackQuietly();
            session.close();
            session = null;
        }
    }
}
