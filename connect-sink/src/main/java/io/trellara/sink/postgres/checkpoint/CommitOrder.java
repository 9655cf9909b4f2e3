package io.trellara.sink.postgres.checkpoint;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Strict order per flow: commit LSNs only grow. A transaction the sink has not applied whose commit
 * LSN is at or below the newest one applied for its flow is refused (as PostgreSQL's own apply
 * skips what its origin has passed, except that here it is not silently skipped: a duplicate is
 * recognised by its recorded identity before this check, so anything left is a forged, foreign or
 * re-ordered record). The newest LSN per flow is read from the target once and then kept in memory;
 * an attempt's admissions become known only when it commits.
 *
 * <p>One LSN holds two transactions in one case: the initial snapshot commits at the slot's
 * consistent point, and a streamed transaction whose commit record starts exactly there is decoded
 * (PostgreSQL skips only commits before the point) and commits at the same LSN. The snapshot orders
 * first ({@link Position}).
 */
public final class CommitOrder {
  private final Map<FlowKey.Flow, Optional<Position>> known = new HashMap<>();

  /**
   * A place in a flow's commit order: the commit LSN, and at one LSN the snapshot before a streamed
   * transaction.
   */
  record Position(Lsn lsn, boolean snapshot) {
    static Position of(TransactionBoundaryKey key) {
      return new Position(Lsn.parse(key.commitLsn()), Snapshots.isSnapshot(key.transactionId()));
    }

    /** Whether {@code next} comes strictly after this position. */
    boolean isBefore(Position next) {
      int c = next.lsn.compareTo(lsn);
      return c > 0 || c == 0 && snapshot && !next.snapshot;
    }

    @Override
    public String toString() {
      return snapshot ? lsn + " (the snapshot)" : lsn.toString();
    }
  }

  public Pending pending() {
    return new Pending();
  }

  public void committed(Pending p) {
    p.admitted.forEach((flow, position) -> known.put(flow, Optional.of(position)));
  }

  /** After a failure: another task may have applied meanwhile, so read the target again. */
  public void forget() {
    known.clear();
  }

  /** What one attempt admits, in order. */
  public final class Pending {
    private final Map<FlowKey.Flow, Position> admitted = new HashMap<>();

    /**
     * Reads the newest position applied for {@code flow} from the target, unless known: before this
     * attempt records anything of that flow, which the read would see.
     */
    public void readLastApplied(TargetSession s, FlowKey.Flow flow) throws SQLException {
      if (!admitted.containsKey(flow) && !known.containsKey(flow)) {
        known.put(flow, Optional.ofNullable(CheckpointStore.lastApplied(s, flow)));
      }
    }

    /**
     * Admits {@code key} after everything admitted or applied before it, or throws naming both
     * LSNs. {@code claimed}: this attempt holds its dedup record already ({@link
     * AppliedRecords#claim}), so no other task can have applied it meanwhile.
     */
    public void admit(TargetSession s, FlowKey key, boolean claimed) throws SQLException {
      FlowKey.Flow flow = key.flow();
      Position position = Position.of(key.transaction());
      Position last = admitted.get(flow);
      if (last == null) {
        readLastApplied(s, flow);
        last = known.get(flow).orElse(null);
      }
      if (last != null && !last.isBefore(position)) {
        if (!claimed && !CheckpointStore.findApplied(s, java.util.List.of(key)).isEmpty()) {
          // another task (a second sink, or this partition's previous owner) committed it after
          // this
          // attempt's dedup check: a serialization failure, retried, and then a duplicate
          throw new SQLException(
              "transaction " + key.display() + " was applied concurrently", "40001");
        }
        throw new ApplyException(
            ApplyException.Reason.OUT_OF_ORDER,
            null,
            key.transaction().display(),
            "commit LSN "
                + position
                + " is at or below "
                + last
                + ", the newest already applied for flow "
                + flow
                + ", and this transaction's identity is not recorded as applied: in strict"
                + " order commit LSNs only grow, so this record is re-ordered, forged or from"
                + " another source history; nothing of it is applied");
      }
      admitted.put(flow, position);
    }
  }
}
