package io.trellara.sink.buffer;

import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.port.BarrierLook;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * One look for every waiting barrier of a queue: the head barrier and up to {@link #MAX_BEHIND}
 * partitioned barriers behind it are asked about together ({@link Decision.CheckBarriers}), and
 * those the target read back complete become the envelopes they reassemble to, in place, so they
 * apply as one group with their neighbours once the head has gone. Pure: the answer comes in, the
 * queue changes.
 */
final class BarrierLookups {
  /** At most this many barriers behind the head are looked at with it. */
  static final int MAX_BEHIND = 512;

  private BarrierLookups() {}

  /** The head barrier of {@code ps} (first) and the partitioned barriers behind it to look at. */
  static List<Items.BarrierItem> lookedAt(PartitionState ps) {
    List<Items.BarrierItem> out = new ArrayList<>();
    for (Items.Item i : ps.queue) {
      if (i instanceof Items.BarrierItem b) {
        if (out.isEmpty()
            || b.manifest.getBoundaryMode() == ManifestBoundaryMode.PARTITIONED_SCALE_MODE
                && !b.notInMemory) {
          out.add(b);
        }
        if (out.size() > MAX_BEHIND) {
          break;
        }
      } else if (!(i instanceof Items.EnvelopeItem)) {
        break; // an orphan marker or a poison: what is behind it waits for it
      }
    }
    return out;
  }

  /** The questions for {@code items} (the first is the head), naming the chunks held here. */
  static List<BarrierLook> looks(List<Items.BarrierItem> items, LaneHolds lanes) {
    List<BarrierLook> out = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      TransactionManifest m = items.get(i).manifest;
      List<ManifestPartition> held = new ArrayList<>();
      if (!lanes.isEmpty()) {
        for (ManifestPartition p : m.getPartitionsList()) {
          if (lanes.holds(m, p)) {
            held.add(p);
          }
        }
      }
      out.add(i == 0 ? BarrierLook.head(m, held) : BarrierLook.behind(m, held));
    }
    return out;
  }

  /**
   * Replaces, in {@code ps}'s queue, each of {@code items} read back complete ({@code seen}, in the
   * same order) with the envelope it reassembles to from its held and staged chunks. A barrier
   * whose chunks do not verify in memory is left to the staged way, which names the rule. True when
   * the head was replaced.
   */
  static boolean reassemble(
      PartitionState ps,
      List<Items.BarrierItem> items,
      List<BarrierLook.Seen> seen,
      LaneHolds lanes) {
    Map<Items.Item, Items.Item> replaced = new IdentityHashMap<>();
    for (int i = 0; i < items.size(); i++) {
      Items.BarrierItem b = items.get(i);
      BarrierLook.Seen s = seen.get(i);
      if (!s.readBack() || b.notInMemory) {
        continue;
      }
      TransactionEnvelope whole = assemble(b, s.staged(), lanes);
      if (whole == null) {
        b.notInMemory = true;
        continue;
      }
      replaced.put(
          b, new Items.EnvelopeItem(whole, b.firstOffset(), b.markerOffset, -1, true, true));
    }
    if (replaced.isEmpty()) {
      return false;
    }
    ArrayDeque<Items.Item> out = new ArrayDeque<>(ps.queue.size());
    for (Iterator<Items.Item> it = ps.queue.iterator(); it.hasNext(); ) {
      Items.Item i = it.next();
      out.add(replaced.getOrDefault(i, i));
    }
    ps.queue.clear();
    ps.queue.addAll(out);
    return replaced.containsKey(items.get(0));
  }

  /** The chunks of {@code b} in manifest order (held here, else read back), reassembled. */
  private static TransactionEnvelope assemble(
      Items.BarrierItem b, List<PartitionChunk> staged, LaneHolds lanes) {
    List<PartitionChunk> held = lanes.isEmpty() ? List.of() : lanes.heldOf(b.manifest);
    List<PartitionChunk> chunks = new ArrayList<>(b.manifest.getPartitionsCount());
    int next = 0;
    for (ManifestPartition p : b.manifest.getPartitionsList()) {
      PartitionChunk c = find(held, p);
      if (c == null) {
        if (next >= staged.size()) {
          return null;
        }
        c = staged.get(next++);
      }
      chunks.add(c);
    }
    return next == staged.size() ? WholeBarrier.assembleLanes(b.manifest, b.marker, chunks) : null;
  }

  private static PartitionChunk find(List<PartitionChunk> held, ManifestPartition p) {
    for (PartitionChunk c : held) {
      if (c.getPartitionId() == p.getId()
          && c.getChunkSequence() == p.getChunkSequence()
          && c.getChecksum() == p.getChecksum()) {
        return c;
      }
    }
    return null;
  }
}
