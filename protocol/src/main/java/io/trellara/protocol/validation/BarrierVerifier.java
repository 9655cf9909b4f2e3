package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.*;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The commit barrier's cross-message rules: a manifest, its commit marker and every chunk it lists,
 * each already verified and validated on its own. Passing means the transaction is complete and
 * unambiguous. Each check reports to a {@link Violations}; the forms without one fail fast.
 */
public final class BarrierVerifier {

  private BarrierVerifier() {}

  /** Marker binds manifest: identity, counts and manifest_checksum. */
  public static void verifyMarker(TransactionManifest m, TransactionCommitMarker k) {
    verifyMarker(m, k, Violations.FAIL_FAST);
  }

  public static void verifyMarker(TransactionManifest m, TransactionCommitMarker k, Violations v) {
    String key = txKey(m);
    if (!k.getTransactionId().equals(m.getTransactionId())) {
      v.report(
          TRANSACTION_ID_MISMATCH,
          "commit_marker.transaction_id",
          key,
          "marker names '" + k.getTransactionId() + "'");
    }
    mismatch(!k.getSourceId().equals(m.getSourceId()), "source_id", key, v);
    mismatch(!k.getDatabaseId().equals(m.getDatabaseId()), "database_id", key, v);
    mismatch(!k.getDatasetId().equals(m.getDatasetId()), "dataset_id", key, v);
    mismatch(!k.getSourceCommitLsn().equals(m.getSourceCommitLsn()), "source_commit_lsn", key, v);
    mismatch(
        k.getSourceCommitTimestampMs() != m.getSourceCommitTimestampMs(),
        "source_commit_timestamp_ms",
        key,
        v);
    mismatch(k.getGlobalEventCount() != m.getGlobalEventCount(), "global_event_count", key, v);
    mismatch(
        k.getParticipatingPartitionCount() != participatingPartitions(m),
        "participating_partition_count",
        key,
        v);
    if (k.getManifestChecksum() != m.getChecksum()) {
      v.report(
          MARKER_MANIFEST_CHECKSUM_MISMATCH,
          "commit_marker.manifest_checksum",
          key,
          "marker binds " + hex(k.getManifestChecksum()) + ", manifest is " + hex(m.getChecksum()));
    }
  }

  /** A later, different manifest of the stream: the marker binds another (the first). */
  public static void verifyBinding(
      TransactionManifest later, TransactionCommitMarker k, Violations v) {
    if (k.getManifestChecksum() != later.getChecksum()) {
      v.report(
          MARKER_MANIFEST_CHECKSUM_MISMATCH,
          "commit_marker.manifest_checksum",
          txKey(later),
          "a second manifest "
              + hex(later.getChecksum())
              + " that the marker, binding "
              + hex(k.getManifestChecksum())
              + ", does not bind");
    }
  }

  private static void mismatch(boolean differs, String field, String key, Violations v) {
    if (differs) {
      v.report(
          MARKER_IDENTITY_MISMATCH,
          "commit_marker." + field,
          key,
          field + " differs from the manifest");
    }
  }

  /** Distinct partition ids listed by the manifest. */
  public static int participatingPartitions(TransactionManifest m) {
    int[] ids = new int[m.getPartitionsCount()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = m.getPartitions(i).getId();
    }
    Arrays.sort(ids);
    int distinct = 0;
    for (int i = 0; i < ids.length; i++) {
      if (i == 0 || ids[i] != ids[i - 1]) {
        distinct++;
      }
    }
    return distinct;
  }

  /** A chunk against the manifest entry that lists it. */
  public static ManifestPartition verifyChunk(TransactionManifest m, PartitionChunk c) {
    return verifyChunk(m, c, Violations.FAIL_FAST);
  }

