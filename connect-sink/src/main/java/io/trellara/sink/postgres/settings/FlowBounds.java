package io.trellara.sink.postgres.settings;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * What the sink accepts of a flow's positions and identity, so that a record written by anyone with
 * produce rights on the topic cannot move a flow's commit order where no real transaction will
 * follow it (see {@code CommitOrder}).
 *
 * @param maxLsnAdvanceBytes a transaction whose commit LSN lies more than this many WAL bytes past
 *     the newest position applied for its flow (or, for a flow's first transaction, past the newest
 *     of any flow of its source) is refused ({@code order.max.lsn.advance.bytes}, default 1 TiB)
 * @param sourceIds the source ids the sink applies; empty: any ({@code source.ids})
 * @param datasetIds the dataset ids the sink applies; empty: any ({@code dataset.ids})
 * @param stagingRetention staged chunks older than this are deleted: no barrier completes them any
 *     more ({@code staging.retention.ms}, default 6 hours)
 * @param maxStagedBytesPerFlow a flow may hold at most this many staged bytes ({@code
 *     staging.flow.max.bytes}, default 1 GiB)
 */
public record FlowBounds(
    long maxLsnAdvanceBytes,
    Set<String> sourceIds,
    Set<String> datasetIds,
    Duration stagingRetention,
    long maxStagedBytesPerFlow) {
  /** 1 TiB of WAL: days of a busy primary's writes between two transactions of one flow. */
  public static final long DEFAULT_MAX_LSN_ADVANCE_BYTES = 1L << 40;

  public static final Duration DEFAULT_STAGING_RETENTION = Duration.ofHours(6);
  public static final long DEFAULT_MAX_STAGED_BYTES_PER_FLOW = 1L << 30;

  public static final FlowBounds DEFAULT =
      new FlowBounds(DEFAULT_MAX_LSN_ADVANCE_BYTES, Set.of(), Set.of());

  /** With the default staging limits. */
  public FlowBounds(long maxLsnAdvanceBytes, Set<String> sourceIds, Set<String> datasetIds) {
    this(
        maxLsnAdvanceBytes,
        sourceIds,
        datasetIds,
        DEFAULT_STAGING_RETENTION,
        DEFAULT_MAX_STAGED_BYTES_PER_FLOW);
  }

  /** The same flows and LSN bound, with these staging limits. */
  public FlowBounds staging(Duration retention, long maxBytesPerFlow) {
    return new FlowBounds(maxLsnAdvanceBytes, sourceIds, datasetIds, retention, maxBytesPerFlow);
  }

  public FlowBounds {
    if (maxLsnAdvanceBytes < 1) {
      throw new IllegalArgumentException("maxLsnAdvanceBytes must be >= 1");
    }
    sourceIds = Set.copyOf(Objects.requireNonNull(sourceIds, "sourceIds"));
    datasetIds = Set.copyOf(Objects.requireNonNull(datasetIds, "datasetIds"));
    Objects.requireNonNull(stagingRetention, "stagingRetention");
    if (maxStagedBytesPerFlow < 1) {
      throw new IllegalArgumentException("maxStagedBytesPerFlow must be >= 1");
    }
  }

  /** Whether the operator named the flows and {@code sourceId}/{@code datasetId} is one of them. */
  public boolean configured(String sourceId, String datasetId) {
    return (sourceIds.isEmpty() || sourceIds.contains(sourceId))
        && (datasetIds.isEmpty() || datasetIds.contains(datasetId));
  }
}
