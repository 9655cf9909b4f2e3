package io.trellara.sink.postgres.checkpoint;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.session.ConnectionFactory;
import io.trellara.sink.postgres.session.TargetSession;
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
 * The sink's own tables in the target: {@code trellara_sink.applied_transactions} (dedup by
 * transaction identity) and {@code trellara_sink.progress} (the next input offset per sink, topic
 * and partition). Both are written in the same target transaction as the data, so the target alone
 * says what has been applied. Chunked and partitioned boundaries add {@code
 * trellara_sink.staged_chunks} (chunks held until their barrier applies) and {@code
 * trellara_sink.lane_watermarks} (per lane, the newest commit LSN staged from it); see {@link
 * StagingStore}. What a target transaction writes into them with its data: {@link AppliedRecords}.
 */
public final class CheckpointStore {
  public static final String SCHEMA = "trellara_sink";

  /** Row identity version recorded with every applied transaction. */
  public static final int ROW_IDENTITY_VERSION = 2;

  private static final String[] DDL = {
    // a least-privilege role gets the schema from an administrator and has no CREATE on the
    // database, which
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
    // what body each identity was applied with (see BodyDigests); null on rows applied before
    "ALTER TABLE trellara_sink.applied_transactions ADD COLUMN IF NOT EXISTS body_digest text",
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
    // which task owns each input partition (see claim): a task that lost its partition cannot
    // commit into it
    """
        CREATE TABLE IF NOT EXISTS trellara_sink.partition_owners (
          sink_name text NOT NULL,
          topic text NOT NULL,
          kafka_partition integer NOT NULL,
          owner text NOT NULL,
          claimed_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
          PRIMARY KEY (sink_name, topic, kafka_partition))""",
    // chunked and partitioned boundaries: chunks held until their barrier applies (see
    // StagingStore)
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
    // payloads are checksummed protobuf on a transient table: compressing them costs more than it
    // saves
    """
        DO $$ BEGIN
          IF (SELECT attstorage FROM pg_attribute WHERE attrelid = 'trellara_sink.staged_chunks'::regclass
                 AND attname = 'payload') <> 'e' THEN
            ALTER TABLE trellara_sink.staged_chunks ALTER COLUMN payload SET STORAGE EXTERNAL;
          END IF;
        END $$""",
    // snapshot.apply=per_table: the tables of a snapshot committed so far (see
    // SnapshotTableCommits)
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

  // multi-argument unnest in FROM is syntax (ROWS FROM), not a function a search_path could resolve
  // elsewhere
  private static final String FIND_APPLIED =
      """
            SELECT a.source_id, a.dataset_id, a.commit_lsn::text, a.transaction_id
              FROM trellara_sink.applied_transactions a
              JOIN unnest(?::text[], ?::text[], ?::text[], ?::text[])
                   AS k(source_id, dataset_id, commit_lsn, transaction_id)
                ON a.source_id = k.source_id AND a.dataset_id = k.dataset_id
               AND a.commit_lsn = k.commit_lsn::pg_lsn AND a.transaction_id = k.transaction_id""";

  /**
   * The newest transactions applied for one flow (strict order: a new transaction must come after
   * them).
   */
  private static final String LAST_APPLIED =
      """
            SELECT a.commit_lsn::text, a.transaction_id FROM trellara_sink.applied_transactions a
             WHERE a.source_id = ? AND a.dataset_id = ?
             ORDER BY a.commit_lsn_value DESC LIMIT 2""";

  private final ConnectionFactory connections;

  public CheckpointStore(ConnectionFactory connections) {
    this.connections = Objects.requireNonNull(connections, "connections");
  }

  /**
   * Creates the schema and tables when missing (idempotent, safe when several tasks start at once),
   * and the read-your-writes view and functions over them ({@link ReadYourWrites}).
   */
  public void createSchema() throws SQLException {
    try (Connection c = connections.open()) {
      createSchema(c);
    }
  }

  public static void createSchema(Connection c) throws SQLException {
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.execute(
          "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('trellara_sink.schema'))");
      for (String ddl : DDL) {
        s.execute(ddl);
      }
      ReadYourWrites.create(s);
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(auto);
    }
  }

  /**
   * Refuses a target whose recorded transactions were applied under another protocol or row
   * identity version: identities and dedup keys would not mean the same thing. Checked before
   * anything is consumed.
   */
  public void requireCompatibleVersions() throws SQLException {
    String sql =
        "SELECT protocol_version, row_identity_version FROM "
            + SCHEMA
            + ".applied_transactions"
            + " WHERE protocol_version <> 1 OR row_identity_version <> "
            + ROW_IDENTITY_VERSION
            + " LIMIT 1";
    try (Connection c = connections.open();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      if (rs.next()) {
        throw new IllegalStateException(
            "The target's "
                + SCHEMA
                + ".applied_transactions records transactions"
                + " applied with protocol version "
                + rs.getInt(1)
                + " and row identity version "
                + rs.getInt(2)
                + "; this sink speaks protocol 1 and row identity V"
                + ROW_IDENTITY_VERSION
                + ". Refusing to"
                + " consume: point the sink at a target of its own version, or migrate the checkpoint table.");
      }
    }
  }

