package io.trellara.sink.buffer;

import io.trellara.protocol.Lsn;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which input partitions should deliver for now: one whose records queue behind a waiting barrier
 * past the pipeline's bounds, or that holds a poison, is paused until its queue drains. Pure
 * bookkeeping over {@link SinkBuffer#backlogged()}; the task turns the decisions into {@code
 * context.pause/resume}.
 */
public final class FlowControl {
  /**
   * What the task tells Connect after a {@code put}: partitions to pause, to resume, and whether to
   * call again soon.
   */
  public record Pauses(
      List<TopicPartitionKey> pause, List<TopicPartitionKey> resume, boolean recheckSoon) {}

  private final Set<TopicPartitionKey> paused = new HashSet<>();

  /** Paused when they were revoked: resumed if they come back (their queue is gone). */
  private final Set<TopicPartitionKey> pausedWhenRevoked = new HashSet<>();

  /**
   * Lanes whose chunks are held here and that ran ahead of every barrier queued behind a paused
   * partition carrying them: no barrier queued there needs more of such a lane (a lane carries its
   * chunks in commit order), and what the lane would deliver meanwhile would only wait past the
   * hold time and be staged, a staged row, a read-back and a sweep for every transaction of a task
   * already behind. They resume with that partition.
   */
  static Set<TopicPartitionKey> lanesAhead(
      Iterable<PartitionState> partitions, Set<TopicPartitionKey> paused) {
    Map<FlowKey.Flow, Lsn> newestQueued = new HashMap<>();
    for (PartitionState ps : partitions) {
      if (ps.carriesBoundaries() && paused.contains(ps.tp)) {
        Items.BarrierItem last = null;
        for (Items.Item i : ps.queue) {
          if (i instanceof Items.BarrierItem b) {
            last = b; // queued in commit order
          }
        }
        if (last != null) {
          newestQueued.merge(
              FlowKey.Flow.of(last.manifest),
              Lsn.parse(last.manifest.getSourceCommitLsn()),
              (a, b) -> a.compareTo(b) >= 0 ? a : b);
        }
      }
    }
    if (newestQueued.isEmpty()) {
      return Set.of();
    }
    Set<TopicPartitionKey> out = new HashSet<>();
    for (PartitionState ps : partitions) {
      LaneHolds.Held newest = ps.held.peekLast();
      if (newest != null) {
        Lsn barrier = newestQueued.get(newest.flow);
        if (barrier != null && newest.commit.compareTo(barrier) > 0) {
          out.add(ps.tp);
        }
      }
    }
    return out;
  }

  /** After a {@code put}: pause what is backlogged, resume what no longer is. */
  public Pauses after(Set<TopicPartitionKey> backlogged, boolean waiting) {
    List<TopicPartitionKey> pause = new ArrayList<>();
    for (TopicPartitionKey k : backlogged) {
      if (paused.add(k)) {
        pause.add(k);
      }
    }
    List<TopicPartitionKey> resume = new ArrayList<>();
    for (Iterator<TopicPartitionKey> it = paused.iterator(); it.hasNext(); ) {
      TopicPartitionKey k = it.next();
      if (!backlogged.contains(k)) {
        it.remove();
        resume.add(k);
      }
    }
    return new Pauses(pause, resume, waiting);
  }

  /**
   * Partitions revoked: a paused one is remembered, so that it is resumed if it is assigned again.
   */
  public void revoked(Collection<TopicPartitionKey> partitions) {
    for (TopicPartitionKey k : partitions) {
      if (paused.remove(k)) {
        pausedWhenRevoked.add(k);
      }
    }
  }

  /**
   * Partitions assigned: those paused when they were revoked must be resumed (nothing is queued for
   * them).
   */
  public List<TopicPartitionKey> assigned(Collection<TopicPartitionKey> partitions) {
    List<TopicPartitionKey> resume = new ArrayList<>();
    for (TopicPartitionKey k : partitions) {
      if (pausedWhenRevoked.remove(k)) {
        resume.add(k);
      }
    }
    return resume;
  }
}
