package io.trellara.sink.postgres.settings;

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
 */
public record FlowBounds(long maxLsnAdvanceBytes, Set<String> sourceIds, Set<String> datasetIds) {
  /** 1 TiB of WAL: months of a busy primary's writes between two transactions of one flow. */
  public static final long DEFAULT_MAX_LSN_ADVANCE_BYTES = 1L << 40;

  public static final FlowBounds DEFAULT =
      new FlowBounds(DEFAULT_MAX_LSN_ADVANCE_BYTES, Set.of(), Set.of());

  public FlowBounds {
    if (maxLsnAdvanceBytes < 1) {
      throw new IllegalArgumentException("maxLsnAdvanceBytes must be >= 1");
    }
    sourceIds = Set.copyOf(Objects.requireNonNull(sourceIds, "sourceIds"));
    datasetIds = Set.copyOf(Objects.requireNonNull(datasetIds, "datasetIds"));
  }

  /** Whether the operator named the flows and {@code sourceId}/{@code datasetId} is one of them. */
  public boolean configured(String sourceId, String datasetId) {
    return (sourceIds.isEmpty() || sourceIds.contains(sourceId))
        && (datasetIds.isEmpty() || datasetIds.contains(datasetId));
  }
}
