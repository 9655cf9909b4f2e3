package io.trellara.sink.buffer;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Partitioned lane chunks held in memory by the task that holds the strict partition their barrier
 * comes on, so that a small partitioned transaction costs no staged chunk: when every chunk its
 * manifest lists is held here, the barrier is verified in memory and applied like an envelope
 * (grouped with its neighbours); when some come from lanes another task stages, the held ones are
 * read from here inside the barrier's own target transaction.
 *
 * <p>A held chunk is not durable: its lane's durable position stays at the first held chunk until
 * the transaction it belongs to commits, and that commit records the lane's new position with it.
 * Held chunks of the same flow at or before a committed transaction's commit LSN are released with
 * it: barriers apply in commit order, so they belong to it, to a transaction applied before, or to
 * one that will never come (re-read after a restart). Whatever waits too long, or exceeds the byte
 * bound, is staged ({@link #drain}) and goes the staged way, where every rule (the missing chunk
 * included) is judged exactly as without the buffer. Lanes are staged in order, so a lane's held
 * chunks always come after everything staged from it.
 */
final class LaneHolds {

  /**
   * One held chunk: where it came from, its decoded form and (when the input carried them) its
   * bytes.
   */
  static final class Held {
    final PartitionState lane;
    final long offset;
    final PartitionChunk chunk;
    final FlowKey.Flow flow;
    final Lsn commit;
    final long heldAt;
    final long size;
    private byte[] bytes;

    Held(PartitionState lane, long offset, PartitionChunk chunk, byte[] bytes, long heldAt) {
      this.lane = lane;
      this.offset = offset;
      this.chunk = chunk;
      this.bytes = bytes;
      FlowKey.Flow flow = new FlowKey.Flow(chunk.getSourceId(), chunk.getDatasetId());
      this.flow =
          flow.equals(lane.laneFlow) ? lane.laneFlow : flow; // one instance per lane: cheap lookups
      this.commit = Lsn.parse(chunk.getCommitLsn());
      this.heldAt = heldAt;
      this.size = bytes != null ? bytes.length : chunk.getSerializedSize();
    }

    /** The chunk as it is staged: the input's bytes, or (decoded input) re-encoded and verified. */
    StagedChunk staged() {
      if (bytes == null) {
        bytes =
            chunk.toByteArray(); // the converter verified the original bytes; these must hash the
        // same
        TrellaraCodec.verifyChecksum(MessageKind.CHUNK, bytes);
      }
      return StagedChunk.of(chunk, bytes);
    }
  }

  /** A chunk as a manifest entry lists it, within its transaction. */
  private record Id(
      String sourceId,
      String databaseId,
      String commitLsn,
      String transactionId,
      int partitionId,
      int chunkSequence,
      long checksum) {
    static Id of(PartitionChunk c) {
      return new Id(
          c.getSourceId(),
          c.getDatabaseId(),
          c.getCommitLsn(),
          c.getTransactionId(),
          c.getPartitionId(),
          c.getChunkSequence(),
          c.getChecksum());
    }

    static Id of(TransactionManifest m, ManifestPartition p) {
      return new Id(
          m.getSourceId(),
          m.getDatabaseId(),
          m.getSourceCommitLsn(),
          m.getTransactionId(),
          p.getId(),
          p.getChunkSequence(),
          p.getChecksum());
    }
  }

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LaneHolds.class);

  private final Map<Id, Held> byId = new HashMap<>();
  private long bytes;
  private int count;
  private long holdNanos = SinkBuffer.DEFAULT_HOLD_MILLIS * 1_000_000L;
  private long maxBytes = SinkBuffer.DEFAULT_MAX_HELD_BYTES;

  /**
   * How long chunks may wait here for their barrier, and how many bytes of them (zero: nothing is
   * held).
   */
  void limits(long holdNanos, long maxBytes) {
    this.holdNanos = holdNanos;
    this.maxBytes = maxBytes;
  }

  /**
   * Lane chunks wait in memory only on a task that holds a partition carrying barriers (the strict
   * topic's), where they can be applied without staging; elsewhere their barrier is another task's,
   * which needs them staged.
   */
  boolean wanted(List<Step> steps, Iterable<PartitionState> partitions) {
    if (holdNanos <= 0 || maxBytes <= 0) {
      return false;
    }
    for (Step step : steps) {
      if (step.message() != null && !step.ps().poisoned) {
        return true;
      }
    }
    for (PartitionState ps : partitions) {
      if (ps.carriesBoundaries() && !ps.poisoned) {
        return true;
      }
    }
    return false;
  }

  /**
   * True when held chunks hold too many bytes, or one waited too long while no barrier of its flow
   * is queued here (its barrier is late, or another task's): they go to staging. While barriers of
   * its flow queue here (this task is behind), its own barrier comes here too, in commit order, and
   * applies it from memory: staging it would only add a staged row, a read-back and a sweep to
   * every transaction of a task already behind, which then fell further behind.
   */
  boolean overdue(Iterable<PartitionState> partitions, long now) {
    if (count == 0) {
      return false;
    }
    if (bytes > maxBytes) {
      return true;
    }
    if (now - oldest(partitions) <= holdNanos) {
      return false;
    }
    Set<FlowKey.Flow> queued = flowsQueued(partitions);
    for (PartitionState ps : partitions) {
      for (Held h : ps.held) {
        if (now - h.heldAt <= holdNanos) {
          break; // a lane's chunks are held in arrival order
        }
        if (!queued.contains(h.flow)) {
          return true;
        }
      }
    }
    return false;
  }

  /** The flows with a barrier (or a manifest waiting for its marker) queued here. */
  private static Set<FlowKey.Flow> flowsQueued(Iterable<PartitionState> partitions) {
    Set<FlowKey.Flow> out = new HashSet<>();
    for (PartitionState ps : partitions) {
      if (ps.pendingManifest != null) {
        out.add(FlowKey.Flow.of(ps.pendingManifest.manifest()));
      }
      for (Items.Item i : ps.queue) {
        if (i instanceof Items.BarrierItem b) {
          out.add(FlowKey.Flow.of(b.manifest));
        }
      }
    }
    return out;
  }

  /**
   * Takes every held chunk, lane by lane in offset order, to be staged in one target transaction
   * with the positions of the lanes that hold nothing undurable any more; null when nothing is
   * held.
   */
  Decision.Stage drainForStaging(Iterable<PartitionState> partitions) {
    if (count == 0) {
      return null;
    }
    long heldBytes = bytes;
    List<Held> held = drain(partitions);
    List<StagedChunk> chunks = new ArrayList<>(held.size());
    Map<TopicPartitionKey, Long> positions = new HashMap<>();
    List<Decision.Origin> origins = new ArrayList<>(held.size());
    for (Held h : held) {
      chunks.add(h.staged());
      origins.add(new Decision.Origin(h.lane.tp, h.offset));
      if (h.lane.idle()) {
        positions.put(h.lane.tp, h.lane.durable());
      }
    }
    LOG.debug("Staging {} lane chunk(s) held in memory ({} bytes)", chunks.size(), heldBytes);
    return new Decision.Stage(chunks, positions, origins);
  }

  /**
   * Holds a verified lane chunk (a second copy of one already held, a re-publication, only moves
   * the lane on).
   */
  void hold(PartitionState lane, long offset, PartitionChunk chunk, byte[] encoded, long now) {
    Held h = new Held(lane, offset, chunk, encoded, now);
    lane.held.add(h);
    byId.putIfAbsent(Id.of(chunk), h);
    bytes += h.size;
    count++;
  }

  boolean isEmpty() {
    return count == 0;
  }

  long bytes() {
    return bytes;
  }

  /**
   * When the oldest held chunk was taken (the buffer's clock), or {@code Long.MAX_VALUE} when none
   * is held.
   */
  private long oldest(Iterable<PartitionState> lanes) {
    long oldest = Long.MAX_VALUE;
    for (PartitionState ps : lanes) {
      if (!ps.held.isEmpty()) {
        oldest = Math.min(oldest, ps.held.peek().heldAt);
      }
    }
    return oldest;
  }

  /** The chunks {@code m} lists that are held here, in manifest order. */
  List<PartitionChunk> heldOf(TransactionManifest m) {
    List<PartitionChunk> out = new ArrayList<>();
    for (ManifestPartition p : m.getPartitionsList()) {
      Held h = byId.get(Id.of(m, p));
      if (h != null) {
        out.add(h.chunk);
      }
    }
    return out;
  }

  /** True when every chunk {@code m} lists is held here. */
  boolean holdsAll(TransactionManifest m) {
    for (ManifestPartition p : m.getPartitionsList()) {
      if (!byId.containsKey(Id.of(m, p))) {
        return false;
      }
    }
    return m.getPartitionsCount() > 0;
  }

  /** True when {@code p}, listed by {@code m}, is held here. */
  boolean holds(TransactionManifest m, ManifestPartition p) {
    return byId.containsKey(Id.of(m, p));
  }

  /**
   * True when a lane {@code m} still lacks a chunk of has already brought a later transaction of
   * the same flow here: lanes carry their chunks in commit order, so that chunk can no longer
   * arrive (the staged way, once what is held is staged, names the rule).
   */
  boolean movedPast(
      TransactionManifest m, List<ManifestPartition> absent, Iterable<PartitionState> lanes) {
    FlowKey.Flow flow = FlowKey.Flow.of(m);
    Lsn commit = Lsn.parse(m.getSourceCommitLsn());
    for (PartitionState ps : lanes) {
      for (Held h : ps.held) {
        if (h.flow.equals(flow) && h.commit.compareTo(commit) > 0) {
          for (ManifestPartition p : absent) {
            if (p.getId() == h.chunk.getPartitionId() && !holds(m, p)) {
              return true;
            }
          }
        }
      }
    }
    return false;
  }

  /**
   * The durable position of every lane holding chunks, once everything of each flow up to its
   * commit LSN in {@code committed} is released: the offset of its first chunk still held then, or
   * the offset after its last record.
   */
  Map<TopicPartitionKey, Long> positionsAfter(
      Map<FlowKey.Flow, Lsn> committed, Iterable<PartitionState> lanes) {
    Map<TopicPartitionKey, Long> out = new LinkedHashMap<>();
    for (PartitionState ps : lanes) {
      if (ps.held.isEmpty()) {
        continue;
      }
      long position = ps.next;
      for (Held h : ps.held) {
        if (!released(h, committed)) {
          position = h.offset;
          break;
        }
      }
      out.put(ps.tp, position);
    }
    return out;
  }

  /**
   * Drops every held chunk of each flow at or before its commit LSN in {@code committed}: those
   * committed. A lane holds a flow's chunks in commit order, so with one flow committed (the usual
   * case) the look at a lane ends at its first later chunk: the cost is what is released, not what
   * is held.
   */
  void release(Map<FlowKey.Flow, Lsn> committed, Iterable<PartitionState> lanes) {
    boolean oneFlow = committed.size() == 1;
    for (PartitionState ps : lanes) {
      for (Iterator<Held> it = ps.held.iterator(); it.hasNext(); ) {
        Held h = it.next();
        Lsn commit = committed.get(h.flow);
        if (commit == null) {
          continue; // another flow's
        }
        if (h.commit.compareTo(commit) > 0) {
          if (oneFlow) {
            break;
          }
          continue;
        }
        it.remove();
        forget(h);
      }
    }
  }

  /** Takes every held chunk, lane by lane in order, to be staged. */
  private List<Held> drain(Iterable<PartitionState> lanes) {
    List<Held> out = new ArrayList<>(count);
    for (PartitionState ps : lanes) {
      out.addAll(ps.held);
      forget(ps);
    }
    return out;
  }

  /** Drops a lane's held chunks (revoked: its next owner reads them again). */
  void forget(PartitionState lane) {
    for (Held h : lane.held) {
      forget(h);
    }
    lane.held.clear();
  }

  private void forget(Held h) {
    byId.remove(Id.of(h.chunk), h);
    bytes -= h.size;
    count--;
  }

  private static boolean released(Held h, Map<FlowKey.Flow, Lsn> committed) {
    Lsn commit = committed.get(h.flow);
    return commit != null && h.commit.compareTo(commit) <= 0;
  }
}
