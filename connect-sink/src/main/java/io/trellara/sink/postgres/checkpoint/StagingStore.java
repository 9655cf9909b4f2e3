package io.trellara.sink.postgres.checkpoint;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.port.StagedLane;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The SQL of barrier staging, run in the caller's open target transaction.
 *
 * <ul>
 *   <li>{@code trellara_sink.staged_chunks}: one row per verified chunk (identity, checksum,
 *       counts, the encoded bytes), keyed by sink, source, commit LSN, transaction id, partition
 *       id, chunk sequence and checksum, so a replay is a no-op and a re-published transaction
 *       whose chunking differs cannot collide with the first publication. A chunk whose transaction
 *       is already applied is not staged.
 *   <li>{@code trellara_sink.lane_watermarks}: per sink, source, dataset and lane, the newest
 *       commit LSN staged from that lane; a lane past a transaction's commit LSN will not bring
 *       that transaction's chunks any more.
 * </ul>
 */
public final class StagingStore {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StagingStore.class);

  /**
   * One statement per batch, whatever its size: the chunks as arrays, unnested (a statement per
   * chunk cost a lanes-only task about 1 ms a chunk on a busy target, its largest share of a
   * partitioned transaction). The inserted ones come back by key.
   */
  private static final String STAGE =
      """
            INSERT INTO trellara_sink.staged_chunks (sink_name, source_id, commit_lsn, transaction_id, partition_id,
                chunk_sequence, checksum, database_id, dataset_id, boundary_mode, event_count, first_total_order,
                last_total_order, payload)
            SELECT ?, u.source_id, u.commit_lsn::pg_lsn, u.transaction_id, u.partition_id, u.chunk_sequence,
                   u.checksum, u.database_id, u.dataset_id, u.boundary_mode, u.event_count, u.first_total_order,
                   u.last_total_order, u.payload
              FROM unnest(?::text[], ?::text[], ?::text[], ?::int8[], ?::int8[], ?::int8[], ?::text[], ?::text[],
                          ?::text[], ?::int8[], ?::int8[], ?::int8[], ?::bytea[])
                   AS u(source_id, commit_lsn, transaction_id, partition_id, chunk_sequence, checksum, database_id,
                        dataset_id, boundary_mode, event_count, first_total_order, last_total_order, payload)
             WHERE NOT EXISTS (SELECT 1 FROM trellara_sink.applied_transactions a
                                WHERE a.source_id = u.source_id AND a.dataset_id = u.dataset_id
                                  AND a.commit_lsn = u.commit_lsn::pg_lsn AND a.transaction_id = u.transaction_id)
            ON CONFLICT DO NOTHING
            RETURNING source_id, dataset_id, commit_lsn::text, transaction_id, partition_id, chunk_sequence, checksum""";

  private static final String WATERMARK =
      """
            INSERT INTO trellara_sink.lane_watermarks (sink_name, source_id, dataset_id, partition_id, commit_lsn)
            VALUES (?, ?, ?, ?, ?::pg_lsn)
            ON CONFLICT (sink_name, source_id, dataset_id, partition_id)
            DO UPDATE SET commit_lsn = greatest(lane_watermarks.commit_lsn, EXCLUDED.commit_lsn), updated_at = pg_catalog.now()""";

  private static final String PAYLOAD =
      """
            SELECT payload FROM trellara_sink.staged_chunks
             WHERE sink_name = ? AND source_id = ? AND dataset_id = ? AND commit_lsn = ?::pg_lsn
               AND partition_id = ? AND chunk_sequence = ? AND checksum = ?
             LIMIT 1""";

  /**
   * Every chunk of the dataset up to this commit LSN: its own, other versions of it, and leftovers
   * that can no longer belong to a barrier (barriers of one dataset apply in commit order).
   */
  private static final String SWEEP =
      """
            DELETE FROM trellara_sink.staged_chunks
             WHERE sink_name = ? AND source_id = ? AND dataset_id = ?
               AND (commit_lsn < ?::pg_lsn OR commit_lsn = ?::pg_lsn AND transaction_id = ?)""";

  /**
   * Per lane of each flow, the bytes staged for transactions after the flow's oldest staged one.
   */
  private static final String BEHIND_OLDEST =
      """
            SELECT s.source_id, s.dataset_id, s.partition_id, sum(octet_length(s.payload))
              FROM trellara_sink.staged_chunks s
              JOIN (SELECT source_id, dataset_id, min(commit_lsn) AS oldest FROM trellara_sink.staged_chunks
                     WHERE sink_name = ? AND boundary_mode = 'partitioned_scale_mode'
                     GROUP BY source_id, dataset_id) o USING (source_id, dataset_id)
             WHERE s.sink_name = ? AND s.boundary_mode = 'partitioned_scale_mode' AND s.commit_lsn > o.oldest
             GROUP BY s.source_id, s.dataset_id, s.partition_id""";

  private StagingStore() {}

  public static Map<StagedLane, Long> stagedBehindOldest(TargetSession s, String sinkName)
      throws SQLException {
    PreparedStatement ps = s.prepare(BEHIND_OLDEST);
    ps.setString(1, sinkName);
    ps.setString(2, sinkName);
    Map<StagedLane, Long> out = new HashMap<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(new StagedLane(rs.getString(1), rs.getString(2), rs.getLong(3)), rs.getLong(4));
      }
    }
    return out;
  }

  /**
   * Stages {@code chunks} (one batch) and advances the watermarks of their lanes; returns, per
   * chunk, whether it was inserted (false: staged already, or its transaction is applied).
   */
  public static boolean[] stage(TargetSession s, String sinkName, List<StagedChunk> chunks)
      throws SQLException {
    int n = chunks.size();
    Object[] sources = new Object[n];
    Object[] lsns = new Object[n];
    Object[] transactions = new Object[n];
    Object[] partitions = new Object[n];
    Object[] sequences = new Object[n];
    Object[] checksums = new Object[n];
    Object[] databases = new Object[n];
    Object[] datasets = new Object[n];
    Object[] modes = new Object[n];
    Object[] events = new Object[n];
    Object[] firsts = new Object[n];
    Object[] lasts = new Object[n];
    byte[][] payloads = new byte[n][];
    Map<String, Integer> firstWithKey = new HashMap<>(); // a chunk twice in a batch: the first
    for (int i = 0; i < n; i++) {
      StagedChunk c = chunks.get(i);
      sources[i] = c.sourceId();
      lsns[i] = c.commitLsn();
      transactions[i] = c.transactionId();
      partitions[i] = c.partitionId();
      sequences[i] = c.chunkSequence();
      checksums[i] = c.checksum();
      databases[i] = c.databaseId();
      datasets[i] = c.datasetId();
      modes[i] = c.boundaryMode().name().toLowerCase(Locale.ROOT);
      events[i] = c.eventCount();
      firsts[i] = c.firstTotalOrder();
      lasts[i] = c.lastTotalOrder();
      payloads[i] = c.payload();
      firstWithKey.putIfAbsent(
          key(
              c.sourceId(),
              c.datasetId(),
              Lsn.parse(c.commitLsn()),
              c.transactionId(),
              c.partitionId(),
              c.chunkSequence(),
              c.checksum()),
          i);
    }
    PreparedStatement ps = s.prepare(STAGE);
    ps.setString(1, sinkName);
    ps.setArray(2, s.array("text", sources));
    ps.setArray(3, s.array("text", lsns));
    ps.setArray(4, s.array("text", transactions));
    ps.setArray(5, s.array("int8", partitions));
    ps.setArray(6, s.array("int8", sequences));
    ps.setArray(7, s.array("int8", checksums));
    ps.setArray(8, s.array("text", databases));
    ps.setArray(9, s.array("text", datasets));
    ps.setArray(10, s.array("text", modes));
    ps.setArray(11, s.array("int8", events));
    ps.setArray(12, s.array("int8", firsts));
    ps.setArray(13, s.array("int8", lasts));
    ps.setArray(14, s.array("bytea", payloads));
    boolean[] inserted = new boolean[n];
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        Integer first =
            firstWithKey.get(
                key(
                    rs.getString(1),
                    rs.getString(2),
                    Lsn.parse(rs.getString(3)),
                    rs.getString(4),
                    rs.getLong(5),
                    rs.getLong(6),
                    rs.getLong(7)));
        if (first != null) {
          inserted[first] = true;
        }
      }
    }
    // one upsert per lane, in a fixed order (two tasks briefly staging the same lanes never
    // deadlock)
    Map<List<Object>, Lsn> newest =
        new TreeMap<>(
            Comparator.comparing((List<Object> k) -> (String) k.get(0))
                .thenComparing(k -> (String) k.get(1))
                .thenComparing(k -> (Long) k.get(2)));
    for (StagedChunk c : chunks) {
      if (c.boundaryMode() == ManifestBoundaryMode.PARTITIONED_SCALE_MODE) {
        newest.merge(
            List.of(c.sourceId(), c.datasetId(), c.partitionId()),
            Lsn.parse(c.commitLsn()),
            (a, b) -> a.compareTo(b) >= 0 ? a : b);
      }
    }
    if (!newest.isEmpty()) {
      PreparedStatement w = s.prepare(WATERMARK);
      for (Map.Entry<List<Object>, Lsn> e : newest.entrySet()) {
        w.setString(1, sinkName);
        w.setString(2, (String) e.getKey().get(0));
        w.setString(3, (String) e.getKey().get(1));
        w.setLong(4, (Long) e.getKey().get(2));
        w.setString(5, e.getValue().toString());
        w.addBatch();
      }
      w.executeBatch();
    }
    return inserted;
  }

  private static String key(
      String source,
      String dataset,
      Lsn commit,
      String transaction,
      long partition,
      long sequence,
      long checksum) {
    return source
        + '\u0000'
        + dataset
        + '\u0000'
        + commit
        + '\u0000'
        + transaction
        + '\u0000'
        + partition
        + '\u0000'
        + sequence
        + '\u0000'
        + checksum;
  }

  /**
   * The staged bytes of the chunk {@code entry} lists with its checksum, or null when it is not
   * staged.
   */
  public static byte[] payload(
      TargetSession s,
      String sinkName,
      TransactionManifest m,
      long partitionId,
      long chunkSequence,
      long checksum)
      throws SQLException {
    PreparedStatement ps = s.prepare(PAYLOAD);
    ps.setString(1, sinkName);
    ps.setString(2, m.getSourceId());
    ps.setString(3, m.getDatasetId());
    ps.setString(4, m.getSourceCommitLsn());
    ps.setLong(5, partitionId);
    ps.setLong(6, chunkSequence);
    ps.setLong(7, checksum);
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getBytes(1) : null;
    }
  }

  public static byte[] payload(
      TargetSession s, String sinkName, TransactionManifest m, ManifestPartition entry)
      throws SQLException {
    return payload(
        s,
        sinkName,
        m,
        Integer.toUnsignedLong(entry.getId()),
        Integer.toUnsignedLong(entry.getChunkSequence()),
        entry.getChecksum());
  }

  /**
   * Deletes the dataset's staged chunks up to the transaction of {@code m}; returns the rows
   * deleted.
   */
  public static int sweep(TargetSession s, String sinkName, TransactionManifest m)
      throws SQLException {
    return sweep(
        s,
        sinkName,
        m.getSourceId(),
        m.getDatasetId(),
        m.getSourceCommitLsn(),
        m.getTransactionId());
  }

  /**
   * Deletes the flow's staged chunks before {@code commitLsn}, and at it those of {@code
   * transactionId}; returns the rows deleted. At the consistent point the snapshot and a streamed
   * transaction can share an LSN: the snapshot's sweep must leave the streamed one's chunks.
   */
  public static int sweep(
      TargetSession s,
      String sinkName,
      String sourceId,
      String datasetId,
      String commitLsn,
      String transactionId)
      throws SQLException {
    PreparedStatement ps = s.prepare(SWEEP);
    ps.setString(1, sinkName);
    ps.setString(2, sourceId);
    ps.setString(3, datasetId);
    ps.setString(4, commitLsn);
    ps.setString(5, commitLsn);
    ps.setString(6, transactionId);
    return ps.executeUpdate();
  }
}
