package io.trellara.sink.postgres.snapshot;

import io.trellara.protocol.LogText;
import io.trellara.protocol.Snapshots;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.postgres.checkpoint.AppliedRecords;
import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.schema.TargetTable;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.SnapshotTargetPolicy;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A source's initial snapshot (transaction_id {@value Snapshots#TRANSACTION_ID}) meeting the
 * target: before its first row reaches a target table, the table is looked at once. Empty: loaded.
 * Holding rows: replaced when the same flow has fed this target before (an earlier snapshot, or
 * streamed transactions after an empty one: the source snapshots again when its slot or offsets
 * were lost, and the later snapshot supersedes what came before), otherwise {@code
 * snapshot.target.nonempty} decides: refused, emptied, or upserted into. Everything happens inside
 * the snapshot's own target transaction, so a reader sees the table as it was or completely loaded,
 * and rows are replaced by DELETE, never TRUNCATE, so no reader waits for the load.
 */
public final class SnapshotLoad {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotLoad.class);

  /**
   * The flow applied a transaction here, or committed a table of a snapshot
   * (snapshot.apply=per_table).
   */
  static final String FLOW_APPLIED_SQL =
      "SELECT 1 FROM trellara_sink.applied_transactions WHERE source_id = ?"
          + " AND dataset_id = ? UNION ALL SELECT 1 FROM trellara_sink.snapshot_tables WHERE source_id = ?"
          + " AND dataset_id = ? LIMIT 1";

  private final TargetSession session;
  private final SnapshotTargetPolicy policy;
  private final Set<QualifiedName> looked = new HashSet<>();
  private final Set<QualifiedName> upserted = new HashSet<>();
  private String transaction;

  /** Per flow (source and dataset): whether it fed this target before this target transaction. */
  private final Map<FlowKey.Flow, Boolean> flowsApplied = new HashMap<>();

  public SnapshotLoad(TargetSession session, SnapshotTargetPolicy policy) {
    this.session = session;
    this.policy = policy;
  }

  /** Names the transaction whose rows follow; only a snapshot's are looked at. */
  public void begin(String sourceId, String datasetId, String commitLsn, String transactionId) {
    String t =
        Snapshots.isSnapshot(transactionId)
            ? sourceId + '\u0000' + datasetId + '\u0000' + commitLsn
            : null;
    if (t == null || !t.equals(transaction)) {
      looked.clear();
      upserted.clear();
    }
    transaction = t;
  }

  /** Before the first row of the snapshot reaches {@code target}. */
  public void prepare(TargetTable table, String sourceId, String datasetId, String eventKey)
      throws SQLException {
    QualifiedName target = table.name();
    if (transaction == null || !looked.add(target) || isEmpty(table)) {
      return;
    }
    if (flowApplied(sourceId, datasetId)) {
      LOG.info(
          "Snapshot of {}/{} replaces the rows of {}: the same source fed this target before (its slot or"
              + " offsets were lost and it snapshots again)",
          LogText.escape(sourceId),
          LogText.escape(datasetId),
          LogText.escape(target.quoted()));
      truncate(table);
      return;
    }
    switch (policy) {
      case FAIL ->
          throw new ApplyException(
              ApplyException.Reason.SNAPSHOT_TARGET_NOT_EMPTY,
              target.quoted(),
              eventKey,
              "the initial snapshot of source "
                  + sourceId
                  + " would load "
                  + target.quoted()
                  + ", which already holds rows this source never applied; nothing of the snapshot"
                  + " is applied. Empty the table, or set snapshot.target.nonempty=truncate (replace its"
                  + " rows atomically) or =upsert (write the snapshot over them by key)");
      case TRUNCATE -> {
        LOG.info(
            "snapshot.target.nonempty=truncate: the snapshot of {}/{} replaces the rows of {}",
            LogText.escape(sourceId),
            LogText.escape(datasetId),
            LogText.escape(target.quoted()));
        truncate(table);
      }
      case UPSERT -> {
        LOG.info(
            "snapshot.target.nonempty=upsert: the snapshot of {}/{} is written over the rows of {}",
            LogText.escape(sourceId),
            LogText.escape(datasetId),
            LogText.escape(target.quoted()));
        upserted.add(target);
      }
    }
  }

  /** True when the snapshot's inserts into {@code target} must upsert. */
  public boolean upserts(QualifiedName target) {
    return !upserted.isEmpty() && upserted.contains(target);
  }

  private boolean isEmpty(TargetTable table) throws SQLException {
    return session.query(
        "SELECT NOT EXISTS (SELECT 1 FROM " + table.rowScope() + ")",
        rs -> rs.next() && rs.getBoolean(1));
  }

  /**
   * Whether the flow fed this target before this target transaction, read once: the caller reads it
   * before the transaction records anything of the flow ({@link AppliedRecords#claim}), which the
   * read would then count.
   */
  public boolean flowApplied(String sourceId, String datasetId) throws SQLException {
    FlowKey.Flow flow = new FlowKey.Flow(sourceId, datasetId);
    Boolean applied = flowsApplied.get(flow);
    if (applied == null) {
      PreparedStatement ps = session.prepare(FLOW_APPLIED_SQL);
      ps.setString(1, sourceId);
      ps.setString(2, datasetId);
      ps.setString(3, sourceId);
      ps.setString(4, datasetId);
      try (ResultSet rs = ps.executeQuery()) {
        applied = rs.next();
      }
      flowsApplied.put(flow, applied);
    }
    return applied;
  }

  /**
   * Empties {@code target} inside the snapshot's transaction without locking readers out: a DELETE
   * takes ROW EXCLUSIVE (which no SELECT waits for) and is MVCC-safe, so a reader at any isolation
   * level sees the old rows until the snapshot commits and the new ones after, never an empty table
   * in between. TRUNCATE would hold ACCESS EXCLUSIVE for the whole load, and a REPEATABLE READ
   * reader whose snapshot predates it would see the table empty. The cost: the old rows stay as
   * dead tuples until (auto)vacuum reclaims them (docs/snapshot.md). {@code ONLY}: inheritance
   * children are not this table; a partitioned table's rows are in its partitions, so it is named
   * without ({@link TargetTable#rowScope}).
   */
  private void truncate(TargetTable table) throws SQLException {
    session.at(table.name().quoted(), "");
    session.execute("DELETE FROM " + table.rowScope());
  }
}