  /**
   * A chunk against the manifest entry that lists it; returns the entry, or null when none lists
   * the chunk.
   */
  public static ManifestPartition verifyChunk(
      TransactionManifest m, PartitionChunk c, Violations v) {
    String key = txKey(m);
    String where = "chunk " + c.getPartitionId() + "/" + c.getChunkSequence();
    verifyIdentity(m, c, v);
    ManifestPartition entry = entry(m, c.getPartitionId(), c.getChunkSequence());
    if (entry == null) {
      v.report(UNLISTED_CHUNK, "chunk.partition_id", key, where + " is not listed by the manifest");
      return null;
    }
    if (entry.getChecksum() != c.getChecksum()) {
      v.report(
          CHUNK_CHECKSUM_MISMATCH,
          "chunk.checksum",
          key,
          where
              + " has checksum "
              + hex(c.getChecksum())
              + ", the manifest lists "
              + hex(entry.getChecksum()));
    }
    long events = (long) c.getChangesCount() + c.getDdlEventsCount();
    if (events != entry.getEventCount()) {
      v.report(
          EVENT_COUNT_MISMATCH,
          "chunk.changes",
          key,
          where + " holds " + events + " events, the manifest lists " + entry.getEventCount());
    }
    long outside = -1;
    for (ChangeRecord r : c.getChangesList()) {
      outside = outside == -1 && !inRange(entry, r.getTotalOrder()) ? r.getTotalOrder() : outside;
    }
    for (DdlEvent d : c.getDdlEventsList()) {
      outside = outside == -1 && !inRange(entry, d.getTotalOrder()) ? d.getTotalOrder() : outside;
    }
    if (outside != -1) {
      v.report(
          CHUNK_RANGE_MISMATCH,
          "chunk.total_order",
          key + ":" + Long.toUnsignedString(outside),
          where
              + " holds total_order "
              + Long.toUnsignedString(outside)
              + " outside "
              + Long.toUnsignedString(entry.getFirstTotalOrder())
              + ".."
              + Long.toUnsignedString(entry.getLastTotalOrder()));
    }
    return entry;
  }

  /**
   * The chunk names the manifest's transaction: transaction id, source, dataset, LSN, timestamp,
   * mode.
   */
  public static void verifyIdentity(TransactionManifest m, PartitionChunk c) {
    verifyIdentity(m, c, Violations.FAIL_FAST);
  }

  public static void verifyIdentity(TransactionManifest m, PartitionChunk c, Violations v) {
    String key = txKey(m);
    String where = "chunk " + c.getPartitionId() + "/" + c.getChunkSequence();
    if (!c.getTransactionId().equals(m.getTransactionId())) {
      v.report(
          TRANSACTION_ID_MISMATCH,
          "chunk.transaction_id",
          key,
          where + " names transaction '" + c.getTransactionId() + "'");
    }
    if (!c.getSourceId().equals(m.getSourceId())
        || !c.getDatasetId().equals(m.getDatasetId())
        || !c.getDatabaseId().equals(m.getDatabaseId())
        || !c.getCommitLsn().equals(m.getSourceCommitLsn())
        || c.getCommitTimestampMs() != m.getSourceCommitTimestampMs()
        || c.getBoundaryMode() != m.getBoundaryMode()) {
      v.report(
          CHUNK_IDENTITY_MISMATCH,
          "chunk",
          key,
          where + " differs from its manifest in source, dataset, LSN, timestamp or boundary mode");
    }
  }

  /** The manifest entry of (partition id, chunk sequence), or null. */
  static ManifestPartition entry(TransactionManifest m, int partitionId, int chunkSequence) {
    for (ManifestPartition p : m.getPartitionsList()) {
      if (p.getId() == partitionId && p.getChunkSequence() == chunkSequence) {
        return p;
      }
    }
    return null;
  }

  private static boolean inRange(ManifestPartition entry, long order) {
    return Long.compareUnsigned(order, entry.getFirstTotalOrder()) >= 0
        && Long.compareUnsigned(order, entry.getLastTotalOrder()) <= 0;
  }

  /**
   * The whole barrier held in memory: marker binds manifest, every listed chunk present and
   * consistent, counts add up to global_event_count and ddl_event_count, no total_order repeats
   * across all chunks.
   */
  public static void verify(
      TransactionManifest m, TransactionCommitMarker k, List<PartitionChunk> chunks) {
    verify(m, k, chunks, Violations.FAIL_FAST);
  }

