package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.*;

import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.ProtocolValidator.Identity;
import java.util.HashSet;
import java.util.Set;

/**
 * A manifest's own rules after its identity, in docs/protocol.md's order: its entries as a whole,
 * each entry on its own (every entry rule for one entry before the next entry), the counts, the
 * lanes. A rule that compares with a value another rule found broken is not judged: with
 * global_event_count 0 (EMPTY_BARRIER) nothing is compared with it, and a manifest without entries
 * has no sum.
 */
final class ManifestRules {
  /** The entry rules, in the table's order. */
  private static final int ENTRY_RULES = 7;

  private ManifestRules() {}

  static void check(TransactionManifest m, Identity id, Violations v) {
    if (m.getPartitionsCount() == 0) {
      v.report(MANIFEST_PARTITIONS_EMPTY, "partitions", id.txKey(), "the manifest lists no chunk");
    }
    long global = m.getGlobalEventCount();
    boolean counted = global != 0 || Misreading.on(Misreading.MANIFEST_COUNTS_AGAINST_ZERO_GLOBAL);
    if (global == 0) {
      v.report(
          EMPTY_BARRIER,
          "global_event_count",
          id.txKey(),
          "the manifest declares zero source events");
    }
    Set<Long> seen = new HashSet<>();
    if (Misreading.on(Misreading.MANIFEST_ENTRIES_RULE_BY_RULE)) {
      for (int rule = 0; rule < ENTRY_RULES; rule++) {
        for (int i = 0; i < m.getPartitionsCount(); i++) {
          entry(rule, m, i, counted, id, seen, v);
        }
      }
    } else {
      for (int i = 0; i < m.getPartitionsCount(); i++) {
        for (int rule = 0; rule < ENTRY_RULES; rule++) {
          entry(rule, m, i, counted, id, seen, v);
        }
      }
    }
    if (counted
        && (m.getPartitionsCount() > 0 || Misreading.on(Misreading.MANIFEST_SUM_WITHOUT_ENTRIES))) {
      sum(m, id, v);
    }
    if (counted && Long.compareUnsigned(m.getDdlEventCount(), global) > 0) {
      v.report(
          MANIFEST_COUNTS_DO_NOT_ADD_UP,
          "ddl_event_count",
          id.txKey(),
          "ddl_event_count "
              + Long.toUnsignedString(m.getDdlEventCount())
              + " > global_event_count "
              + Long.toUnsignedString(global));
    }
    partitionCount(m, id, v);
  }

  /** The entries' event_count values, summed without wrapping, against global_event_count. */
  private static void sum(TransactionManifest m, Identity id, Violations v) {
    long sum = 0;
    boolean overflow = false;
    for (int i = 0; i < m.getPartitionsCount(); i++) {
      long next = sum + m.getPartitions(i).getEventCount();
      overflow |= Long.compareUnsigned(next, sum) < 0;
      sum = next;
    }
    if (overflow || sum != m.getGlobalEventCount()) {
      v.report(
          MANIFEST_COUNTS_DO_NOT_ADD_UP,
          "global_event_count",
          id.txKey(),
          "entries add up to "
              + (overflow ? "more than 2^64-1" : Long.toUnsignedString(sum))
              + " events, global_event_count is "
              + Long.toUnsignedString(m.getGlobalEventCount()));
    }
  }

