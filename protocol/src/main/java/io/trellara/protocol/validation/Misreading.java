package io.trellara.protocol.validation;

/**
 * Deliberate misreadings of docs/protocol.md, each a switch in the reference validator, for the
 * conformance kit's mutation check only: with one switched on, the validator reads the document the
 * other way at exactly one point, and the kit must then fail it on at least one vector ({@code
 * MisreadingsTest}). Never switched on outside that test: every switch is off unless a test calls
 * {@link #only}, and a check costs one static load where it sits.
 */
public enum Misreading {
  // bytes
  PROTOCOL_VERSION_AS_UINT32("field 1 read as a uint32, so 2^32+1 reads as 1"),
  PROTOCOL_VERSION_LAST_WINS("field 1 twice: the last one counts, as for any scalar"),
  NON_MINIMAL_VERSION_REFUSED("a non-minimal varint in field 1 refused"),
  KNOWN_FIELD_WRONG_WIRE_TYPE_MALFORMED(
      "a known top-level field of another wire type refused, not read as unknown"),
  GROUP_FIELD_MALFORMED("a top-level start-group field with its end group refused"),
  VARINT_BITS_BEYOND_64_MALFORMED(
      "a top-level varint whose tenth byte carries bits beyond 64 refused"),
  VARINT_ABOVE_32_BITS_MALFORMED("a top-level uint32 or enum varint above 2^32-1 refused"),
  TEXT_UTF8_IN_STEP_2("ColumnValue.text's UTF-8 judged among the column's rules, not before them"),
  // identity
  IDENTITY_FIELD_BY_FIELD("the identity rules judged field by field rather than rule by rule"),
  COMMIT_LSN_ZERO_ONLY_WHEN_CANONICAL("COMMIT_LSN_ZERO judged only on a canonical commit_lsn"),
  EVENTS_COMPARED_WITH_BROKEN_IDENTITY(
      "each event compared with a blank or malformed transaction_id, source_id or commit_lsn"),
  BLANK_AS_TRIM("blank read as String.trim() leaving nothing (U+0000-U+0020 only)"),
  BLANK_INCLUDES_NO_BREAK_SPACE("blank includes the no-break spaces (Character.isSpaceChar)"),
  UNSPECIFIED_MODE_AS_STRICT("boundary_mode 0 read as strict chunked for the mode's own rules"),
  // events
  SCHEMA_RULES_RULE_BY_RULE("the schema version rules judged rule by rule across versions"),
  SCHEMA_VERSION_WITHOUT_RELATION_REFUSED("a schema version without a relation refused"),
  IDENTICAL_SCHEMA_VERSIONS_ARE_ONE("two identical schema versions of a relation count as one"),
  TRUNCATE_COMPARED_WITH_MISSING_RELATION(
      "a truncate's first relation compared with a missing relation"),
  UNUSED_IMAGE_NOT_JUDGED("an image the operation does not use (an insert's before) not judged"),
  UNUSED_IMAGE_REFUSED("an image the operation does not use (an insert's before) refused"),
  REPLICA_IDENTITY_NOTHING_NEVER_IDENTIFIES(
      "an update or delete under REPLICA IDENTITY NOTHING refused whatever its key columns"),
  REPLICA_IDENTITY_FULL_SKIPS_KEYS("under REPLICA IDENTITY FULL the key columns not judged"),
  GAP_JUDGED_WITH_BROKEN_ORDERS("TOTAL_ORDER_GAP judged when total orders are zero or repeat"),
  // manifest
  MANIFEST_ENTRIES_RULE_BY_RULE("the manifest entry rules judged rule by rule across entries"),
  MANIFEST_COUNTS_AGAINST_ZERO_GLOBAL("the count rules judged against a global_event_count of 0"),
  MANIFEST_SUM_WITHOUT_ENTRIES("the entries' sum judged for a manifest without entries"),
  // barrier
  BARRIER_PAIRED_BY_IDENTITY("a manifest paired only with a marker of the same identity"),
  BARRIER_JUDGED_WITHOUT_MARKER("the barrier judged on a manifest before its marker arrives"),
  LATER_MANIFEST_IGNORED("a second, different manifest of the stream ignored"),
  CHUNK_WITH_WRONG_CHECKSUM_NOT_COUNTED(
      "a listed chunk whose checksum is not its entry's does not count for it"),
  MISSING_CHUNK_IN_EMPTY_BARRIER("a barrier without chunks also misses every listed chunk");

  private static long active;

  private final String reading;

  Misreading(String reading) {
    this.reading = reading;
  }

  /** How the switch reads the document. */
  public String reading() {
    return reading;
  }

  /** Whether {@code m} is switched on. */
  public static boolean on(Misreading m) {
    return (active & (1L << m.ordinal())) != 0;
  }

  /** Whether any switch is on (a cache of what passed is then neither read nor written). */
  public static boolean any() {
    return active != 0;
  }

  /** Switches on {@code m} alone (null: none). Tests only. */
  public static void only(Misreading m) {
    active = m == null ? 0 : 1L << m.ordinal();
  }
}
