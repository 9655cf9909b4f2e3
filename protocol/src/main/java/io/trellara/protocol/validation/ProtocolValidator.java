package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.*;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.ProtocolVersion;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.HashSet;
import java.util.Set;

/**
 * Validates each message on its own against the wire contract (cross-message barrier rules live in
 * {@link BarrierVerifier}; the rules of the events an envelope or chunk carries in {@link
 * EventRules}). Each method reports to a {@link Violations}: the one-argument forms fail fast with
 * a {@link ProtocolViolationException}. A check that needs a value another rule found broken (an
 * LSN that does not parse, a range that is reversed) is not made, so a message breaks only the
 * rules whose conditions docs/protocol.md states.
 */
public final class ProtocolValidator {

  private ProtocolValidator() {}

  public static void validateEnvelope(TransactionEnvelope e) {
    validateEnvelope(e, Violations.FAIL_FAST);
  }

  public static void validateChunk(PartitionChunk c) {
    validateChunk(c, Violations.FAIL_FAST);
  }

  public static void validateManifest(TransactionManifest m) {
    validateManifest(m, Violations.FAIL_FAST);
  }

  public static void validateCommitMarker(TransactionCommitMarker k) {
    validateCommitMarker(k, Violations.FAIL_FAST);
  }

  public static void validateEnvelope(TransactionEnvelope e, Violations v) {
    Identity id =
        new Identity(
            e.getSourceId(),
            e.getDatabaseId(),
            e.getDatasetId(),
            e.getTransactionId(),
            e.getCommitLsn());
    identity(e.getProtocolVersion(), id, e.getCommitTimestampMs(), "", v);
    beginLsn(e.getBeginLsn(), e.getCommitLsn(), id, v);
    if (e.hasManifest()) {
      v.report(
          MANIFEST_ON_PLAIN_STRICT,
          "manifest",
          id.txKey(),
          "an envelope travels only as a plain strict"
              + " transaction; chunked and partitioned boundaries are published as chunks, a manifest and a"
              + " commit marker");
    }
    long events =
        EventRules.check(
            id, e.getChangesList(), e.getDdlEventsList(), e.getSchemaVersionsList(), true, v);
    if (events == 0) {
      v.report(
          EMPTY_BARRIER, "changes", id.txKey(), "the envelope carries no change and no DDL event");
    } else {
      EventRules.requireNoGap(id, e.getChangesList(), e.getDdlEventsList(), events, v);
    }
  }

  public static void validateChunk(PartitionChunk c, Violations v) {
    Identity id =
        new Identity(
            c.getSourceId(),
            c.getDatabaseId(),
            c.getDatasetId(),
            c.getTransactionId(),
            c.getCommitLsn());
    identity(c.getProtocolVersion(), id, c.getCommitTimestampMs(), "", v);
    beginLsn(c.getBeginLsn(), c.getCommitLsn(), id, v);
    boundaryMode(c.getBoundaryMode(), id, v);
    boolean strict = c.getBoundaryMode() == ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER;
    if (strict && c.getChunkSequence() != 0) {
      v.report(
          CHUNK_SEQUENCE_IN_STRICT_CHUNKED,
          "chunk_sequence",
          id.txKey(),
          "chunk "
              + c.getPartitionId()
              + " has chunk_sequence "
              + Integer.toUnsignedString(c.getChunkSequence()));
    }
    long events =
        EventRules.check(
            id, c.getChangesList(), c.getDdlEventsList(), c.getSchemaVersionsList(), strict, v);
    if (events == 0) {
      v.report(
          EMPTY_BARRIER,
          "changes",
          id.txKey(),
          "chunk " + c.getPartitionId() + "/" + c.getChunkSequence() + " carries no event");
    }
  }

