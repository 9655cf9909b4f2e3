package io.trellara.sink.postgres.checkpoint;

import io.trellara.protocol.Lsn;
import io.trellara.sink.port.BarrierState;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The reads of one look at many barriers ({@code Target.look}): one statement each for the lane
 * watermarks of their flows, the chunks staged at their commit LSNs, and the payloads of those to
 * read back, however many barriers are looked at. The watermarks are read <b>before</b> the staged
 * chunks: under READ COMMITTED every statement sees what was committed before it started, and a
 * lane's watermark is committed together with (or after) every chunk of that lane up to it, so a
 * chunk absent from the later read while the earlier one showed its lane past the commit was never
 * staged. Read the other way round, a lane staging between the two statements would look like a
 * missing chunk.
 */
public final class StagedLooks {
  private static final String WATERMARKS =
      """
            SELECT w.source_id, w.dataset_id, w.partition_id, w.commit_lsn::text
              FROM trellara_sink.lane_watermarks w
              JOIN unnest(?::text[], ?::text[]) AS k(source_id, dataset_id)
                ON w.source_id = k.source_id AND w.dataset_id = k.dataset_id
             WHERE w.sink_name = ?""";

  private static final String STAGED =
      """
            SELECT s.source_id, s.dataset_id, s.commit_lsn::text, s.partition_id, s.chunk_sequence,
                   s.checksum, s.transaction_id, octet_length(s.payload)
              FROM trellara_sink.staged_chunks s
              JOIN unnest(?::text[], ?::text[], ?::text[]) AS k(source_id, dataset_id, commit_lsn)
                ON s.source_id = k.source_id AND s.dataset_id = k.dataset_id
               AND s.commit_lsn = k.commit_lsn::pg_lsn
             WHERE s.sink_name = ?""";

  private static final String PAYLOADS =
      """
            SELECT DISTINCT ON (k.i) k.i, s.payload
              FROM unnest(?::text[], ?::text[], ?::text[], ?::int8[], ?::int8[], ?::int8[])
                   WITH ORDINALITY AS k(source_id, dataset_id, commit_lsn, partition_id, chunk_sequence,
                                        checksum, i)
              JOIN trellara_sink.staged_chunks s
                ON s.sink_name = ? AND s.source_id = k.source_id AND s.dataset_id = k.dataset_id
               AND s.commit_lsn = k.commit_lsn::pg_lsn AND s.partition_id = k.partition_id
               AND s.chunk_sequence = k.chunk_sequence AND s.checksum = k.checksum
             ORDER BY k.i""";

  private StagedLooks() {}

  /** A commit LSN of a flow: where a barrier's chunks are staged. */
  public record At(String sourceId, String datasetId, String commitLsn) {}

  /** A staged chunk with its payload's size. */
  public record Row(BarrierState.Staged staged, long bytes) {}

  /** A chunk to read back. */
  public record Wanted(At at, long partitionId, long chunkSequence, long checksum) {}

  /** Per flow, per lane, the newest commit LSN staged from it. */
  public static Map<FlowKey.Flow, Map<Long, Lsn>> watermarks(
      TargetSession s, String sinkName, Collection<FlowKey.Flow> flows) throws SQLException {
    Map<FlowKey.Flow, Map<Long, Lsn>> out = new HashMap<>();
    if (flows.isEmpty()) {
      return out;
    }
    List<String> sources = new ArrayList<>();
    List<String> datasets = new ArrayList<>();
    for (FlowKey.Flow f : flows) {
      sources.add(f.sourceId());
      datasets.add(f.datasetId());
    }
    PreparedStatement ps = s.prepare(WATERMARKS);
    ps.setArray(1, s.array("text", sources.toArray()));
    ps.setArray(2, s.array("text", datasets.toArray()));
    ps.setString(3, sinkName);
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.computeIfAbsent(
                new FlowKey.Flow(rs.getString(1), rs.getString(2)), k -> new HashMap<>())
            .put(rs.getLong(3), Lsn.parse(rs.getString(4)));
      }
    }
    return out;
  }

  /** The chunks staged at each of {@code ats} (any transaction id), without their payloads. */
  public static Map<At, List<Row>> staged(TargetSession s, String sinkName, Collection<At> ats)
      throws SQLException {
    Map<At, List<Row>> out = new HashMap<>();
    if (ats.isEmpty()) {
      return out;
    }
    List<String> sources = new ArrayList<>();
    List<String> datasets = new ArrayList<>();
    List<String> lsns = new ArrayList<>();
    for (At a : ats) {
      sources.add(a.sourceId());
      datasets.add(a.datasetId());
      lsns.add(a.commitLsn());
    }
    PreparedStatement ps = s.prepare(STAGED);
    ps.setArray(1, s.array("text", sources.toArray()));
    ps.setArray(2, s.array("text", datasets.toArray()));
    ps.setArray(3, s.array("text", lsns.toArray()));
    ps.setString(4, sinkName);
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        // the LSN as the server prints it; the manifest's spelling is normalised the same way
        At at = new At(rs.getString(1), rs.getString(2), Lsn.parse(rs.getString(3)).toString());
        out.computeIfAbsent(at, k -> new ArrayList<>())
            .add(
                new Row(
                    new BarrierState.Staged(
                        rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getString(7)),
                    rs.getLong(8)));
      }
    }
    return out;
  }

  /**
   * The staged bytes of each of {@code wanted}, in its order; an entry is null when the chunk is no
   * longer staged.
   */
  public static List<byte[]> payloads(TargetSession s, String sinkName, List<Wanted> wanted)
      throws SQLException {
    List<byte[]> out = new ArrayList<>(wanted.size());
    for (int i = 0; i < wanted.size(); i++) {
      out.add(null);
    }
    if (wanted.isEmpty()) {
      return out;
    }
    int n = wanted.size();
    Object[] sources = new Object[n];
    Object[] datasets = new Object[n];
    Object[] lsns = new Object[n];
    Object[] partitions = new Object[n];
    Object[] sequences = new Object[n];
    Object[] checksums = new Object[n];
    for (int i = 0; i < n; i++) {
      Wanted w = wanted.get(i);
      sources[i] = w.at().sourceId();
      datasets[i] = w.at().datasetId();
      lsns[i] = w.at().commitLsn();
      partitions[i] = w.partitionId();
      sequences[i] = w.chunkSequence();
      checksums[i] = w.checksum();
    }
    PreparedStatement ps = s.prepare(PAYLOADS);
    ps.setArray(1, s.array("text", sources));
    ps.setArray(2, s.array("text", datasets));
    ps.setArray(3, s.array("text", lsns));
    ps.setArray(4, s.array("int8", partitions));
    ps.setArray(5, s.array("int8", sequences));
    ps.setArray(6, s.array("int8", checksums));
    ps.setString(7, sinkName);
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.set((int) rs.getLong(1) - 1, rs.getBytes(2));
      }
    }
    return out;
  }
}
