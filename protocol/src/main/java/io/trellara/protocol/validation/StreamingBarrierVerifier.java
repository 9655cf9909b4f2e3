package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.*;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rules of {@link BarrierVerifier#verify} for a barrier seen one message at a time, so a
 * consumer may apply a chunk's events before its manifest arrives and still commit only a verified
 * transaction: each chunk is summarised as it passes (its entry, checksum, event count, total-order
 * range; every total_order marked once), the manifest is checked against the summaries, and the
 * marker against the manifest. Memory: a few words per chunk and one bit per event, never the
 * events themselves. A repeated total_order is reported when the manifest arrives, after that
 * chunk's own checks, so the verdict names a rule {@link BarrierVerifier} names too. A chunk passed
 * again with the checksum of the one held (a redelivery) is absorbed; a different chunk under the
 * same (partition id, chunk sequence) is judged against the manifest but never counted.
 */
public final class StreamingBarrierVerifier {
  /** What a passed chunk leaves behind. */
  private record Seen(
      int partitionId,
      int chunkSequence,
      long checksum,
      long events,
      long firstOrder,
      long lastOrder,
      PartitionChunk identity,
      long repeatedOrder) {}

  private final List<Seen> seen = new ArrayList<>();
  private final Map<Long, Seen> byEntry = new HashMap<>();
  private final BarrierVerifier.TotalOrders orders = new BarrierVerifier.TotalOrders();
  private final String key;
  private long events;
  private long ddlEvents;
  private TransactionManifest manifest;

  /**
   * For the transaction {@code first} belongs to (its first chunk is passed to {@link #chunk} as
   * well).
   */
  public StreamingBarrierVerifier(PartitionChunk first) {
    this.key =
        EventKey.transaction(first.getSourceId(), first.getCommitLsn(), first.getTransactionId());
  }

  /** Passes one chunk (already verified and validated on its own). */
  public void chunk(PartitionChunk c) {
    if (manifest != null) {
      throw new IllegalStateException("chunk after the manifest");
    }
    long id = BarrierVerifier.entryId(c.getPartitionId(), c.getChunkSequence());
    Seen held = byEntry.get(id);
    if (held != null && held.checksum == c.getChecksum()) {
      return; // delivered again: the stream is at-least-once
    }
    boolean counted = held == null;
    long first = Long.MAX_VALUE;
    long last = 0;
    long repeated = -1;
    for (ChangeRecord r : c.getChangesList()) {
      repeated = counted ? mark(r.getTotalOrder(), repeated) : repeated;
      first = Math.min(first, r.getTotalOrder());
      last = Math.max(last, r.getTotalOrder());
    }
    for (DdlEvent d : c.getDdlEventsList()) {
      repeated = counted ? mark(d.getTotalOrder(), repeated) : repeated;
      first = Math.min(first, d.getTotalOrder());
      last = Math.max(last, d.getTotalOrder());
    }
    PartitionChunk identity =
        c.toBuilder().clearChanges().clearDdlEvents().clearSchemaVersions().build();
    Seen s =
        new Seen(
            c.getPartitionId(),
            c.getChunkSequence(),
            c.getChecksum(),
            (long) c.getChangesCount() + c.getDdlEventsCount(),
            first,
            last,
            identity,
            repeated);
    seen.add(s);
    if (counted) {
      byEntry.put(id, s);
      events += s.events;
      ddlEvents += c.getDdlEventsCount();
    }
  }

  /**
   * The manifest against every chunk passed: each is listed, with its checksum, event count and
   * range, and identity; every listed chunk was passed; the counts add up to global_event_count.
   */
  public void manifest(TransactionManifest m) {
    if (seen.isEmpty() || m.getGlobalEventCount() == 0) {
      throw new ProtocolViolationException(
          EMPTY_BARRIER, "partitions", key, "no chunk or no event");
    }
    Map<Long, ManifestPartition> entries = new HashMap<>();
    for (ManifestPartition p : m.getPartitionsList()) {
      entries.putIfAbsent(BarrierVerifier.entryId(p.getId(), p.getChunkSequence()), p);
    }
    for (Seen s : seen) {
      BarrierVerifier.verifyIdentity(m, s.identity);
      String where = "chunk " + s.partitionId + "/" + s.chunkSequence;
      ManifestPartition entry =
          entries.get(BarrierVerifier.entryId(s.partitionId, s.chunkSequence));
      if (entry == null) {
        throw new ProtocolViolationException(
            UNLISTED_CHUNK, "chunk.partition_id", key, where + " is not listed by the manifest");
      }
      if (entry.getChecksum() != s.checksum) {
        throw new ProtocolViolationException(
            CHUNK_CHECKSUM_MISMATCH,
            "chunk.checksum",
            key,
            where
                + " has checksum "
                + Long.toUnsignedString(s.checksum, 16)
                + ", the manifest lists "
                + Long.toUnsignedString(entry.getChecksum(), 16));
      }
      if (s.events != entry.getEventCount()) {
        throw new ProtocolViolationException(
            EVENT_COUNT_MISMATCH,
            "chunk.changes",
            key,
            where + " holds " + s.events + " events, the manifest lists " + entry.getEventCount());
      }
      if (s.events > 0
          && (Long.compareUnsigned(s.firstOrder, entry.getFirstTotalOrder()) < 0
              || Long.compareUnsigned(s.lastOrder, entry.getLastTotalOrder()) > 0)) {
        long outside =
            Long.compareUnsigned(s.firstOrder, entry.getFirstTotalOrder()) < 0
                ? s.firstOrder
                : s.lastOrder;
        throw new ProtocolViolationException(
            CHUNK_RANGE_MISMATCH,
            "chunk.total_order",
            key + ":" + outside,
            where
                + " holds total_order "
                + outside
                + " outside "
                + entry.getFirstTotalOrder()
                + ".."
                + entry.getLastTotalOrder());
      }
      if (s.repeatedOrder != -1) {
        throw new ProtocolViolationException(
            DUPLICATE_TOTAL_ORDER,
            "total_order",
            key + ":" + s.repeatedOrder,
            "total_order "
                + s.repeatedOrder
                + " appears in more than one event of the"
                + " transaction");
      }
    }
    for (ManifestPartition p : m.getPartitionsList()) {
      if (!byEntry.containsKey(BarrierVerifier.entryId(p.getId(), p.getChunkSequence()))) {
        throw new ProtocolViolationException(
            MISSING_CHUNK,
            "partitions",
            key,
            "chunk "
                + p.getId()
                + "/"
                + p.getChunkSequence()
                + " listed by the manifest is missing");
      }
    }
    BarrierVerifier.totals(m, events, ddlEvents, key, Violations.FAIL_FAST);
    manifest = m;
  }

  /**
   * The marker binds the manifest passed to {@link #manifest}: after this the barrier is proven
   * whole.
   */
  public void marker(TransactionCommitMarker k) {
    if (manifest == null) {
      throw new IllegalStateException("marker before the manifest");
    }
    BarrierVerifier.verifyMarker(manifest, k);
  }

  /** Marks {@code order}; returns the first repeated order of the chunk so far (-1: none). */
  private long mark(long order, long repeated) {
    return orders.mark(order) || repeated != -1 ? repeated : order;
  }
}
