package io.trellara.sink.port;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What the target holds for one barrier: whether its transaction is already applied, which chunks
 * are staged at its commit LSN, and how far each lane of its dataset has been staged. {@link
 * #evaluate} turns that into a verdict; it is a pure function, so the missing-chunk rule is tested
 * without a database.
 *
 * @param applied the transaction is in {@code trellara_sink.applied_transactions}
 * @param staged every chunk staged for the manifest's source and commit LSN (any transaction id)
 * @param watermarks per lane (partition_id), the newest commit LSN staged from it (partitioned
 *     chunks only)
 */
public record BarrierState(boolean applied, List<Staged> staged, Map<Long, Lsn> watermarks) {

  /** One staged chunk, without its payload. */
  public record Staged(long partitionId, long chunkSequence, long checksum, String transactionId) {}

  public enum Kind {
    /** The transaction is applied already: record progress, nothing else. */
    ALREADY_APPLIED,
    /** Every listed chunk is staged with the listed checksum. */
    READY,
    /**
     * A listed chunk is absent and may still arrive (its lane has not been staged past this
     * commit).
     */
    WAITING,
    /** A listed chunk is absent and cannot arrive any more: the barrier fails closed. */
    MISSING
  }

  /**
   * @param kind the verdict
   * @param absent the listed chunks not staged (WAITING, MISSING)
   * @param missing MISSING: the first conclusively missing entry
   * @param otherVersion MISSING: a chunk staged under the same (partition_id, chunk_sequence) but
   *     another checksum, whose own verification names the more specific rule; null when none
   */
  public record Verdict(
      Kind kind, List<ManifestPartition> absent, ManifestPartition missing, Staged otherVersion) {
    /** Distinct lanes (partition ids) of the absent chunks. */
    public int absentLanes() {
      TreeSet<Integer> lanes = new TreeSet<>();
      absent.forEach(p -> lanes.add(p.getId()));
      return lanes.size();
    }
  }

  public BarrierState {
    staged = List.copyOf(staged);
    watermarks = Map.copyOf(watermarks);
  }

  /**
   * A listed chunk is present when a chunk with its (partition_id, chunk_sequence, checksum) is
   * staged. An absent chunk is conclusively missing when it would have come before the manifest on
   * the manifest's own partition (strict chunked order: every chunk precedes its manifest there,
   * and is staged before the manifest is looked at), or when its lane has already been staged past
   * this transaction's commit LSN (partitioned: each lane carries its chunks in commit order).
   * Otherwise the barrier waits for it.
   */
  public Verdict evaluate(TransactionManifest m) {
    if (applied) {
      return new Verdict(Kind.ALREADY_APPLIED, List.of(), null, null);
    }
    Lsn commit = Lsn.parse(m.getSourceCommitLsn());
    boolean strictChunked =
        m.getBoundaryMode() == ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER;
    Map<Long, List<Staged>> byChunk = new HashMap<>();
    for (Staged s : staged) {
      byChunk
          .computeIfAbsent(chunkId(s.partitionId, s.chunkSequence), k -> new ArrayList<>(1))
          .add(s);
    }
    List<ManifestPartition> absent = new ArrayList<>();
    for (ManifestPartition p : m.getPartitionsList()) {
      long id = Integer.toUnsignedLong(p.getId());
      Staged other = null;
      boolean present = false;
      long seq = Integer.toUnsignedLong(p.getChunkSequence());
      for (Staged s : byChunk.getOrDefault(chunkId(id, seq), List.of())) {
        if (s.checksum == p.getChecksum()) {
          present = true;
          break;
        }
        other = s;
      }
      if (present) {
        continue;
      }
      absent.add(p);
      Lsn lane = watermarks.get(id);
      if (strictChunked || (lane != null && lane.compareTo(commit) > 0)) {
        return new Verdict(Kind.MISSING, List.copyOf(absent), p, other);
      }
    }
    return absent.isEmpty()
        ? new Verdict(Kind.READY, List.of(), null, null)
        : new Verdict(Kind.WAITING, List.copyOf(absent), null, null);
  }

  @Override
  public String toString() {
    return "BarrierState[applied="
        + applied
        + " staged="
        + staged.size()
        + " watermarks="
        + watermarks
        + "]";
  }

  private static long chunkId(long partitionId, long chunkSequence) {
    return (partitionId << 32) | chunkSequence;
  }
}
