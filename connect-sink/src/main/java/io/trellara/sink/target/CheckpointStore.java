package io.trellara.sink.target;

import io.trellara.sink.engine.ApplyException;
import io.trellara.sink.engine.FlowKey;
import io.trellara.sink.engine.TopicPartitionKey;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.TransactionBoundaryKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The sink's own tables in the target: {@code trellara_sink.applied_transactions} (dedup by transaction
 * identity) and {@code trellara_sink.progress} (the next input offset per sink, topic and partition). Both are
 * written in the same target transaction as the data, so the target alone says what has been applied.
 * Chunked and partitioned boundaries add {@code trellara_sink.staged_chunks} (chunks held until their barrier
 * applies) and {@code trellara_sink.lane_watermarks} (per lane, the newest commit LSN staged from it); see
 * {@link StagingStore}.
 */
public final class CheckpointStore {
    public static final String SCHEMA = "trellara_sink";
    /** Row identity version recorded with every applied transaction. */
    public static final int ROW_IDENTITY_VERSION = 2;

    private static final String[] DDL = {
        // a least-privilege role gets the schema from an administrator and has no CREATE on the database, which
        // CREATE SCHEMA IF NOT EXISTS would check even when the schema exists
        """
        DO $$ BEGIN
          IF pg_catalog.to_regnamespace('trellara_sink') IS NULL THEN
            CREATE SCHEMA trellara_sink;
          END IF;
        END $$""",
        """
        CREATE TABLE IF NOT EXISTS trellara_sink.applied_transactions (
          source_id text NOT NULL,
          commit_lsn pg_lsn NOT NULL,
          commit_lsn_value numeric(20,0) NOT NULL,
          transaction_id text NOT NULL,
          database_id text NOT NULL,
          dataset_id text NOT NULL,
          protocol_version integer NOT NULL,
          row_identity_version integer NOT NULL,
          commit_timestamp timestamptz NOT NULL,
          event_count bigint NOT NULL,
          change_count bigint NOT NULL,
          ddl_count bigint NOT NULL,
          sink_name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
          PRIMARY KEY (source_id, dataset_id, commit_lsn, transaction_id))""",
        // a target created before dedup was scoped to the flow: move its key to the flow (idempotent)
        """
        DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint c JOIN pg_catalog.pg_attribute a
                            ON a.attrelid = c.conrelid AND a.attnum OPERATOR(pg_catalog.=) ANY (c.conkey)
                          WHERE c.conrelid = 'trellara_sink.applied_transactions'::pg_catalog.regclass
                            AND c.contype = 'p' AND a.attname = 'dataset_id') THEN
            ALTER TABLE trellara_sink.applied_transactions DROP CONSTRAINT applied_transactions_pkey,
              ADD PRIMARY KEY (source_id, dataset_id, commit_lsn, transaction_id);
          END IF;
        END $$""",
        "DROP INDEX IF EXISTS trellara_sink.applied_transactions_order",
        """
        CREATE INDEX IF NOT EXISTS applied_transactions_flow_order
          ON trellara_sink.applied_transactions (source_id, dataset_id, commit_lsn_value)""",
        // what structured schema evolution last applied per source relation (see SchemaEvolution)
        """
        CREATE TABLE IF NOT EXISTS trellara_sink.relation_schemas (
          sink_name text NOT NULL,
          source_id text NOT NULL,
          dataset_id text NOT NULL,
          source_schema text NOT NULL,
          source_table text NOT NULL,
          fingerprint text NOT NULL,
          definition bytea NOT NULL,
          updated_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
          PRIMARY KEY (sink_name, source_id, dataset_id, source_schema, source_table))""",
        """
        CREATE TABLE IF NOT EXISTS trellara_sink.progress (
          sink_name text NOT NULL,
          topic text NOT NULL,
          kafka_partition integer NOT NULL,
          next_offset bigint NOT NULL,
          updated_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
          PRIMARY KEY (sink_name, topic, kafka_partition))""",
        // which task owns each input partition (see claim): a task that lost its partition cannot commit into it
        """
        CREATE TABLE IF NOT EXISTS trellara_sink.partition_owners (
          sink_name text NOT NULL,
          topic text NOT NULL,
          kafka_partition integer NOT NULL,
          owner text NOT NULL,
          claimed_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
          PRIMARY KEY (sink_name, topic, kafka_partition))""",
        // chunked and partitioned boundaries: chunks held until their barrier applies (see StagingStore)
        """
        CREATE TABLE IF NOT EXISTS trellara_sink.staged_chunks (
          sink_name text NOT NULL,
          source_id text NOT NULL,
          commit_lsn pg_lsn NOT NULL,
          transaction_id text NOT NULL,
          partition_id bigint NOT NULL,
          chunk_sequence bigint NOT NULL,
          checksum bigint NOT NULL,
          database_id text NOT NULL,
          dataset_id text NOT NULL,
          boundary_mode text NOT NULL,
          event_count bigint NOT NULL,
          first_total_order bigint NOT NULL,
          last_total_order bigint NOT NULL,
          payload bytea NOT NULL,
          staged_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
          PRIMARY KEY (sink_name, source_id, dataset_id, commit_lsn, transaction_id, partition_id, chunk_sequence,
            checksum))""",
        // payloads are checksummed protobuf on a transient table: compressing them costs more than it saves
        """
        DO $$ BEGIN
          IF (SELECT attstorage FROM pg_attribute WHERE attrelid = 'trellara_sink.staged_chunks'::regclass
                 AND attname = 'payload') <> 'e' THEN
            ALTER TABLE trellara_sink.staged_chunks ALTER COLUMN payload SET STORAGE EXTERNAL;
          END IF;
        END $$""",
        // snapshot.apply=per_table: the tables of a snapshot committed so far (see SnapshotTableCommits)
        """
        CREATE TABLE IF NOT EXISTS trellara_sink.snapshot_tables (
          source_id text NOT NULL,
          dataset_id text NOT NULL,
          commit_lsn pg_lsn NOT NULL,
          source_schema text NOT NULL,
          source_table text NOT NULL,
          through_total_order bigint NOT NULL,
          row_count bigint NOT NULL,
          sink_name text NOT NULL,
          committed_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
          PRIMARY KEY (source_id, dataset_id, commit_lsn, source_schema, source_table))""",
        """
        CREATE TABLE IF NOT EXISTS trellara_sink.lane_watermarks (
          sink_name text NOT NULL,
          source_id text NOT NULL,
          dataset_id text NOT NULL,
          partition_id bigint NOT NULL,
          commit_lsn pg_lsn NOT NULL,
          updated_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
          PRIMARY KEY (sink_name, source_id, dataset_id, partition_id))"""
    };

