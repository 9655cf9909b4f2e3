package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.*;

import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TruncateSpec;
import io.trellara.protocol.validation.EventRules.Field;
import io.trellara.protocol.validation.ProtocolValidator.Identity;
import java.util.List;

/**
 * The rules of one change on its own, from its relation to its key: what it changes, how, and the
 * row images against the schema version they follow. Allocation-free on the success path.
 */
final class ChangeRules {
  private ChangeRules() {}

  static void check(Identity id, ChangeRecord c, Field f, Versions versions, Violations v) {
    long order = c.getTotalOrder();
    boolean relation =
        c.hasRelation()
            && !c.getRelation().getSchema().isEmpty()
            && !c.getRelation().getTable().isEmpty();
    if (!relation) {
      v.report(
          RELATION_MISSING,
          f.at(".relation"),
          id.eventKey(order),
          "relation schema or table is empty");
    }
    Operation op = c.getOperation();
    boolean known = op != Operation.OPERATION_UNSPECIFIED && op != Operation.UNRECOGNIZED;
    if (!known) {
      v.report(
          OPERATION_UNSPECIFIED,
          f.at(".operation"),
          id.eventKey(order),
          "operation is " + c.getOperationValue());
    }
    ReplicaIdentity ri = c.getReplicaIdentity();
    if (ri == ReplicaIdentity.REPLICA_IDENTITY_UNSPECIFIED || ri == ReplicaIdentity.UNRECOGNIZED) {
      v.report(
          REPLICA_IDENTITY_UNSPECIFIED,
          f.at(".replica_identity"),
          id.eventKey(order),
          "replica_identity is " + c.getReplicaIdentityValue());
    }
    if (known) {
      truncate(id, c, f, relation, v);
    }
    boolean unusedBefore = op == Operation.OPERATION_INSERT && c.hasBefore();
    boolean unusedAfter = op == Operation.OPERATION_DELETE && c.hasAfter();
    if ((unusedBefore || unusedAfter) && Misreading.any()) {
      if (Misreading.on(Misreading.UNUSED_IMAGE_REFUSED)) {
        v.report(ROW_IMAGE_MISSING, f.at(unusedBefore ? ".before" : ".after"), "", "misread");
      }
      if (Misreading.on(Misreading.UNUSED_IMAGE_NOT_JUDGED)) {
        c = unusedBefore ? c.toBuilder().clearBefore().build() : c.toBuilder().clearAfter().build();
      }
    }
    if (c.hasBefore()) {
      states(id, c.getBefore(), f, ".before", order, v);
    }
    if (c.hasAfter()) {
      states(id, c.getAfter(), f, ".after", order, v);
    }
    if (!known || op == Operation.OPERATION_TRUNCATE) {
      return;
    }
    boolean delete = op == Operation.OPERATION_DELETE;
    if (!(delete ? c.hasBefore() : c.hasAfter())) {
      String field = f.at(delete ? ".before" : ".after");
      v.report(ROW_IMAGE_MISSING, field, id.eventKey(order), field + " is absent");
    }
    if (!relation) {
      return;
    }
    if (!versions.resolve(c)) {
      v.report(
          SCHEMA_VERSION_MISSING,
          f.at(".relation"),
          id.eventKey(order),
          SchemaVersions.whyMissing(c, versions.schemas));
      return;
    }
    boolean before =
        c.hasBefore() && columnCount(id, c.getBefore(), f, ".before", order, versions, v);
    boolean after = c.hasAfter() && columnCount(id, c.getAfter(), f, ".after", order, versions, v);
    // the identifying image: a delete's old row; an update's old key or row when sent, else its
    // new row
    if (delete && c.hasBefore() && before) {
      identifyingKey(id, c.getBefore(), f, ".before", order, versions, ri, v);
    } else if (op == Operation.OPERATION_UPDATE
        && (c.hasBefore() ? before : c.hasAfter() && after)) {
      identifyingKey(
          id,
          c.hasBefore() ? c.getBefore() : c.getAfter(),
          f,
          c.hasBefore() ? ".before" : ".after",
          order,
          versions,
          ri,
          v);
    }
  }

  /**
   * A truncate names every relation of the statement, its own first; no other operation carries a
   * spec. The first relation is compared with the change's only when the change names one.
   */
  private static void truncate(
      Identity id, ChangeRecord c, Field f, boolean relation, Violations v) {
    long order = c.getTotalOrder();
    if (c.getOperation() != Operation.OPERATION_TRUNCATE) {
      if (c.hasTruncate()) {
        v.report(
            TRUNCATE_SPEC_INVALID,
            f.at(".truncate"),
            id.eventKey(order),
            "a " + c.getOperation() + " carries a truncate spec");
      }
      return;
    }
    TruncateSpec t = c.getTruncate();
    if (t.getRelationsCount() == 0) {
      v.report(
          TRUNCATE_SPEC_INVALID,
          f.at(".truncate.relations"),
          id.eventKey(order),
          "the truncate names no relation");
      return;
    }
    if ((relation || Misreading.on(Misreading.TRUNCATE_COMPARED_WITH_MISSING_RELATION))
        && !sameRelation(t.getRelations(0), c.getRelation())) {
      v.report(
          TRUNCATE_SPEC_INVALID,
          f.at(".truncate.relations[0]"),
          id.eventKey(order),
          "the truncate's first relation is not the change's relation");
    }
    for (int i = 0; i < t.getRelationsCount(); i++) {
      RelationId r = t.getRelations(i);
      if (r.getSchema().isEmpty() || r.getTable().isEmpty()) {
        v.report(
            TRUNCATE_SPEC_INVALID,
            f.at(".truncate.relations[" + i + "]"),
            id.eventKey(order),
            "relation schema or table is empty");
      }
    }
  }