  /**
   * As {@link #verify(TransactionManifest, TransactionCommitMarker, List)}. A chunk with the
   * (partition id, chunk sequence) and the checksum of one already held is a redelivery (the stream
   * is at-least-once) and is absorbed; a different chunk under an entry already held is judged
   * against that entry (so its checksum cannot match) but never counted. A listed chunk counts for
   * its entry whatever it broke against it. Without a chunk the barrier is empty: that is its one
   * fault, no chunk is reported missing. {@code k} null: the barrier without its marker (the
   * mutation check's misreading only).
   */
  public static void verify(
      TransactionManifest m, TransactionCommitMarker k, List<PartitionChunk> chunks, Violations v) {
    String key = txKey(m);
    if (k != null) {
      verifyMarker(m, k, v);
    }
    if (chunks.isEmpty() || m.getGlobalEventCount() == 0) {
      v.report(EMPTY_BARRIER, "partitions", key, "no chunk or no event");
      if (!Misreading.on(Misreading.MISSING_CHUNK_IN_EMPTY_BARRIER)) {
        return; // every listed chunk is missing: the one fault, named once
      }
    }
    Map<Long, PartitionChunk> held = new HashMap<>();
    TotalOrders orders = new TotalOrders();
    long events = 0;
    long ddlEvents = 0;
    for (PartitionChunk c : chunks) {
      long id = entryId(c.getPartitionId(), c.getChunkSequence());
      PartitionChunk first = held.get(id);
      if (first != null && first.getChecksum() == c.getChecksum()) {
        continue; // each verified its checksum over its own bytes: the same bytes, delivered again
      }
      ManifestPartition entry = verifyChunk(m, c, v);
      if (first != null || entry == null) {
        continue; // not the transaction's, or not the copy its entry counts
      }
      if (entry.getChecksum() != c.getChecksum()
          && Misreading.on(Misreading.CHUNK_WITH_WRONG_CHECKSUM_NOT_COUNTED)) {
        continue;
      }
      held.put(id, c);
      for (ChangeRecord r : c.getChangesList()) {
        orders.mark(r.getTotalOrder(), key, v);
      }
      for (DdlEvent d : c.getDdlEventsList()) {
        orders.mark(d.getTotalOrder(), key, v);
      }
      events += c.getChangesCount() + c.getDdlEventsCount();
      ddlEvents += c.getDdlEventsCount();
    }
    boolean whole = true;
    for (ManifestPartition p : m.getPartitionsList()) {
      if (!held.containsKey(entryId(p.getId(), p.getChunkSequence()))) {
        whole = false;
        v.report(
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
    if (whole) {
      totals(m, events, ddlEvents, key, v);
    }
  }

  /**
   * What every listed chunk holds, against the manifest's totals (judged only when none is
   * missing).
   */
  static void totals(TransactionManifest m, long events, long ddlEvents, String key, Violations v) {
    if (events != m.getGlobalEventCount()) {
      v.report(
          EVENT_COUNT_MISMATCH,
          "global_event_count",
          key,
          "chunks hold "
              + events
              + " events, global_event_count is "
              + Long.toUnsignedString(m.getGlobalEventCount()));
    }
    if (ddlEvents != m.getDdlEventCount()) {
      v.report(
          EVENT_COUNT_MISMATCH,
          "ddl_event_count",
          key,
          "chunks hold "
              + ddlEvents
              + " DDL events, ddl_event_count is "
              + Long.toUnsignedString(m.getDdlEventCount()));
    }
  }

  public static String txKey(TransactionManifest m) {
    return EventKey.transaction(m.getSourceId(), m.getSourceCommitLsn(), m.getTransactionId());
  }

  static long entryId(int partitionId, int chunkSequence) {
    return ((long) partitionId << 32) | (chunkSequence & 0xFFFFFFFFL);
  }

  /**
   * The total_orders of a barrier's events, each marked once. Its memory follows the events marked,
   * never the values the wire declares: an order below a window that grows with the marks (64 per
   * event marked, plus 4096) takes a bit, any other a set entry. A bit per order up to the largest
   * one would let one 174-byte chunk with total_order 2^31-2 allocate a 256 MiB bitset.
   */
  static final class TotalOrders {
    private static final long BITS_PER_MARK = 64;
    private static final long BASE_BITS = 4096;

    private final BitSet small = new BitSet();
    private final Set<Long> large = new HashSet<>();
    private long marks;

    /** Marks {@code order}; false when it was marked before. */
    boolean mark(long order) {
      // the window only grows: an order kept in the set may fall inside it later, so both are asked
      long window = Math.min(Integer.MAX_VALUE, BASE_BITS + BITS_PER_MARK * marks);
      marks++;
      if (order >= 0 && order < window) {
        boolean before = small.get((int) order) || !large.isEmpty() && large.contains(order);
        small.set((int) order);
        return !before;
      }
      return large.add(order);
    }

    /** Bits the window may hold now: what the bitset can have grown to. */
    long windowBits() {
      return Math.min(Integer.MAX_VALUE, BASE_BITS + BITS_PER_MARK * marks);
    }

    void mark(long order, String key, Violations v) {
      if (!mark(order)) {
        v.report(
            DUPLICATE_TOTAL_ORDER,
            "total_order",
            key + ":" + Long.toUnsignedString(order),
            "total_order "
                + Long.toUnsignedString(order)
                + " appears in more than one event of the"
                + " transaction");
      }
    }
  }

  /** Lower-case 16-digit hex, as the codec's Checksums spells checksums in messages. */
  private static String hex(long checksum) {
    String s = Long.toHexString(checksum);
    return "0".repeat(16 - s.length()) + s;
  }
}
