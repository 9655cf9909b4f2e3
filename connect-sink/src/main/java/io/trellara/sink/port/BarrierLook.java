package io.trellara.sink.port;

import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.List;
import java.util.Objects;

/**
 * One barrier asked about in a {@link Target#look}: many waiting barriers are looked at in one
 * target transaction, and the staged chunks of those that are complete come back with the answer,
 * so they apply from memory, grouped, without a query per transaction.
 *
 * @param key the transaction
 * @param manifest its manifest; null for a commit marker without its manifest (only whether it is
 *     applied is asked)
 * @param head the barrier at the head of its queue: a chunk of it that can no longer arrive stops
 *     apply (the rule it breaks is thrown); for the others a missing chunk is only reported (they
 *     are judged when they reach the head)
 * @param held the listed chunks this task holds in memory: when every other listed chunk is staged,
 *     those are read back ({@link Seen#staged}) within the look's byte bound
 */
public record BarrierLook(
    FlowKey key, TransactionManifest manifest, boolean head, List<ManifestPartition> held) {
  public BarrierLook {
    Objects.requireNonNull(key, "key");
    held = List.copyOf(held);
  }

  /** The head barrier of a queue, with the chunks held here. */
  public static BarrierLook head(TransactionManifest m, List<ManifestPartition> held) {
    return new BarrierLook(FlowKey.of(m), m, true, held);
  }

  /** A barrier behind the head: read back if complete, never failed. */
  public static BarrierLook behind(TransactionManifest m, List<ManifestPartition> held) {
    return new BarrierLook(FlowKey.of(m), m, false, held);
  }

  /** Only whether the transaction of a commit marker without its manifest is applied. */
  public static BarrierLook applied(FlowKey key) {
    return new BarrierLook(key, null, true, List.of());
  }

  /**
   * What the target holds for one looked-at barrier.
   *
   * @param verdict applied, ready, waiting or (for a barrier behind the head) missing
   * @param staged when every listed chunk not held here is staged and the look's byte bound
   *     allowed: those chunks, read back, checksum-verified and parsed, in manifest order; null
   *     when not read
   */
  public record Seen(BarrierState.Verdict verdict, List<PartitionChunk> staged) {
    public Seen {
      Objects.requireNonNull(verdict, "verdict");
      staged = staged == null ? null : List.copyOf(staged);
    }

    public boolean readBack() {
      return staged != null;
    }
  }
}