  private static boolean sameRelation(RelationId a, RelationId b) {
    return a.getSchema().equals(b.getSchema()) && a.getTable().equals(b.getTable());
  }

  /** Every column of a row image states NULL, unchanged-TOAST or a value. */
  private static void states(
      Identity id, RowImage image, Field f, String imageName, long order, Violations v) {
    for (int i = 0; i < image.getColumnsCount(); i++) {
      ColumnValue column = image.getColumns(i);
      ColumnState state = column.getState();
      if (state == ColumnState.COLUMN_STATE_UNSPECIFIED || state == ColumnState.UNRECOGNIZED) {
        v.report(
            COLUMN_STATE_UNSPECIFIED,
            f.at(imageName + ".columns[" + i + "].state"),
            id.eventKey(order),
            "column " + i + " has state " + column.getStateValue());
      }
      if (Misreading.on(Misreading.TEXT_UTF8_IN_STEP_2) && !column.getTextBytes().isValidUtf8()) {
        v.report(MALFORMED_BYTES, f.at(imageName + ".columns[" + i + "].text"), "", "misread");
      }
    }
  }

  /**
   * A row image is positional: one column per column of its schema version. True when it has as
   * many.
   */
  private static boolean columnCount(
      Identity id,
      RowImage image,
      Field f,
      String imageName,
      long order,
      Versions versions,
      Violations v) {
    if (image.getColumnsCount() != versions.columnCount) {
      v.report(
          ROW_IMAGE_COLUMN_COUNT_MISMATCH,
          f.at(imageName + ".columns"),
          id.eventKey(order),
          "the image carries "
              + image.getColumnsCount()
              + " columns, its schema version "
              + versions.columnCount);
      return false;
    }
    return true;
  }

  /**
   * Update and delete must identify the row: every key column of the schema version
   * (ColumnDefinition.key) has a value in the identifying image, whatever replica_identity says; a
   * relation without key columns is identified only by a full old row under REPLICA IDENTITY FULL.
   */
  private static void identifyingKey(
      Identity id,
      RowImage image,
      Field f,
      String imageName,
      long order,
      Versions versions,
      ReplicaIdentity ri,
      Violations v) {
    int[] keys = versions.keyPositions;
    if (Misreading.any() && misreadKey(image, f, imageName, ri, v)) {
      return;
    }
    if (keys.length == 0) {
      if (ri != ReplicaIdentity.REPLICA_IDENTITY_FULL || image.getColumnsCount() == 0) {
        v.report(
            MISSING_KEY_COLUMN,
            f.at(imageName),
            id.eventKey(order),
            "the relation has no key columns and the change carries no full old row");
      }
      return;
    }
    for (int k : keys) {
      ColumnState state = image.getColumns(k).getState();
      if (state != ColumnState.COLUMN_STATE_VALUE) {
        v.report(
            MISSING_KEY_COLUMN,
            f.at(imageName + ".columns[" + k + "]"),
            id.eventKey(order),
            "key column '" + versions.version.getColumns(k).getName() + "' is " + state);
      }
    }
  }

  /** The replica identity misreadings; true when one decided. */
  private static boolean misreadKey(
      RowImage image, Field f, String imageName, ReplicaIdentity ri, Violations v) {
    if (Misreading.on(Misreading.REPLICA_IDENTITY_NOTHING_NEVER_IDENTIFIES)
        && ri == ReplicaIdentity.REPLICA_IDENTITY_NOTHING) {
      v.report(MISSING_KEY_COLUMN, f.at(imageName), "", "misread");
      return true;
    }
    return Misreading.on(Misreading.REPLICA_IDENTITY_FULL_SKIPS_KEYS)
        && ri == ReplicaIdentity.REPLICA_IDENTITY_FULL
        && image.getColumnsCount() > 0;
  }

  /**
   * The schema version each change follows ({@link SchemaVersions#of}), with its column count and
   * key positions; remembers the last one (changes of one relation cluster).
   */
  static final class Versions {
    final List<SchemaVersion> schemas;
    SchemaVersion version;

    /**
     * {@code version} is its relation's only one in the message (a change naming no fingerprint
     * follows it).
     */
    boolean onlyVersion;

    int columnCount;
    int[] keyPositions;

    Versions(List<SchemaVersion> schemas) {
      this.schemas = schemas;
    }

    /** Points at {@code c}'s schema version; false when it has none. */
    boolean resolve(ChangeRecord c) {
      if (version != null
          && SchemaVersions.describes(version, c.getRelation())
          && (c.getSchemaFingerprint().isEmpty()
              ? onlyVersion
              : c.getSchemaFingerprint().equals(version.getFingerprint()))) {
        return true;
      }
      SchemaVersion s = SchemaVersions.of(c, schemas);
      if (s == null && Misreading.on(Misreading.IDENTICAL_SCHEMA_VERSIONS_ARE_ONE)) {
        s = sameFingerprint(c);
      }
      if (s == null) {
        return false;
      }
      if (s != version) {
        version = s;
        onlyVersion = SchemaVersions.count(c.getRelation(), schemas) == 1;
        columnCount = s.getColumnsCount();
        keyPositions = SchemaVersions.keyPositions(s);
      }
      return true;
    }

    /** The misreading: several versions of the relation, all with one fingerprint, are one. */
    private SchemaVersion sameFingerprint(ChangeRecord c) {
      SchemaVersion first = null;
      for (SchemaVersion s : schemas) {
        if (SchemaVersions.describes(s, c.getRelation())) {
          if (first != null && !first.getFingerprint().equals(s.getFingerprint())) {
            return null;
          }
          first = first == null ? s : first;
        }
      }
      return c.getSchemaFingerprint().isEmpty() ? first : null;
    }
  }
}
