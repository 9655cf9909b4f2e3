package io.trellara.sink.target;

import io.trellara.sink.engine.ApplyException;
import io.trellara.sink.engine.FlowKey;
import io.trellara.protocol.Lsn;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Strict order per flow: commit LSNs only grow. A transaction the sink has not applied whose commit LSN is at
 * or below the newest one applied for its flow is refused (as PostgreSQL's own apply skips what its origin has
 * passed, except that here it is not silently skipped: a duplicate is recognised by its recorded identity
 * before this check, so anything left is a forged, foreign or re-ordered record). The newest LSN per flow is
 * read from the target once and then kept in memory; an attempt's admissions become known only when it commits.
 */
final class CommitOrder {
    private final Map<FlowKey.Flow, Optional<Lsn>> known = new HashMap<>();

    Pending pending() {
        return new Pending();
    }

    void committed(Pending p) {
        p.admitted.forEach((flow, lsn) -> known.put(flow, Optional.of(lsn)));
    }

    /** After a failure: another task may have applied meanwhile, so read the target again. */
    void forget() {
        known.clear();
    }

    /** What one attempt admits, in order. */
    final class Pending {
        private final Map<FlowKey.Flow, Lsn> admitted = new HashMap<>();

        /** Admits {@code key} after everything admitted or applied before it, or throws naming both LSNs. */
        void admit(TargetSession s, FlowKey key) throws SQLException {
            FlowKey.Flow flow = key.flow();
            Lsn lsn = Lsn.parse(key.transaction().commitLsn());
            Lsn last = admitted.get(flow);
            if (last == null) {
                Optional<Lsn> k = known.get(flow);
                if (k == null) {
                    k = Optional.ofNullable(CheckpointStore.lastApplied(s, flow));
                    known.put(flow, k);
                }
                last = k.orElse(null);
            }
            if (last != null && lsn.compareTo(last) <= 0) {
                if (!CheckpointStore.findApplied(s, java.util.List.of(key)).isEmpty()) {
                    // another task (a second sink, or this partition's previous owner) committed it after this
                    // attempt's dedup check: a serialization failure, retried, and then a duplicate
                    throw new SQLException("transaction " + key.display() + " was applied concurrently", "40001");
                }
                throw new ApplyException(ApplyException.Reason.OUT_OF_ORDER, null, key.transaction().display(),
                        "commit LSN " + lsn + " is at or below " + last + ", the newest already applied for flow "
                                + flow + ", and this transaction's identity is not recorded as applied: in strict"
                                + " order commit LSNs only grow, so this record is re-ordered, forged or from"
                                + " another source history; nothing of it is applied");
            }
            admitted.put(flow, lsn);
        }
    }
}
