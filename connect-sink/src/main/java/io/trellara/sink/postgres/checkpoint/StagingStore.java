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
  private static final String STAGE =
      """
            INSERT INTO trellara_sink.staged_chunks (sink_name, source_id, commit_lsn, transaction_id, partition_id,
                chunk_sequence, checksum, database_id, dataset_id, boundary_mode, event_count, first_total_order,
                last_total_order, payload)
            SELECT ?, ?, ?::pg_lsn, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
             WHERE NOT EXISTS (SELECT 1 FROM trellara_sink.applied_transactions a
                                WHERE a.source_id = ? AND a.dataset_id = ? AND a.commit_lsn = ?::pg_lsn
                                  AND a.transaction_id = ?)
            ON CONFLICT DO NOTHING""";

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
    PreparedStatement ps = s.prepare(STAGE);
    for (StagedChunk c : chunks) {
      int p = 1;
      ps.setString(p++, sinkName);
      ps.setString(p++, c.sourceId());
      ps.setString(p++, c.commitLsn());
      ps.setString(p++, c.transactionId());
      ps.setLong(p++, c.partitionId());
      ps.setLong(p++, c.chunkSequence());
      ps.setLong(p++, c.checksum());
      ps.setString(p++, c.databaseId());
      ps.setString(p++, c.datasetId());
      ps.setString(p++, c.boundaryMode().name().toLowerCase(Locale.ROOT));
      ps.setLong(p++, c.eventCount());
      ps.setLong(p++, c.firstTotalOrder());
      ps.setLong(p++, c.lastTotalOrder());
      ps.setBytes(p++, c.payload());
      ps.setString(p++, c.sourceId());
      ps.setString(p++, c.datasetId());
      ps.setString(p++, c.commitLsn());
      ps.setString(p, c.transactionId());
      ps.addBatch();
    }
    int[] counts = ps.executeBatch();
    boolean[] inserted = new boolean[counts.length];
    for (int i = 0; i < counts.length; i++) {
      inserted[i] = counts[i] > 0;
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
