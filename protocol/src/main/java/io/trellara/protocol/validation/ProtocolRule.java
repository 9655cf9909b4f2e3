package io.trellara.protocol.validation;

/**
 * Every rule of the wire contract, each with the sentence an operator reads when it trips. The enum
 * name is the stable rule identifier used in errors, logs and the conformance vectors.
 */
public enum ProtocolRule {
  // bytes
  MALFORMED_BYTES("the bytes are not a well-formed protobuf message of the expected kind"),
  UNKNOWN_PROTOCOL_VERSION(
      "protocol_version must equal 1; bytes of another version are never interpreted"),
  CHECKSUM_MISMATCH(
      "the checksum field does not equal xxh3_64 of the received bytes with the checksum field cut"
          + " out"),

  // identity
  REQUIRED_FIELD_BLANK("a required identity field is missing or blank"),
  TRANSACTION_ID_NOT_DECIMAL(
      "transaction_id is the source's top-level xid in unsigned decimal, without sign or"
          + " leading zero, or 'snapshot' for the source's initial snapshot"),
  TRANSACTION_ID_MISMATCH(
      "every change, DDL event, chunk, manifest and marker must repeat the transaction_id"),
  BEGIN_LSN_INVALID("begin_lsn, when present, must parse as an LSN"),
  BEGIN_LSN_AFTER_COMMIT("begin_lsn must not be greater than commit_lsn"),
  COMMIT_LSN_NOT_CANONICAL("commit_lsn must be PostgreSQL's canonical X/X form"),
  COMMIT_LSN_ZERO("commit_lsn must not be 0/0"),
  COMMIT_TIMESTAMP_NOT_POSITIVE("commit_timestamp_ms must be greater than zero"),

  // events
  TOTAL_ORDER_ZERO("total_order is 1-based and never 0"),
  TOTAL_ORDER_NOT_ASCENDING("changes and ddl_events are each listed in ascending total_order"),
  DUPLICATE_TOTAL_ORDER("total_order is unique across changes and DDL events of a transaction"),
  TOTAL_ORDER_GAP("an envelope's events must number exactly 1..N with no gap"),
  TABLE_ORDER_ZERO("table_order is 1-based and never 0"),
  PARTITION_ORDER_IN_STRICT_MODE(
      "partition_order is 0 in strict transaction order and strict chunked transaction" + " order"),
  IDEMPOTENCY_KEY_BLANK("every change carries a non-blank idempotency_key"),
  IDEMPOTENCY_KEY_MISMATCH(
      "idempotency_key must equal {source_id}:{commit_lsn}:{transaction_id}:{total_order}"),
  RELATION_MISSING("every change names its relation (schema and table)"),
  OPERATION_UNSPECIFIED("operation must be insert, update, delete or truncate"),
  REPLICA_IDENTITY_UNSPECIFIED("replica_identity must be default, index, full or nothing"),
  TRUNCATE_SPEC_INVALID(
      "a truncate carries a TruncateSpec naming every relation of the statement, its own relation"
          + " first; no other operation carries one"),
  ROW_IMAGE_MISSING("insert and update carry an after image; delete carries a before image"),
  COLUMN_STATE_UNSPECIFIED("every column of a row image states NULL, unchanged-TOAST or a value"),
  ROW_IMAGE_COLUMN_COUNT_MISMATCH(
      "a row image carries exactly one column per column of its schema version, in"
          + " the schema version's order"),
  COLUMN_NAME_BLANK("every column of a schema version says its name"),
  COLUMN_NAME_DUPLICATE("a schema version names each column once"),
  SCHEMA_VERSION_MISSING(
      "every change's relation has a schema_versions entry its row images follow: the only one,"
          + " or the one its schema_fingerprint names"),
  SCHEMA_FINGERPRINT_MISMATCH(
      "a schema version's fingerprint must equal xxh3_64 of its canonical description"),
  MISSING_KEY_COLUMN(
      "an update or delete must carry every key column of its schema version with a value; there is"
          + " no best-effort path"),
  DDL_COMMAND_TAG_BLANK("a DDL event names its command tag"),

  // boundaries
  MANIFEST_ON_PLAIN_STRICT("a plain strict transaction carries no manifest"),
  BOUNDARY_MODE_UNSPECIFIED(
      "boundary_mode must be strict_chunked_transaction_order or partitioned_scale_mode"),
  CHUNK_SEQUENCE_IN_STRICT_CHUNKED(
      "in strict chunked transaction order every chunk and manifest entry has"
          + " chunk_sequence 0"),
  PARTITION_COUNT_MISMATCH(
      "partition_count is 0 in strict chunked transaction order; in partitioned scale mode it"
          + " is positive and above every manifest entry's id"),
  MANIFEST_PARTITIONS_EMPTY("a manifest lists at least one chunk"),
  MANIFEST_ZERO_TOTAL_ORDER(
      "a manifest entry's first_total_order and last_total_order must be non-zero"),
  MANIFEST_REVERSED_RANGE(
      "a manifest entry's first_total_order must not exceed its last_total_order"),
  MANIFEST_ZERO_EVENT_COUNT("a manifest entry's event_count must be non-zero"),
  MANIFEST_EVENT_COUNT_EXCEEDS_RANGE(
      "a manifest entry's event_count must not exceed its total_order range span"),
  MANIFEST_RANGE_ABOVE_GLOBAL_COUNT(
      "a manifest entry's last_total_order must not exceed global_event_count"),
  MANIFEST_COUNTS_DO_NOT_ADD_UP(
      "the entries' event_count values must add up to global_event_count"),
  MANIFEST_DUPLICATE_CHUNK("a manifest lists a chunk (partition id, chunk sequence) once"),
  MARKER_IDENTITY_MISMATCH(
      "the commit marker repeats the manifest's identity, LSN, timestamp and counts"),
  MARKER_MANIFEST_CHECKSUM_MISMATCH(
      "the commit marker's manifest_checksum must equal the manifest's checksum"),
  EMPTY_BARRIER(
      "a transaction without events is never published: an envelope or chunk carries at least one event,"
          + " a manifest and a commit marker declare at least one, a barrier holds at least one chunk"),
  MISSING_CHUNK("every manifest-listed chunk must be present before the transaction is applied"),
  UNLISTED_CHUNK("a chunk the manifest does not list cannot belong to the transaction"),
  CHUNK_CHECKSUM_MISMATCH("a chunk's checksum must equal the checksum its manifest entry lists"),
  CHUNK_IDENTITY_MISMATCH("a chunk repeats its manifest's source, dataset, LSN and boundary mode"),
  EVENT_COUNT_MISMATCH(
      "the events held must match the manifest entry, global_event_count and ddl_event_count"),
  CHUNK_RANGE_MISMATCH("a chunk's events must lie within its manifest entry's total_order range");

  private final String description;

  ProtocolRule(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }
}