  /**
   * The recorded next offset per topic partition of {@code sinkName}: where the consumer must
   * resume.
   */
  public Map<TopicPartitionKey, Long> positions(String sinkName) throws SQLException {
    try (Connection c = connections.open()) {
      return positions(c, sinkName);
    }
  }

  /**
   * The target's WAL insert and flush positions, in one query: a commit that returned before the
   * call ends at or before the insert position, and is flushed once the flush position reaches it.
   */
  public static long[] walInsertAndFlush(TargetSession s) throws SQLException {
    return s.query(
        "SELECT pg_catalog.pg_current_wal_insert_lsn()::text,"
            + " pg_catalog.pg_current_wal_flush_lsn()::text",
        rs -> {
          rs.next();
          return new long[] {
            Lsn.parse(rs.getString(1)).value(), Lsn.parse(rs.getString(2)).value()
          };
        });
  }

  private static final String POSITIONS =
      "SELECT topic, kafka_partition, next_offset FROM trellara_sink.progress WHERE sink_name = ?";

  /**
   * The recorded next offset per topic partition of {@code sinkName}, in the session's transaction.
   */
  public static Map<TopicPartitionKey, Long> positions(TargetSession s, String sinkName)
      throws SQLException {
    PreparedStatement ps = s.prepare(POSITIONS);
    ps.setString(1, sinkName);
    return readPositions(ps);
  }

  /** The same on a plain connection (the CLI and tests). */
  public static Map<TopicPartitionKey, Long> positions(Connection c, String sinkName)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(POSITIONS)) {
      ps.setString(1, sinkName);
      return readPositions(ps);
    }
  }

  private static Map<TopicPartitionKey, Long> readPositions(PreparedStatement ps)
      throws SQLException {
    Map<TopicPartitionKey, Long> out = new HashMap<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(new TopicPartitionKey(rs.getString(1), rs.getInt(2)), rs.getLong(3));
      }
    }
    return out;
  }

  /** True when the transaction is recorded as applied for its flow. */
  public boolean isApplied(FlowKey key) throws SQLException {
    try (Connection c = connections.open();
        PreparedStatement ps = c.prepareStatement(FIND_APPLIED)) {
      return !findApplied(c::createArrayOf, ps, List.of(key)).isEmpty();
    }
  }

  /** The keys among {@code keys} already recorded as applied; one round trip. */
  public static Set<FlowKey> findApplied(TargetSession session, List<FlowKey> keys)
      throws SQLException {
    PreparedStatement ps = session.prepare(FIND_APPLIED);
    return findApplied(session::array, ps, keys);
  }

  /** How a statement's array parameters are made (a session's, or a plain connection's). */
  @FunctionalInterface
  private interface Arrays {
    java.sql.Array of(String type, Object[] values) throws SQLException;
  }

  private static Set<FlowKey> findApplied(Arrays c, PreparedStatement ps, List<FlowKey> keys)
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
    ps.setArray(1, c.of("text", sources));
    ps.setArray(2, c.of("text", datasets));
    ps.setArray(3, c.of("text", lsns));
    ps.setArray(4, c.of("text", txs));
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        found.add(
            new FlowKey(
                rs.getString(2),
                new TransactionBoundaryKey(rs.getString(1), "", rs.getString(3), rs.getString(4))));
      }
    }
    return found;
  }

  /**
   * The newest position recorded as applied for {@code flow} in its commit order, or null when none
   * is. The newest LSN holds one transaction, or at the consistent point the snapshot and a
   * streamed one: two rows decide.
   */
  static CommitOrder.Position lastApplied(TargetSession session, FlowKey.Flow flow)
      throws SQLException {
    PreparedStatement ps = session.prepare(LAST_APPLIED);
    ps.setString(1, flow.sourceId());
    ps.setString(2, flow.datasetId());
    try (ResultSet rs = ps.executeQuery()) {
      CommitOrder.Position newest = null;
      while (rs.next()) {
        CommitOrder.Position p =
            new CommitOrder.Position(
                Lsn.parse(rs.getString(1)), Snapshots.isSnapshot(rs.getString(2)));
        if (newest == null || newest.isBefore(p)) {
          newest = p;
        }
      }
      return newest;
    }
  }
}
