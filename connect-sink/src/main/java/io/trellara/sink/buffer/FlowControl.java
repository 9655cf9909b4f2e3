package io.trellara.sink.buffer;

import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
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
