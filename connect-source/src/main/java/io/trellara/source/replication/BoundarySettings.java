package io.trellara.source.replication;

import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import io.trellara.source.routing.OwnershipKeys;

/**
 * How committed transactions are cut for publication. Plain strict order (one envelope each) when
 * not partitioned and {@code maxEventsPerChunk} is 0; strict chunked order when chunking is set;
 * partitioned scale mode over {@code partitionCount} lanes.
 */
public record BoundarySettings(
    boolean partitioned,
    int maxEventsPerChunk,
    long maxChunkBytes,
    int partitionCount,
    OwnershipKeys ownershipKeys,
    NullKeyPolicy nullKeyPolicy,
    KeyChangePolicy keyChangePolicy) {

  public static BoundarySettings strict() {
    return new BoundarySettings(
        false,
        0,
        0,
        0,
        OwnershipKeys.none(),
        NullKeyPolicy.ROUTE_TO_SINGLETON_PARTITION,
        KeyChangePolicy.EMIT_MOVE);
  }

  public boolean chunked() {
    return partitioned || maxEventsPerChunk > 0;
  }

  /** The wire vocabulary operator surfaces print. */
  public String wireMode() {
    if (partitioned) {
      return BoundaryVocabulary.PARTITIONED;
    }
    return maxEventsPerChunk > 0 ? BoundaryVocabulary.STRICT_CHUNKED : BoundaryVocabulary.STRICT;
  }
}
