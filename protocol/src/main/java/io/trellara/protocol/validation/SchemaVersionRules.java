package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.COLUMN_NAME_BLANK;
import static io.trellara.protocol.validation.ProtocolRule.COLUMN_NAME_DUPLICATE;
import static io.trellara.protocol.validation.ProtocolRule.RELATION_MISSING;
import static io.trellara.protocol.validation.ProtocolRule.SCHEMA_FINGERPRINT_MISMATCH;

import io.trellara.protocol.SchemaFingerprint;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.validation.ProtocolValidator.Identity;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rules of the schema versions an envelope or chunk carries, judged version by version in list
 * order: its fingerprint, then each of its columns' names. A consumer maps row positions to columns
 * by a schema version, so one whose fingerprint lies about it, or whose column names are empty or
 * repeated, is refused. A version no change follows, or one without a relation (which no change can
 * name), is judged the same and otherwise unused.
 */
final class SchemaVersionRules {
  /**
   * Schema versions that passed, by fingerprint. Every envelope and chunk repeats the versions its
   * changes use, and recomputing a fingerprint (a canonical description, hashed) costs far more
   * than comparing a version with one that passed: the same instance on the source, an equal one
   * decoded again on the sink. Bounded: a full map starts afresh.
   */
  private static final Map<String, SchemaVersion> VALID_SCHEMAS = new ConcurrentHashMap<>();

  private static final int VALID_SCHEMAS_MAX = 1024;

  private SchemaVersionRules() {}

  static void check(Identity id, List<SchemaVersion> schemas, Violations v) {
    if (Misreading.on(Misreading.SCHEMA_RULES_RULE_BY_RULE)) {
      for (int i = 0; i < schemas.size(); i++) {
        fingerprint(id, schemas.get(i), i, v);
      }
      for (int i = 0; i < schemas.size(); i++) {
        columnNames(id, schemas.get(i), i, v);
      }
      return;
    }
    for (int i = 0; i < schemas.size(); i++) {
      SchemaVersion s = schemas.get(i);
      SchemaVersion known = Misreading.any() ? null : VALID_SCHEMAS.get(s.getFingerprint());
      if (known == s || (known != null && known.equals(s))) {
        continue; // the same relation, columns and fingerprint passed before
      }
      if (Misreading.on(Misreading.SCHEMA_VERSION_WITHOUT_RELATION_REFUSED)
          && (s.getRelation().getSchema().isEmpty() || s.getRelation().getTable().isEmpty())) {
        v.report(RELATION_MISSING, "schema_versions[" + i + "].relation", id.txKey(), "misread");
      }
      boolean valid = fingerprint(id, s, i, v);
      valid &= columnNames(id, s, i, v);
      if (valid && withoutUnknownFields(s) && !Misreading.any()) {
        if (VALID_SCHEMAS.size() >= VALID_SCHEMAS_MAX) {
          VALID_SCHEMAS.clear();
        }
        VALID_SCHEMAS.put(s.getFingerprint(), s);
      }
    }
  }

  private static boolean fingerprint(Identity id, SchemaVersion s, int i, Violations v) {
    String expected = SchemaFingerprint.of(s);
    if (expected.equals(s.getFingerprint())) {
      return true;
    }
    v.report(
        SCHEMA_FINGERPRINT_MISMATCH,
        "schema_versions[" + i + "].fingerprint",
        id.txKey(),
        "schema version of "
            + s.getRelation().getSchema()
            + "."
            + s.getRelation().getTable()
            + " carries fingerprint '"
            + s.getFingerprint()
            + "', its columns give "
            + expected);
    return false;
  }

  private static boolean columnNames(Identity id, SchemaVersion s, int i, Violations v) {
    boolean valid = true;
    Set<String> names = new HashSet<>(s.getColumnsCount() * 2);
    for (int j = 0; j < s.getColumnsCount(); j++) {
      String name = s.getColumns(j).getName();
      if (name.isEmpty()) {
        valid = false;
        v.report(
            COLUMN_NAME_BLANK,
            "schema_versions[" + i + "].columns[" + j + "].name",
            id.txKey(),
            "column " + j + " of " + s.getRelation().getTable() + " has no name");
      } else if (!names.add(name)) {
        valid = false;
        v.report(
            COLUMN_NAME_DUPLICATE,
            "schema_versions[" + i + "].columns[" + j + "].name",
            id.txKey(),
            "column '" + name + "' of " + s.getRelation().getTable() + " is listed twice");
      }
    }
    return valid;
  }

  /**
   * Only a version without unknown fields is remembered: the codec parses with aliasing, so an
   * unknown field of a decoded message is a view of the whole record it came in, and remembering it
   * would keep that record in memory.
   */
  private static boolean withoutUnknownFields(SchemaVersion s) {
    if (!s.getUnknownFields().asMap().isEmpty()
        || !s.getRelation().getUnknownFields().asMap().isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.getColumnsCount(); i++) {
      if (!s.getColumns(i).getUnknownFields().asMap().isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /** The schema version remembered as passed under {@code fingerprint}, or null (tests). */
  static SchemaVersion remembered(String fingerprint) {
    return VALID_SCHEMAS.get(fingerprint);
  }
}
