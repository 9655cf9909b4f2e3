package io.trellara.protocol;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.SchemaVersion;
import java.util.List;

/**
 * Which schema version a change's row images follow. Row images are positional (column i of an
 * image is column i of the schema version), so every reader of a row image resolves it the same
 * way, here: among the {@code schema_versions} of the envelope or chunk that carries the change,
 * the version of the change's relation whose fingerprint the change names in {@code
 * schema_fingerprint}, or, when it names none, the relation's only version in the message. A
 * message that carries several versions of one relation must name one on each of its changes;
 * otherwise the change has no schema version (null), which a validator reports as {@code
 * SCHEMA_VERSION_MISSING}.
 */
public final class SchemaVersions {
  private SchemaVersions() {}

  /**
   * The schema version {@code c}'s row images follow, or null when there is none or it is
   * ambiguous.
   */
  public static SchemaVersion of(ChangeRecord c, List<SchemaVersion> schemas) {
    return of(c.getRelation(), c.getSchemaFingerprint(), schemas);
  }

  /**
   * The version of {@code relation} among {@code schemas} with {@code fingerprint}, or (empty
   * fingerprint) the relation's only version; null when there is none or, with an empty
   * fingerprint, several.
   */
  public static SchemaVersion of(
      RelationId relation, String fingerprint, List<SchemaVersion> schemas) {
    SchemaVersion found = null;
    for (int i = 0; i < schemas.size(); i++) {
      SchemaVersion s = schemas.get(i);
      if (!describes(s, relation)) {
        continue;
      }
      if (!fingerprint.isEmpty()) {
        if (fingerprint.equals(s.getFingerprint())) {
          return s;
        }
      } else if (found != null) {
        return null; // several versions and the change names none
      } else {
        found = s;
      }
    }
    return found;
  }

  /** Whether {@code s} describes {@code relation} (schema and table; the OID is a hint only). */
  public static boolean describes(SchemaVersion s, RelationId relation) {
    RelationId r = s.getRelation();
    return r.getTable().equals(relation.getTable()) && r.getSchema().equals(relation.getSchema());
  }

  /** How many versions of {@code relation} {@code schemas} carry (for error messages). */
  public static int count(RelationId relation, List<SchemaVersion> schemas) {
    int n = 0;
    for (SchemaVersion s : schemas) {
      if (describes(s, relation)) {
        n++;
      }
    }
    return n;
  }

  /** The positions of the key columns (ColumnDefinition.key) in column order. */
  public static int[] keyPositions(SchemaVersion s) {
    int n = 0;
    for (int i = 0; i < s.getColumnsCount(); i++) {
      if (s.getColumns(i).getKey()) {
        n++;
      }
    }
    int[] keys = new int[n];
    for (int i = 0, k = 0; i < s.getColumnsCount(); i++) {
      if (s.getColumns(i).getKey()) {
        keys[k++] = i;
      }
    }
    return keys;
  }

  /**
   * Why {@code c} has no schema version among {@code schemas}, for the SCHEMA_VERSION_MISSING
   * message.
   */
  public static String whyMissing(ChangeRecord c, List<SchemaVersion> schemas) {
    String name = c.getRelation().getSchema() + "." + c.getRelation().getTable();
    int versions = count(c.getRelation(), schemas);
    if (versions == 0) {
      return "no schema_versions entry for " + name;
    }
    if (c.getSchemaFingerprint().isEmpty()) {
      return "the message carries "
          + versions
          + " schema versions of "
          + name
          + " and the change names none in schema_fingerprint";
    }
    return "no schema version of " + name + " has fingerprint '" + c.getSchemaFingerprint() + "'";
  }
}