    // multi-argument unnest in FROM is syntax (ROWS FROM), not a function a search_path could resolve elsewhere
    private static final String FIND_APPLIED = """
            SELECT a.source_id, a.dataset_id, a.commit_lsn::text, a.transaction_id
              FROM trellara_sink.applied_transactions a
              JOIN unnest(?::text[], ?::text[], ?::text[], ?::text[])
                   AS k(source_id, dataset_id, commit_lsn, transaction_id)
                ON a.source_id = k.source_id AND a.dataset_id = k.dataset_id
               AND a.commit_lsn = k.commit_lsn::pg_lsn AND a.transaction_id = k.transaction_id""";

    /** The newest transactions applied for one flow (strict order: a new transaction must come after them). */
    private static final String LAST_APPLIED = """
            SELECT a.commit_lsn::text, a.transaction_id FROM trellara_sink.applied_transactions a
             WHERE a.source_id = ? AND a.dataset_id = ?
             ORDER BY a.commit_lsn_value DESC LIMIT 2""";

    /**
     * Dedup records, progress, the fence, the sweep of earlier staged chunks and (optionally)
     * synchronous_commit=off for this transaction: one round trip. A dedup record already present is left as it
     * is and not returned (the caller claims only what it returns: a duplicate, or a transaction a concurrent task
     * is committing, which this insert waits for). The fence counts the partitions whose progress it writes that
     * another task has claimed. At the end of a transaction ({@link #record}) it also share-locks their owner rows:
     * a claim waits for this transaction to end, and this transaction sees (and refuses) a claim committed before
     * it got here. At the start ({@link #claim}) it does not: a claim must not wait for a whole apply (one stuck
     * on a lock would hold the partition from its new owner), and what it applies is claimed already.
     */
    private static final String RECORD = """
            WITH cfg AS (SELECT pg_catalog.set_config('synchronous_commit', coalesce(?::text, pg_catalog.current_setting('synchronous_commit')), true) AS v),
            applied AS (
              INSERT INTO trellara_sink.applied_transactions (source_id, commit_lsn, commit_lsn_value,
                  transaction_id, database_id, dataset_id, protocol_version, row_identity_version,
                  commit_timestamp, event_count, change_count, ddl_count, sink_name)
              SELECT s, l::pg_lsn, lv::numeric, t, d, ds, pv, %d, pg_catalog.to_timestamp(ts / 1000.0), ec, cc, dc, ?
                FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[],
                            ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[])
                     AS u(s, l, lv, t, d, ds, pv, ts, ec, cc, dc)
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
    private static final String RECORD_HOLDING_FENCE = RECORD.formatted(ROW_IDENTITY_VERSION, "FOR SHARE OF o");
    private static final String CLAIM = RECORD.formatted(ROW_IDENTITY_VERSION, "");


    private final ConnectionFactory connections;

    public CheckpointStore(ConnectionFactory connections) {
        this.connections = Objects.requireNonNull(connections, "connections");
    }

    /** Creates the schema and tables when missing (idempotent, safe when several tasks start at once). */
    public void createSchema() throws SQLException {
        try (Connection c = connections.open()) {
            createSchema(c);
        }
    }

    public static void createSchema(Connection c) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('trellara_sink.schema'))");
            for (String ddl : DDL) {
                s.execute(ddl);
            }
            c.commit();
        } catch (SQLException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(auto);
        }
    }

    /**
     * Refuses a target whose recorded transactions were applied under another protocol or row identity
     * version: identities and dedup keys would not mean the same thing. Checked before anything is consumed.
     */
    public void requireCompatibleVersions() throws SQLException {
        String sql = "SELECT protocol_version, row_identity_version FROM " + SCHEMA + ".applied_transactions"
                + " WHERE protocol_version <> 1 OR row_identity_version <> " + ROW_IDENTITY_VERSION + " LIMIT 1";
        try (Connection c = connections.open(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            if (rs.next()) {
                throw new IllegalStateException("The target's " + SCHEMA + ".applied_transactions records transactions"
                        + " applied with protocol version " + rs.getInt(1) + " and row identity version " + rs.getInt(2)
                        + "; this sink speaks protocol 1 and row identity V" + ROW_IDENTITY_VERSION + ". Refusing to"
                        + " consume: point the sink at a target of its own version, or migrate the checkpoint table.");
            }
        }
    }

    /** The recorded next offset per topic partition of {@code sinkName}: where the consumer must resume. */
    public Map<TopicPartitionKey, Long> positions(String sinkName) throws SQLException {
        try (Connection c = connections.open()) {
            return positions(c, sinkName);
        }
    }

    /**
     * The target's WAL insert and flush positions, in one query: a commit that returned before the call ends at
     * or before the insert position, and is flushed once the flush position reaches it.
     */
    static long[] walInsertAndFlush(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT pg_catalog.pg_current_wal_insert_lsn()::text, pg_catalog.pg_current_wal_flush_lsn()::text")) {
            rs.next();
            return new long[] {Lsn.parse(rs.getString(1)).value(), Lsn.parse(rs.getString(2)).value()};
        }
    }

    public static Map<TopicPartitionKey, Long> positions(Connection c, String sinkName) throws SQLException {
        Map<TopicPartitionKey, Long> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT topic, kafka_partition, next_offset FROM trellara_sink.progress WHERE sink_name = ?")) {
            ps.setString(1, sinkName);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(new TopicPartitionKey(rs.getString(1), rs.getInt(2)), rs.getLong(3));
                }
            }
        }
        return out;
    }

    /** True when the transaction is recorded as applied for its flow. */
    public boolean isApplied(FlowKey key) throws SQLException {
        try (Connection c = connections.open(); PreparedStatement ps = c.prepareStatement(FIND_APPLIED)) {
            return !findApplied(c, ps, List.of(key)).isEmpty();
        }
    }

    /** The keys among {@code keys} already recorded as applied; one round trip. */
    static Set<FlowKey> findApplied(TargetSession session, List<FlowKey> keys) throws SQLException {
        return findApplied(session.connection, session.prepare(FIND_APPLIED), keys);
    }

    private static Set<FlowKey> findApplied(Connection c, PreparedStatement ps, List<FlowKey> keys)
            throws SQLException {
        String[] sources = new String[keys.size()];
        String[] datasets = new String[keys.size()];
        String[] lsns = new String[keys.size()];
        String[] txs = new String[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            TransactionBoundaryKey k = keys.get(i).transaction();
            sources[i] = k.sourceId();
            datasets[i] = keys.get(i).datasetId();
            lsns[i] = k.commitLsn();
            txs[i] = k.transactionId();
        }
        Set<FlowKey> found = new HashSet<>();
        ps.setArray(1, c.createArrayOf("text", sources));
        ps.setArray(2, c.createArrayOf("text", datasets));
        ps.setArray(3, c.createArrayOf("text", lsns));
        ps.setArray(4, c.createArrayOf("text", txs));
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                found.add(new FlowKey(rs.getString(2),
                        new TransactionBoundaryKey(rs.getString(1), "", rs.getString(3), rs.getString(4))));
            }
        }
        return found;
    }

    /**
     * The newest position recorded as applied for {@code flow} in its commit order, or null when none is. The newest
     * LSN holds one transaction, or at the consistent point the snapshot and a streamed one: two rows decide.
     */
    static CommitOrder.Position lastApplied(TargetSession session, FlowKey.Flow flow) throws SQLException {
        PreparedStatement ps = session.prepare(LAST_APPLIED);
        ps.setString(1, flow.sourceId());
        ps.setString(2, flow.datasetId());
        try (ResultSet rs = ps.executeQuery()) {
            CommitOrder.Position newest = null;
            while (rs.next()) {
                CommitOrder.Position p = new CommitOrder.Position(Lsn.parse(rs.getString(1)),
                        Snapshots.isSnapshot(rs.getString(2)));
                if (newest == null || newest.isBefore(p)) {
                    newest = p;
                }
            }
            return newest;
        }
    }

    /**
     * Writes the dedup records of {@code applied} and the progress {@code positions}, and sets
     * {@code synchronous_commit} for this transaction; one round trip, in the caller's open transaction. Throws
     * {@link ApplyException.Reason#FENCED} when another task than {@code owner} has claimed one of the partitions
     * (the caller rolls back: nothing of the transaction is committed). {@code owner} null: this caller never
     * claimed, and any claim fences it. A dedup record already present (another task applied the transaction
     * after this caller's dedup check) is a serialization failure: retried, and then found a duplicate.
     */
    static void record(TargetSession session, String sinkName, String owner, List<AppliedTransaction> applied,
                       Map<TopicPartitionKey, Long> positions, boolean synchronousCommitOff) throws SQLException {
        Claim claim = write(session, RECORD_HOLDING_FENCE, sinkName, owner, applied, positions, List.of(),
                synchronousCommitOff);
        if (claim.claimed().size() != applied.size()) {
            throw new SQLException("a transaction of this group was recorded as applied concurrently by another task",
                    "40001");
        }
    }

    /** What {@link #claim} did: the transactions it recorded as applied by this transaction, and chunks swept. */
    record Claim(Set<FlowKey> claimed, int swept) {
    }

    /**
     * As {@link #record}, but first in the transaction, so one round trip serves as the dedup check too: returns
     * the transactions of {@code applied} whose dedup record this transaction now holds. The others were applied
     * already (by an earlier attempt, or another task: the insert waits for a concurrent one to end) and are left
     * as they are. Also deletes, per {@code sweeps} key, the staged chunks of an earlier publication of its flow
     * up to that transaction ({@link StagingStore#sweep}). The fence is checked, not held: a task that claims the
     * partitions after this point does not wait for this transaction, which may still commit. That stays exactly
     * once and in commit order: each task applies its partitions' transactions in order, and a transaction both
     * meet is applied by whichever inserts its dedup record first; the other's insert waits for that transaction
     * and skips it once committed (or claims it if rolled back).
     */
    static Claim claim(TargetSession session, String sinkName, String owner, List<AppliedTransaction> applied,
                       Map<TopicPartitionKey, Long> positions, List<FlowKey> sweeps, boolean synchronousCommitOff)
            throws SQLException {
        return write(session, CLAIM, sinkName, owner, applied, positions, sweeps, synchronousCommitOff);
    }

    private static Claim write(TargetSession session, String sql, String sinkName, String owner,
                               List<AppliedTransaction> applied, Map<TopicPartitionKey, Long> positions,
                               List<FlowKey> sweeps, boolean synchronousCommitOff) throws SQLException {
        Connection c = session.connection;
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
            ps.setArray(p++, c.createArrayOf("text", a));
        }
        ps.setArray(p++, c.createArrayOf("int4", pv));
        for (Object[] a : new Object[][] {ts, ec, cc, dc}) {
            ps.setArray(p++, c.createArrayOf("int8", a));
        }
        ps.setString(p++, sinkName);
        ps.setArray(p++, c.createArrayOf("text", topics));
        ps.setArray(p++, c.createArrayOf("int4", partitions));
        ps.setArray(p++, c.createArrayOf("int8", offsets));
        ps.setArray(p++, c.createArrayOf("text", topics));
        ps.setArray(p++, c.createArrayOf("int4", partitions));
        ps.setString(p++, sinkName);
        for (String[] a : swept) {
            ps.setArray(p++, c.createArrayOf("text", a));
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