  /**
   * Entry rule {@code rule} (0..6, the table's order) of entry {@code i}; {@code seen} holds the
   * (id, chunk_sequence) of the entries before it.
   */
  private static void entry(
      int rule,
      TransactionManifest m,
      int i,
      boolean counted,
      Identity id,
      Set<Long> seen,
      Violations v) {
    ManifestPartition p = m.getPartitions(i);
    long first = p.getFirstTotalOrder();
    long last = p.getLastTotalOrder();
    boolean nonZero = first != 0 && last != 0;
    boolean ordered = nonZero && Long.compareUnsigned(first, last) <= 0;
    switch (rule) {
      case 0 -> {
        if (!nonZero) {
          v.report(
              MANIFEST_ZERO_TOTAL_ORDER,
              "partitions[" + i + "]" + (first == 0 ? ".first_total_order" : ".last_total_order"),
              id.txKey(),
              range(first, last));
        }
      }
      case 1 -> {
        if (nonZero && !ordered) {
          v.report(
              MANIFEST_REVERSED_RANGE,
              "partitions[" + i + "].last_total_order",
              id.txKey(),
              range(first, last));
        }
      }
      case 2 -> {
        if (p.getEventCount() == 0) {
          v.report(
              MANIFEST_ZERO_EVENT_COUNT,
              "partitions[" + i + "].event_count",
              id.txKey(),
              "chunk " + p.getId() + "/" + p.getChunkSequence() + " declares zero events");
        }
      }
      case 3 -> {
        long span = last - first + 1; // first >= 1, so no wrap
        if (ordered && Long.compareUnsigned(p.getEventCount(), span) > 0) {
          v.report(
              MANIFEST_EVENT_COUNT_EXCEEDS_RANGE,
              "partitions[" + i + "].event_count",
              id.txKey(),
              "event_count "
                  + Long.toUnsignedString(p.getEventCount())
                  + " exceeds the range span "
                  + Long.toUnsignedString(span));
        }
      }
      case 4 -> {
        if (counted && Long.compareUnsigned(last, m.getGlobalEventCount()) > 0) {
          v.report(
              MANIFEST_RANGE_ABOVE_GLOBAL_COUNT,
              "partitions[" + i + "].last_total_order",
              id.txKey(),
              "last_total_order "
                  + Long.toUnsignedString(last)
                  + " > global_event_count "
                  + Long.toUnsignedString(m.getGlobalEventCount()));
        }
      }
      case 5 -> {
        if (!seen.add(((long) p.getId() << 32) | (p.getChunkSequence() & 0xFFFFFFFFL))) {
          v.report(
              MANIFEST_DUPLICATE_CHUNK,
              "partitions[" + i + "].id",
              id.txKey(),
              "chunk " + p.getId() + "/" + p.getChunkSequence() + " is listed twice");
        }
      }
      default -> {
        if (ProtocolValidator.isStrict(m.getBoundaryMode()) && p.getChunkSequence() != 0) {
          v.report(
              CHUNK_SEQUENCE_IN_STRICT_CHUNKED,
              "partitions[" + i + "].chunk_sequence",
              id.txKey(),
              "chunk "
                  + p.getId()
                  + " has chunk_sequence "
                  + Integer.toUnsignedString(p.getChunkSequence()));
        }
      }
    }
  }

  private static String range(long first, long last) {
    return "range " + Long.toUnsignedString(first) + ".." + Long.toUnsignedString(last);
  }

  /**
   * Lanes of the partitioned topic: none in strict chunked order; every listed lane one of them in
   * partitioned scale mode (not judged per entry when partition_count is 0, nor at all with an
   * unspecified mode).
   */
  private static void partitionCount(TransactionManifest m, Identity id, Violations v) {
    int lanes = m.getPartitionCount();
    if (ProtocolValidator.isStrict(m.getBoundaryMode()) && lanes != 0) {
      v.report(
          PARTITION_COUNT_MISMATCH,
          "partition_count",
          id.txKey(),
          "strict chunked transaction order has no lanes, partition_count is "
              + Integer.toUnsignedString(lanes));
    }
    if (m.getBoundaryMode() != ManifestBoundaryMode.PARTITIONED_SCALE_MODE) {
      return;
    }
    if (lanes == 0) {
      v.report(
          PARTITION_COUNT_MISMATCH,
          "partition_count",
          id.txKey(),
          "partitioned scale mode with partition_count 0");
      return;
    }
    for (int i = 0; i < m.getPartitionsCount(); i++) {
      int lane = m.getPartitions(i).getId();
      if (Integer.compareUnsigned(lane, lanes) >= 0) {
        v.report(
            PARTITION_COUNT_MISMATCH,
            "partitions[" + i + "].id",
            id.txKey(),
            "lane "
                + Integer.toUnsignedString(lane)
                + " of "
                + Integer.toUnsignedString(lanes)
                + " lanes");
      }
    }
  }
}
