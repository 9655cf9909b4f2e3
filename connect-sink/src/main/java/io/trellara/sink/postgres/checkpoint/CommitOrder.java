package io.trellara.sink.postgres.checkpoint;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.LogText;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.FlowBounds;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

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
 *
 * <p>A topic writer can forge a record of any flow: positions therefore move only with an applied
 * transaction (the newest is read from the dedup records, written in the transaction that applies
 * it), and a transaction is admitted only within {@link FlowBounds}: of a flow the operator named
 * (when they did), and no further past the flow's newest applied position than the WAL bound (a
 * flow's first transaction: past the newest of any flow of its source, unless the source has none).
 * A refusal is thrown before anything of the transaction is written and rolls its target
 * transaction back, so it moves no position.
 */
public final class CommitOrder {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CommitOrder.class);

  /** The newest commit LSN applied for any flow of one source (a new flow's first bound). */
  private static final String SOURCE_NEWEST =
      """
            SELECT pg_catalog.max(a.commit_lsn_value)::text FROM trellara_sink.applied_transactions a
             WHERE a.source_id = ?""";

  private final Map<FlowKey.Flow, Optional<Position>> known = new HashMap<>();
  private final Set<FlowKey.Flow> announced = new HashSet<>();

  /**
   * For a flow with nothing applied: the newest position of any flow of its source, read before
   * this attempt claims anything (a claim of the same group would show in it otherwise).
   */
  private final Map<FlowKey.Flow, Optional<Lsn>> sources = new HashMap<>();

  private final FlowBounds bounds;

  public CommitOrder(FlowBounds bounds) {
    this.bounds = Objects.requireNonNull(bounds, "bounds");
  }

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
    sources.clear();
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
        Optional<Position> last = Optional.ofNullable(CheckpointStore.lastApplied(s, flow));
        known.put(flow, last);
        if (last.isEmpty()) {
          sourceReference(s, flow);
        }
      }
    }

    /**
     * Admits {@code key} after everything admitted or applied before it, or throws naming both
     * LSNs. {@code claimed}: this attempt holds its dedup record already ({@link
     * AppliedRecords#claim}), so no other task can have applied it meanwhile.
     */
    public void admit(TargetSession s, FlowKey key, boolean claimed) throws SQLException {
      FlowKey.Flow flow = key.flow();
      requireConfigured(key);
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
      requireWithinBound(s, key, position, last);
      admitted.put(flow, position);
    }
  }

  private void requireConfigured(FlowKey key) {
    if (!bounds.configured(key.transaction().sourceId(), key.datasetId())) {
      throw new ApplyException(
          ApplyException.Reason.FLOW_NOT_CONFIGURED,
          null,
          display(key),
          "flow "
              + LogText.escape(key.flow().toString())
              + " is not among the flows this sink applies (source.ids "
              + bounds.sourceIds()
              + ", dataset.ids "
              + bounds.datasetIds()
              + "); nothing of it is applied");
    }
  }

  /**
   * The WAL bound against {@code last} (the flow's newest), or for a flow's first transaction
   * against its source's newest; a source with nothing applied yet has no reference and is taken as
   * it comes (named once in the log: which flows feed a target is worth an operator's look).
   */
  private void requireWithinBound(TargetSession s, FlowKey key, Position position, Position last)
      throws SQLException {
    Lsn reference = last == null ? null : last.lsn();
    String against = "the newest position applied for its flow";
    if (last == null) {
      reference = sourceReference(s, key.flow());
      against = "the newest position applied for any flow of its source";
      if (announced.add(key.flow())) {
        LOG.info(
            "The first transaction of flow {} on this target: {} (a flow not applied before;"
                + " source.ids and dataset.ids restrict which flows are applied)",
            LogText.escape(key.flow().toString()),
            LogText.escape(display(key)));
      }
    }
    if (reference == null) {
      return;
    }
    long ahead = position.lsn().value() - reference.value();
    if (Long.compareUnsigned(position.lsn().value(), reference.value()) > 0
        && Long.compareUnsigned(ahead, bounds.maxLsnAdvanceBytes()) > 0) {
      throw new ApplyException(
          ApplyException.Reason.LSN_TOO_FAR_AHEAD,
          null,
          display(key),
          "commit LSN "
              + position.lsn()
              + " is "
              + Long.toUnsignedString(ahead)
              + " WAL bytes past "
              + reference
              + ", "
              + against
              + ", more than order.max.lsn.advance.bytes ("
              + bounds.maxLsnAdvanceBytes()
              + "): a record that far ahead would put every later real transaction out of order;"
              + " nothing of it is applied and no position moves");
    }
  }

  private Lsn sourceReference(TargetSession s, FlowKey.Flow flow) throws SQLException {
    Optional<Lsn> known = sources.get(flow);
    if (known == null) {
      PreparedStatement ps = s.prepare(SOURCE_NEWEST);
      ps.setString(1, flow.sourceId());
      try (ResultSet rs = ps.executeQuery()) {
        String v = rs.next() ? rs.getString(1) : null;
        known = Optional.ofNullable(v == null ? null : Lsn.of(Long.parseUnsignedLong(v)));
      }
      sources.put(flow, known);
    }
    return known.orElse(null);
  }

  private static String display(FlowKey key) {
    TransactionBoundaryKey k = key.transaction();
    return EventKey.transaction(k.sourceId(), k.commitLsn(), k.transactionId());
  }
}