  public static void validateManifest(TransactionManifest m, Violations v) {
    Identity id =
        new Identity(
            m.getSourceId(),
            m.getDatabaseId(),
            m.getDatasetId(),
            m.getTransactionId(),
            m.getSourceCommitLsn());
    identity(m.getProtocolVersion(), id, m.getSourceCommitTimestampMs(), "source_", v);
    boundaryMode(m.getBoundaryMode(), id, v);
    if (m.getPartitionsCount() == 0) {
      v.report(MANIFEST_PARTITIONS_EMPTY, "partitions", id.txKey(), "the manifest lists no chunk");
    }
    long global = m.getGlobalEventCount();
    if (global == 0) {
      v.report(
          EMPTY_BARRIER,
          "global_event_count",
          id.txKey(),
          "the manifest declares zero source events");
    }
    long sum = 0;
    boolean overflow = false;
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < m.getPartitionsCount(); i++) {
      ManifestPartition p = m.getPartitions(i);
      entry(m, p, "partitions[" + i + "]", id, seen, v);
      long next = sum + p.getEventCount();
      overflow |= Long.compareUnsigned(next, sum) < 0;
      sum = next;
    }
    if (overflow || sum != global) {
      v.report(
          MANIFEST_COUNTS_DO_NOT_ADD_UP,
          "global_event_count",
          id.txKey(),
          "entries add up to "
              + (overflow ? "more than 2^64-1" : Long.toUnsignedString(sum))
              + " events, global_event_count is "
              + Long.toUnsignedString(global));
    }
    if (Long.compareUnsigned(m.getDdlEventCount(), global) > 0) {
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

  /**
   * One manifest entry on its own; {@code seen} holds the (id, chunk_sequence) of the entries
   * before it.
   */
  private static void entry(
      TransactionManifest m,
      ManifestPartition p,
      String f,
      Identity id,
      Set<Long> seen,
      Violations v) {
    long first = p.getFirstTotalOrder();
    long last = p.getLastTotalOrder();
    boolean nonZero = first != 0 && last != 0;
    if (!nonZero) {
      v.report(
          MANIFEST_ZERO_TOTAL_ORDER,
          f + (first == 0 ? ".first_total_order" : ".last_total_order"),
          id.txKey(),
          range(first, last));
    }
    boolean ordered = nonZero && Long.compareUnsigned(first, last) <= 0;
    if (nonZero && !ordered) {
      v.report(MANIFEST_REVERSED_RANGE, f + ".last_total_order", id.txKey(), range(first, last));
    }
    if (p.getEventCount() == 0) {
      v.report(
          MANIFEST_ZERO_EVENT_COUNT,
          f + ".event_count",
          id.txKey(),
          "chunk " + p.getId() + "/" + p.getChunkSequence() + " declares zero events");
    }
    long span = last - first + 1; // first >= 1, so no wrap
    if (ordered && Long.compareUnsigned(p.getEventCount(), span) > 0) {
      v.report(
          MANIFEST_EVENT_COUNT_EXCEEDS_RANGE,
          f + ".event_count",
          id.txKey(),
          "event_count "
              + Long.toUnsignedString(p.getEventCount())
              + " exceeds the range span "
              + Long.toUnsignedString(span));
    }
    if (Long.compareUnsigned(last, m.getGlobalEventCount()) > 0) {
      v.report(
          MANIFEST_RANGE_ABOVE_GLOBAL_COUNT,
          f + ".last_total_order",
          id.txKey(),
          "last_total_order "
              + Long.toUnsignedString(last)
              + " > global_event_count "
              + Long.toUnsignedString(m.getGlobalEventCount()));
    }
    if (!seen.add(((long) p.getId() << 32) | (p.getChunkSequence() & 0xFFFFFFFFL))) {
      v.report(
          MANIFEST_DUPLICATE_CHUNK,
          f + ".id",
          id.txKey(),
          "chunk " + p.getId() + "/" + p.getChunkSequence() + " is listed twice");
    }
    if (m.getBoundaryMode() == ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER
        && p.getChunkSequence() != 0) {
      v.report(
          CHUNK_SEQUENCE_IN_STRICT_CHUNKED,
          f + ".chunk_sequence",
          id.txKey(),
          "chunk "
              + p.getId()
              + " has chunk_sequence "
              + Integer.toUnsignedString(p.getChunkSequence()));
    }
  }

  private static String range(long first, long last) {
    return "range " + Long.toUnsignedString(first) + ".." + Long.toUnsignedString(last);
  }

  /**
   * Lanes of the partitioned topic: none in strict chunked order; every listed lane one of them
   * otherwise.
   */
  private static void partitionCount(TransactionManifest m, Identity id, Violations v) {
    int lanes = m.getPartitionCount();
    if (m.getBoundaryMode() == ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER
        && lanes != 0) {
      v.report(
          PARTITION_COUNT_MISMATCH,
          "partition_count",
          id.txKey(),
          "strict chunked transaction order has"
              + " no lanes, partition_count is "
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
          "partitioned scale mode with" + " partition_count 0");
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

  public static void validateCommitMarker(TransactionCommitMarker k, Violations v) {
    Identity id =
        new Identity(
            k.getSourceId(),
            k.getDatabaseId(),
            k.getDatasetId(),
            k.getTransactionId(),
            k.getSourceCommitLsn());
    identity(k.getProtocolVersion(), id, k.getSourceCommitTimestampMs(), "source_", v);
    if (k.getGlobalEventCount() == 0 || k.getParticipatingPartitionCount() == 0) {
      v.report(
          EMPTY_BARRIER,
          k.getGlobalEventCount() == 0 ? "global_event_count" : "participating_partition_count",
          id.txKey(),
          "a commit marker for zero events or zero partitions is an empty barrier");
    }
  }

  // ---- shared pieces
  // -------------------------------------------------------------------------------------

  /** The identity fields every message kind repeats. */
  record Identity(
      String sourceId,
      String databaseId,
      String datasetId,
      String transactionId,
      String commitLsn) {
    String txKey() {
      return sourceId + ':' + commitLsn + ':' + transactionId;
    }

    String eventKey(long totalOrder) {
      return EventKey.of(sourceId, commitLsn, transactionId, totalOrder);
    }
  }

  private static void identity(
      int version, Identity id, long timestampMs, String lsnPrefix, Violations v) {
    if (version != ProtocolVersion.CURRENT) {
      v.report(
          UNKNOWN_PROTOCOL_VERSION,
          "protocol_version",
          id.txKey(),
          "protocol_version is " + Integer.toUnsignedString(version));
    }
    required(id.sourceId, "source_id", id, v);
    required(id.databaseId, "database_id", id, v);
    required(id.datasetId, "dataset_id", id, v);
    if (required(id.transactionId, "transaction_id", id, v)
        && !EventKey.isUnsignedDecimal(id.transactionId)
        && !Snapshots.isSnapshot(id.transactionId)) {
      v.report(
          TRANSACTION_ID_NOT_DECIMAL,
          "transaction_id",
          id.txKey(),
          "'"
              + id.transactionId
              + "' is neither an xid in decimal nor '"
              + Snapshots.TRANSACTION_ID
              + "'");
    }
    String lsnField = lsnPrefix + "commit_lsn";
    if (required(id.commitLsn, lsnField, id, v)) {
      if (!Lsn.isCanonical(id.commitLsn)) {
        v.report(
            COMMIT_LSN_NOT_CANONICAL,
            lsnField,
            id.txKey(),
            "'" + id.commitLsn + "' is not canonical X/X");
      }
      Lsn commit = Lsn.parseOrNull(id.commitLsn);
      if (commit != null && commit.isZero()) {
        v.report(COMMIT_LSN_ZERO, lsnField, id.txKey(), "commit_lsn is 0/0");
      }
    }
    if (timestampMs <= 0) {
      v.report(
          COMMIT_TIMESTAMP_NOT_POSITIVE,
          lsnPrefix + "commit_timestamp_ms",
          id.txKey(),
          "commit timestamp is " + timestampMs);
    }
  }

  /** Reports a blank required field; true when it is not blank. */
  private static boolean required(String value, String field, Identity id, Violations v) {
    if (value.isBlank()) {
      v.report(REQUIRED_FIELD_BLANK, field, id.txKey(), field + " is blank");
      return false;
    }
    return true;
  }

  private static void beginLsn(String begin, String commit, Identity id, Violations v) {
    if (begin.isEmpty()) {
      return;
    }
    Lsn b = Lsn.parseOrNull(begin);
    if (b == null) {
      v.report(
          BEGIN_LSN_INVALID,
          "begin_lsn",
          id.txKey(),
          "'" + begin + "' is not an LSN (X/X, hex halves of" + " 1 to 8 digits)");
      return;
    }
    Lsn c = Lsn.parseOrNull(commit);
    if (c != null && b.compareTo(c) > 0) {
      v.report(BEGIN_LSN_AFTER_COMMIT, "begin_lsn", id.txKey(), begin + " > commit_lsn " + commit);
    }
  }

  private static void boundaryMode(ManifestBoundaryMode mode, Identity id, Violations v) {
    if (mode == ManifestBoundaryMode.MANIFEST_BOUNDARY_MODE_UNSPECIFIED
        || mode == ManifestBoundaryMode.UNRECOGNIZED) {
      v.report(BOUNDARY_MODE_UNSPECIFIED, "boundary_mode", id.txKey(), "boundary_mode is " + mode);
    }
  }
}
