package io.trellara.sink.postgres.checkpoint;

import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * What staging holds of flows whose barriers never come: chunks a topic writer invented (a flow or
 * transaction no manifest will ever complete) would otherwise stay in {@code
 * trellara_sink.staged_chunks} for good. Two limits, in the transaction that stages: chunks staged
 * longer ago than the retention are deleted (a real barrier waits at most barrier.max.wait.ms,
 * which the retention must exceed, before the task fails it closed), and a flow may hold at most so
 * many staged bytes: a transaction whose chunks would take it past that is set aside (none of these
 * chunks staged) rather than failing the task, so one invented flow cannot stop the others; the
 * buffer holds the offsets of its partitions before it until its barrier comes (the task then fails
 * closed) or the retention passes (it was junk).
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

  /**
   * A transaction set aside: its flow had {@code stagedBytes} staged, and its chunks of this batch
   * would have added {@code addedBytes}, past {@code maxBytes}.
   */
  public record SetAside(FlowKey transaction, long stagedBytes, long addedBytes, long maxBytes) {}

  /** Deletes the sink's chunks staged more than {@code retention} ago; returns how many. */
  public static int sweepAged(TargetSession s, String sinkName, Duration retention)
      throws SQLException {
    PreparedStatement ps = s.prepare(SWEEP_AGED);
    ps.setString(1, sinkName);
    ps.setLong(2, retention.toMillis());
    return ps.executeUpdate();
  }

  /**
   * Which transactions of {@code chunks} to set aside, decided in the staging transaction: the
   * staged bytes of each flow in the batch are read, then {@link #choose} decides. Chunks of a
   * transaction set aside that earlier commits staged stay: those commits recorded progress past
   * them, so deleting them would lose a real transaction (the progress cannot be moved back to its
   * first chunk: the table does not know Kafka offsets); they count towards the bound, and go with
   * the retention or the transaction's barrier.
   */
  public static List<SetAside> setAside(
      TargetSession s, String sinkName, List<StagedChunk> chunks, long maxBytesPerFlow)
      throws SQLException {
    Map<FlowKey.Flow, Long> staged = new HashMap<>();
    for (StagedChunk c : chunks) {
      FlowKey.Flow flow = new FlowKey.Flow(c.sourceId(), c.datasetId());
      if (!staged.containsKey(flow)) {
        staged.put(flow, staged(s, sinkName, flow));
      }
    }
    return choose(chunks, staged::get, maxBytesPerFlow);
  }

  /**
   * The decision, pure: transactions are taken in the order of their first chunk in the batch, each
   * whole (all its chunks of the batch); one that would take its flow past {@code maxBytesPerFlow}
   * (what the flow has staged, plus the transactions of the batch taken before it) is set aside,
   * and adds nothing to its flow. A chunk staged again (a replay) is counted again: the bound errs
   * towards setting aside, never towards staging more than it allows.
   */
  public static List<SetAside> choose(
      List<StagedChunk> chunks, ToLongFunction<FlowKey.Flow> staged, long maxBytesPerFlow) {
    Map<FlowKey, Long> adding = new LinkedHashMap<>();
    for (StagedChunk c : chunks) {
      adding.merge(c.flowKey(), (long) c.payload().length, Long::sum);
    }
    Map<FlowKey.Flow, Long> taken = new HashMap<>();
    List<SetAside> out = new ArrayList<>();
    for (Map.Entry<FlowKey, Long> a : adding.entrySet()) {
      FlowKey.Flow flow = a.getKey().flow();
      long before = taken.computeIfAbsent(flow, staged::applyAsLong);
      if (before + a.getValue() > maxBytesPerFlow) {
        out.add(new SetAside(a.getKey(), before, a.getValue(), maxBytesPerFlow));
      } else {
        taken.put(flow, before + a.getValue());
      }
    }
    return out;
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
