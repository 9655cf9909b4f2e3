package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.*;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.ProtocolVersion;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;

/**
 * Validates each message on its own against the wire contract, in docs/protocol.md's order: the
 * texts' UTF-8 (the last byte rule), the identity rules, then the rules of the kind (the events of
 * an envelope or chunk in {@link EventRules}, a manifest's in {@link ManifestRules}); cross-message
 * barrier rules live in {@link BarrierVerifier}. Each method reports to a {@link Violations}: the
 * one-argument forms fail fast with a {@link ProtocolViolationException}. A check that needs a
 * value another rule found broken (an LSN that does not parse, a range that is reversed) is not
 * made, so a message breaks only the rules whose conditions docs/protocol.md states.
 */
public final class ProtocolValidator {
  /** The message's transaction_id passed its rules: events are compared with it. */
  static final int TRANSACTION_ID_SOUND = 1;

  /**
   * source_id, commit_lsn and transaction_id passed their rules: idempotency keys are compared with
   * them.
   */
  static final int KEY_SOUND = 2;

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
    if (!EventRules.textsAreUtf8(id, e.getChangesList(), v)) {
      return;
    }
    int sound = identity(e.getProtocolVersion(), id, e.getCommitTimestampMs(), "", v);
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
    EventRules.check(
        id,
        sound,
        e.getChangesList(),
        e.getDdlEventsList(),
        e.getSchemaVersionsList(),
        true,
        true,
        v);
  }

  public static void validateChunk(PartitionChunk c, Violations v) {
    Identity id =
        new Identity(
            c.getSourceId(),
            c.getDatabaseId(),
            c.getDatasetId(),
            c.getTransactionId(),
            c.getCommitLsn());
    if (!EventRules.textsAreUtf8(id, c.getChangesList(), v)) {
      return;
    }
    int sound = identity(c.getProtocolVersion(), id, c.getCommitTimestampMs(), "", v);
    beginLsn(c.getBeginLsn(), c.getCommitLsn(), id, v);
    boundaryMode(c.getBoundaryMode(), id, v);
    boolean strict = isStrict(c.getBoundaryMode());
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
    EventRules.check(
        id,
        sound,
        c.getChangesList(),
        c.getDdlEventsList(),
        c.getSchemaVersionsList(),
        strict,
        false,
        v);
    if (c.getChangesCount() + c.getDdlEventsCount() == 0) {
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
    ManifestRules.check(m, id, v);
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

  /**
   * Strict chunked order, where a chunk's sequence and its changes' partition_order are 0; an
   * unspecified mode is neither mode, so neither mode's rules are judged.
   */
  static boolean isStrict(ManifestBoundaryMode mode) {
    return mode == ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER
        || (Misreading.on(Misreading.UNSPECIFIED_MODE_AS_STRICT)
            && (mode == ManifestBoundaryMode.MANIFEST_BOUNDARY_MODE_UNSPECIFIED
                || mode == ManifestBoundaryMode.UNRECOGNIZED));
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
      return EventKey.transaction(sourceId, commitLsn, transactionId);
    }

    String eventKey(long totalOrder) {
      return EventKey.of(sourceId, commitLsn, transactionId, totalOrder);
    }
  }

  /**
   * The identity rules, rule by rule in the table's order (a rule of several fields in field
   * order); returns which fields passed ({@link #TRANSACTION_ID_SOUND}, {@link #KEY_SOUND}).
   */
  private static int identity(
      int version, Identity id, long timestampMs, String lsnPrefix, Violations v) {
    if (Misreading.on(Misreading.IDENTITY_FIELD_BY_FIELD)) {
      return IdentityFieldByField.identity(version, id, timestampMs, lsnPrefix, v);
    }
    if (version != ProtocolVersion.CURRENT) {
      v.report(
          UNKNOWN_PROTOCOL_VERSION,
          "protocol_version",
          id.txKey(),
          "protocol_version is " + Integer.toUnsignedString(version));
    }
    String lsnField = lsnPrefix + "commit_lsn";
    boolean source = required(id.sourceId, "source_id", id, v);
    required(id.databaseId, "database_id", id, v);
    required(id.datasetId, "dataset_id", id, v);
    boolean tx = required(id.transactionId, "transaction_id", id, v);
    boolean lsn = required(id.commitLsn, lsnField, id, v);
    if (tx && !transactionIdForm(id.transactionId)) {
      tx = false;
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
    if (lsn && !Lsn.isCanonical(id.commitLsn)) {
      lsn = false;
      v.report(
          COMMIT_LSN_NOT_CANONICAL,
          lsnField,
          id.txKey(),
          "'" + id.commitLsn + "' is not canonical X/X");
    }
    commitLsnZero(id, lsnField, !lsn, v);
    timestamp(timestampMs, lsnPrefix, id, v);
    return (tx ? TRANSACTION_ID_SOUND : 0) | (tx && lsn && source ? KEY_SOUND : 0);
  }

  static boolean transactionIdForm(String transactionId) {
    return EventKey.isUnsignedDecimal(transactionId) || Snapshots.isSnapshot(transactionId);
  }

  /** COMMIT_LSN_ZERO: judged on any commit_lsn that parses, canonical or not ({@code 00/0}). */
  static void commitLsnZero(Identity id, String lsnField, boolean notCanonical, Violations v) {
    if (notCanonical && Misreading.on(Misreading.COMMIT_LSN_ZERO_ONLY_WHEN_CANONICAL)) {
      return;
    }
    Lsn commit = Lsn.parseOrNull(id.commitLsn);
    if (commit != null && commit.isZero()) {
      v.report(COMMIT_LSN_ZERO, lsnField, id.txKey(), "commit_lsn is 0/0");
    }
  }

  static void timestamp(long timestampMs, String lsnPrefix, Identity id, Violations v) {
    if (timestampMs <= 0) {
      v.report(
          COMMIT_TIMESTAMP_NOT_POSITIVE,
          lsnPrefix + "commit_timestamp_ms",
          id.txKey(),
          "commit timestamp is " + timestampMs);
    }
  }

  /** Reports a blank required field; true when it is not blank. */
  static boolean required(String value, String field, Identity id, Violations v) {
    if (Blank.isBlank(value)) {
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
