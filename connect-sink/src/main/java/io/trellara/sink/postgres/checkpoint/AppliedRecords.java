package io.trellara.sink.postgres.checkpoint;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a target transaction records with its data in the sink's tables ({@link CheckpointStore}):
 * the dedup records of its source transactions and its progress, under the fence, in one statement;
 * at the end of the transaction ({@link #record}), or at its start, where it is the dedup check too
 * ({@link #claim}).
 */
public final class AppliedRecords {
  private AppliedRecords() {}

  /**
   * Dedup records, progress, the fence, the sweep of earlier staged chunks and (optionally)
   * synchronous_commit=off for this transaction: one round trip. A dedup record already present is
   * left as it is and not returned (the caller claims only what it returns: a duplicate, or a
   * transaction a concurrent task is committing, which this insert waits for). The fence counts the
   * partitions whose progress it writes that another task has claimed. At the end of a transaction
   * ({@link #record}) it also share-locks their owner rows: a claim waits for this transaction to
   * end, and this transaction sees (and refuses) a claim committed before it got here. At the start
   * ({@link #claim}) it does not: a claim must not wait for a whole apply (one stuck on a lock
   * would hold the partition from its new owner), and what it applies is claimed already.
   */
  private static final String RECORD =
      """
            WITH cfg AS (SELECT pg_catalog.set_config('synchronous_commit', coalesce(?::text, pg_catalog.current_setting('synchronous_commit')), true) AS v),
            applied AS (
              INSERT INTO trellara_sink.applied_transactions (source_id, commit_lsn, commit_lsn_value,
                  transaction_id, database_id, dataset_id, protocol_version, row_identity_version,
                  commit_timestamp, event_count, change_count, ddl_count, sink_name, body_digest)
              SELECT s, l::pg_lsn, lv::numeric, t, d, ds, pv, %d, pg_catalog.to_timestamp(ts / 1000.0), ec, cc, dc, ?, bd
                FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[],
                            ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::text[])
                     AS u(s, l, lv, t, d, ds, pv, ts, ec, cc, dc, bd)
              ON CONFLICT (source_id, dataset_id, commit_lsn, transaction_id) DO NOTHING
              RETURNING source_id, dataset_id, commit_lsn, transaction_id),
            progress AS (
              INSERT INTO trellara_sink.progress (sink_name, topic, kafka_partition, next_offset)
              SELECT ?, tp, p, o FROM unnest(?::text[], ?::int[], ?::bigint[]) AS u(tp, p, o)
              ON CONFLICT (sink_name, topic, kafka_partition)
              DO UPDATE SET next_offset = EXCLUDED.next_offset, updated_at = pg_catalog.now()
              -- never backwards: a task that lost its partition (a zombie past max.poll.interval.ms) cannot move
              -- the new owner's progress back
              WHERE trellara_sink.progress.next_offset <= EXCLUDED.next_offset),
            fence AS (
              SELECT o.owner FROM trellara_sink.partition_owners o
                JOIN unnest(?::text[], ?::int[]) AS f(tp, p) ON o.topic = f.tp AND o.kafka_partition = f.p
               WHERE o.sink_name = ? %s),
            -- an earlier publication's chunks of the flow, up to the newest transaction (see StagingStore.sweep)
            swept AS (
              DELETE FROM trellara_sink.staged_chunks c
               USING unnest(?::text[], ?::text[], ?::text[], ?::text[]) AS w(s, ds, l, t)
               WHERE c.sink_name = ? AND c.source_id = w.s AND c.dataset_id = w.ds
                 AND (c.commit_lsn < w.l::pg_lsn OR c.commit_lsn = w.l::pg_lsn AND c.transaction_id = w.t)
              RETURNING 1)
            SELECT v, (SELECT pg_catalog.count(*) FROM fence WHERE owner IS DISTINCT FROM ?),
                   ARRAY(SELECT ARRAY[source_id, dataset_id, commit_lsn::text, transaction_id] FROM applied),
                   (SELECT pg_catalog.count(*) FROM swept)
              FROM cfg""";

  private static final String RECORD_HOLDING_FENCE =
      RECORD.formatted(CheckpointStore.ROW_IDENTITY_VERSION, "FOR SHARE OF o");
  private static final String CLAIM = RECORD.formatted(CheckpointStore.ROW_IDENTITY_VERSION, "");

  /**
   * Writes the dedup records of {@code applied} and the progress {@code positions}, and sets {@code
   * synchronous_commit} for this transaction; one round trip, in the caller's open transaction.
   * Throws {@link ApplyException.Reason#FENCED} when another task than {@code owner} has claimed
   * one of the partitions (the caller rolls back: nothing of the transaction is committed). {@code
   * owner} null: this caller never claimed, and any claim fences it. A dedup record already present
   * (another task applied the transaction after this caller's dedup check) is a serialization
   * failure: retried, and then found a duplicate.
   */
  public static void record(
      TargetSession session,
      String sinkName,
      String owner,
      List<AppliedTransaction> applied,
      Map<TopicPartitionKey, Long> positions,
      boolean synchronousCommitOff)
      throws SQLException {
    Claim claim =
        write(
            session,
            RECORD_HOLDING_FENCE,
            sinkName,
            owner,
            applied,
            positions,
            List.of(),
            synchronousCommitOff);
    if (claim.claimed().size() != applied.size()) {
      throw new SQLException(
          "a transaction of this group was recorded as applied concurrently by another task",
          "40001");
    }
  }

  /**
   * What {@link #claim} did: the transactions it recorded as applied by this transaction, and
   * chunks swept.
   */
  public record Claim(Set<FlowKey> claimed, int swept) {}

  /**
   * As {@link #record}, but first in the transaction, so one round trip serves as the dedup check
   * too: returns the transactions of {@code applied} whose dedup record this transaction now holds.
   * The others were applied already (by an earlier attempt, or another task: the insert waits for a
   * concurrent one to end) and are left as they are. Also deletes, per {@code sweeps} key, the
   * staged chunks of an earlier publication of its flow up to that transaction ({@link
   * StagingStore#sweep}). The fence is checked, not held: a task that claims the partitions after
   * this point does not wait for this transaction, which may still commit. That stays exactly once
   * and in commit order: each task applies its partitions' transactions in order, and a transaction
   * both meet is applied by whichever inserts its dedup record first; the other's insert waits for
   * that transaction and skips it once committed (or claims it if rolled back).
   */
  public static Claim claim(
      TargetSession session,
      String sinkName,
      String owner,
      List<AppliedTransaction> applied,
      Map<TopicPartitionKey, Long> positions,
      List<FlowKey> sweeps,
      boolean synchronousCommitOff)
      throws SQLException {
    return write(session, CLAIM, sinkName, owner, applied, positions, sweeps, synchronousCommitOff);
  }

  private static Claim write(
      TargetSession session,
      String sql,
      String sinkName,
      String owner,
      List<AppliedTransaction> applied,
      Map<TopicPartitionKey, Long> positions,
      List<FlowKey> sweeps,
      boolean synchronousCommitOff)
      throws SQLException {
    int n = applied.size();
    String[] s = new String[n];
    String[] l = new String[n];
    String[] lv = new String[n];
    String[] t = new String[n];
    String[] d = new String[n];
    String[] ds = new String[n];
    Integer[] pv = new Integer[n];
    Long[] ts = new Long[n];
    Long[] ec = new Long[n];
    Long[] cc = new Long[n];
    Long[] dc = new Long[n];
    String[] bd = new String[n];
    for (int i = 0; i < n; i++) {
      AppliedTransaction e = applied.get(i);
      s[i] = e.sourceId();
      l[i] = e.commitLsn();
      lv[i] = Long.toUnsignedString(Lsn.parse(e.commitLsn()).value());
      t[i] = e.transactionId();
      d[i] = e.databaseId();
      ds[i] = e.datasetId();
      pv[i] = e.protocolVersion();
      ts[i] = e.commitTimestampMs();
      cc[i] = e.changeCount();
      dc[i] = e.ddlCount();
      ec[i] = cc[i] + dc[i];
      bd[i] = e.bodyDigest();
    }
    String[] topics = new String[positions.size()];
    Integer[] partitions = new Integer[positions.size()];
    Long[] offsets = new Long[positions.size()];
    int i = 0;
    for (Map.Entry<TopicPartitionKey, Long> p : positions.entrySet()) {
      topics[i] = p.getKey().topic();
      partitions[i] = p.getKey().partition();
      offsets[i++] = p.getValue();
    }
    String[][] swept = new String[4][sweeps.size()];
    for (int w = 0; w < sweeps.size(); w++) {
      TransactionBoundaryKey k = sweeps.get(w).transaction();
      swept[0][w] = k.sourceId();
      swept[1][w] = sweeps.get(w).datasetId();
      swept[2][w] = k.commitLsn();
      swept[3][w] = k.transactionId();
    }
    PreparedStatement ps = session.prepare(sql);
    int p = 1;
    ps.setString(p++, synchronousCommitOff ? "off" : null);
    ps.setString(p++, sinkName);
    for (Object[] a : new Object[][] {s, l, lv, t, d, ds}) {
      ps.setArray(p++, session.array("text", a));
    }
    ps.setArray(p++, session.array("int4", pv));
    for (Object[] a : new Object[][] {ts, ec, cc, dc}) {
      ps.setArray(p++, session.array("int8", a));
    }
    ps.setArray(p++, session.array("text", bd));
    ps.setString(p++, sinkName);
    ps.setArray(p++, session.array("text", topics));
    ps.setArray(p++, session.array("int4", partitions));
    ps.setArray(p++, session.array("int8", offsets));
    ps.setArray(p++, session.array("text", topics));
    ps.setArray(p++, session.array("int4", partitions));
    ps.setString(p++, sinkName);
    for (String[] a : swept) {
      ps.setArray(p++, session.array("text", a));
    }
    ps.setString(p++, sinkName);
    ps.setString(p, owner);
    long fenced;
    Set<FlowKey> claimed = new HashSet<>();
    int sweptRows;
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      fenced = rs.getLong(2);
      for (Object row : (Object[]) rs.getArray(3).getArray()) {
        String[] k = (String[]) row;
        claimed.add(new FlowKey(k[1], new TransactionBoundaryKey(k[0], "", k[2], k[3])));
      }
      sweptRows = rs.getInt(4);
    }
    if (fenced > 0) {
      throw PartitionOwners.fenced(session, sinkName, owner, topics, partitions);
    }
    return new Claim(claimed, sweptRows);
  }
}
