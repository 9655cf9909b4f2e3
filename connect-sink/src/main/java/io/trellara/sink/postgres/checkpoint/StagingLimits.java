package io.trellara.sink.postgres.checkpoint;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.LogText;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What staging holds of flows whose barriers never come: chunks a topic writer invented (a flow or
 * transaction no manifest will ever complete) would otherwise stay in {@code
 * trellara_sink.staged_chunks} for good. Two limits, in the transaction that stages: chunks staged
 * longer ago than the retention are deleted (a real barrier waits at most barrier.max.wait.ms,
 * which the retention must exceed, before the task fails it closed), and a flow may hold at most so
 * many staged bytes: a batch that would take it past that is refused, naming the flow, and nothing
 * of it is staged nor its progress recorded (the records stay unconsumed: the offsets of one Kafka
 * partition are consumed in order, so the other flows of that partition cannot go past them).
 */
public final class StagingLimits {
  private StagingLimits() {}

  private static final String SWEEP_AGED =
      """
            DELETE FROM trellara_sink.staged_chunks
             WHERE sink_name = ? AND staged_at < pg_catalog.now() - ? * interval '1 millisecond'""";

  private static final String FLOW_BYTES =
      """
            SELECT COALESCE(pg_catalog.sum(pg_catalog.octet_length(payload)), 0)
              FROM trellara_sink.staged_chunks WHERE sink_name = ? AND source_id = ? AND dataset_id = ?""";

  /** Deletes the sink's chunks staged more than {@code retention} ago; returns how many. */
  public static int sweepAged(TargetSession s, String sinkName, Duration retention)
      throws SQLException {
    PreparedStatement ps = s.prepare(SWEEP_AGED);
    ps.setString(1, sinkName);
    ps.setLong(2, retention.toMillis());
    return ps.executeUpdate();
  }

  /**
   * Throws {@link ApplyException.Reason#STAGING_FLOW_FULL} when staging {@code chunks} would take a
   * flow past {@code maxBytesPerFlow} staged bytes (counting what it has staged already).
   */
  public static void requireRoom(
      TargetSession s, String sinkName, Iterable<StagedChunk> chunks, long maxBytesPerFlow)
      throws SQLException {
    Map<FlowKey.Flow, Long> adding = new LinkedHashMap<>();
    Map<FlowKey.Flow, StagedChunk> first = new LinkedHashMap<>();
    for (StagedChunk c : chunks) {
      FlowKey.Flow flow = new FlowKey.Flow(c.sourceId(), c.datasetId());
      adding.merge(flow, (long) c.payload().length, Long::sum);
      first.putIfAbsent(flow, c);
    }
    for (Map.Entry<FlowKey.Flow, Long> a : adding.entrySet()) {
      long staged = staged(s, sinkName, a.getKey());
      if (staged + a.getValue() > maxBytesPerFlow) {
        StagedChunk c = first.get(a.getKey());
        throw new ApplyException(
            ApplyException.Reason.STAGING_FLOW_FULL,
            null,
            EventKey.transaction(c.sourceId(), c.commitLsn(), c.transactionId()),
            "flow "
                + LogText.escape(a.getKey().toString())
                + " has "
                + staged
                + " bytes of chunks staged for barriers that have not completed, and "
                + a.getValue()
                + " more would pass staging.flow.max.bytes ("
                + maxBytesPerFlow
                + "); nothing is staged. A flow that is real needs a larger bound; chunks no"
                + " barrier completes are deleted after staging.retention.ms");
      }
    }
  }

  private static long staged(TargetSession s, String sinkName, FlowKey.Flow flow)
      throws SQLException {
    PreparedStatement ps = s.prepare(FLOW_BYTES);
    ps.setString(1, sinkName);
    ps.setString(2, flow.sourceId());
    ps.setString(3, flow.datasetId());
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
