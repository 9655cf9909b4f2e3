package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.*;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.SchemaFingerprint;
import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TruncateSpec;
import io.trellara.protocol.validation.ProtocolValidator.Identity;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rules of the events an envelope or a chunk carries: its schema versions, each change and each
 * DDL event, and their total_order. Allocation-free per change on the success path; each schema
 * version is checked once.
 */
final class EventRules {
  /**
   * Schema versions that passed, by fingerprint. Every envelope and chunk repeats the versions its
   * changes use, and recomputing a fingerprint (a canonical description, hashed) costs far more
   * than comparing a version with one that passed: the same instance on the source, an equal one
   * decoded again on the sink. Bounded: a full map starts afresh.
   */
  private static final Map<String, SchemaVersion> VALID_SCHEMAS = new ConcurrentHashMap<>();

  private static final int VALID_SCHEMAS_MAX = 1024;

  private EventRules() {}

  /**
   * Checks the events of one envelope or chunk ({@code strict}: in strict transaction order or
   * strict chunked order, where partition_order is 0); returns how many there are.
   */
  static long check(
      Identity id,
      List<ChangeRecord> changes,
      List<DdlEvent> ddl,
      List<SchemaVersion> schemas,
      boolean strict,
      Violations v) {
    schemaVersions(id, schemas, v);
    Versions versions = new Versions(schemas);
    String keyPrefix = EventKey.prefix(id.sourceId(), id.commitLsn(), id.transactionId());
    boolean ascending = true;
    long previous = 0;
    for (int i = 0; i < changes.size(); i++) {
      ChangeRecord c = changes.get(i);
      Field f = new Field("changes", i);
      long order = c.getTotalOrder();
      ascending &= totalOrder(id, f, order, previous, i == 0, v);
      previous = order;
      if (!c.getTransactionId().equals(id.transactionId())) {
        v.report(
            TRANSACTION_ID_MISMATCH,
            f.at(".transaction_id"),
            id.eventKey(order),
            "'" + c.getTransactionId() + "' != '" + id.transactionId() + "'");
      }
      if (c.getIdempotencyKey().isBlank()) {
        v.report(
            IDEMPOTENCY_KEY_BLANK,
            f.at(".idempotency_key"),
            id.eventKey(order),
            "idempotency_key is blank");
      } else if (!EventKey.matches(c.getIdempotencyKey(), keyPrefix, order)) {
        v.report(
            IDEMPOTENCY_KEY_MISMATCH,
            f.at(".idempotency_key"),
            id.eventKey(order),
            "'" + c.getIdempotencyKey() + "'");
      }
      if (c.getTableOrder() == 0) {
        v.report(TABLE_ORDER_ZERO, f.at(".table_order"), id.eventKey(order), "table_order is 0");
      }
      if (strict && c.getPartitionOrder() != 0) {
        v.report(
            PARTITION_ORDER_IN_STRICT_MODE,
            f.at(".partition_order"),
            id.eventKey(order),
            "partition_order "
                + Long.toUnsignedString(c.getPartitionOrder())
                + " in a strict boundary");
      }
      change(id, c, f, versions, v);
    }
    previous = 0;
    for (int i = 0; i < ddl.size(); i++) {
      DdlEvent d = ddl.get(i);
      Field f = new Field("ddl_events", i);
      long order = d.getTotalOrder();
      ascending &= totalOrder(id, f, order, previous, i == 0, v);
      previous = order;
      if (!d.getTransactionId().equals(id.transactionId())) {
        v.report(
            TRANSACTION_ID_MISMATCH,
            f.at(".transaction_id"),
            id.eventKey(order),
            "'" + d.getTransactionId() + "' != '" + id.transactionId() + "'");
      }
      if (d.getCommandTag().isBlank()) {
        v.report(
            DDL_COMMAND_TAG_BLANK,
            f.at(".command_tag"),
            id.eventKey(order),
            "command_tag is blank");
      }
    }
    if (ascending) {
      noRepeatedTotalOrder(id, changes, ddl, v);
    } else {
      noRepeatedTotalOrderUnsorted(id, changes, ddl, v);
    }
    return (long) changes.size() + ddl.size();
  }

  /**
   * A consumer maps row positions to columns by a schema version, so one whose fingerprint lies
   * about it, or whose column names are empty or repeated, is refused.
   */
  private static void schemaVersions(Identity id, List<SchemaVersion> schemas, Violations v) {
    for (int i = 0; i < schemas.size(); i++) {
      SchemaVersion s = schemas.get(i);
      SchemaVersion known = VALID_SCHEMAS.get(s.getFingerprint());
      if (known == s || (known != null && known.equals(s))) {
        continue; // the same relation, columns and fingerprint passed before
      }
      String field = "schema_versions[" + i + "]";
      boolean valid = true;
      String expected = SchemaFingerprint.of(s);
      if (!expected.equals(s.getFingerprint())) {
        valid = false;
        v.report(
            SCHEMA_FINGERPRINT_MISMATCH,
            field + ".fingerprint",
            id.txKey(),
            "schema version of "
                + s.getRelation().getSchema()
                + "."
                + s.getRelation().getTable()
                + " carries fingerprint '"
                + s.getFingerprint()
                + "', its columns give "
                + expected);
      }
      Set<String> names = new HashSet<>(s.getColumnsCount() * 2);
      for (int j = 0; j < s.getColumnsCount(); j++) {
        String name = s.getColumns(j).getName();
        if (name.isEmpty()) {
          valid = false;
          v.report(
              COLUMN_NAME_BLANK,
              field + ".columns[" + j + "].name",
              id.txKey(),
              "column " + j + " of " + s.getRelation().getTable() + " has no name");
        } else if (!names.add(name)) {
          valid = false;
          v.report(
              COLUMN_NAME_DUPLICATE,
              field + ".columns[" + j + "].name",
              id.txKey(),
              "column '" + name + "' of " + s.getRelation().getTable() + " is listed twice");
        }
      }
      if (valid && withoutUnknownFields(s)) {
        if (VALID_SCHEMAS.size() >= VALID_SCHEMAS_MAX) {
          VALID_SCHEMAS.clear();
        }
        VALID_SCHEMAS.put(s.getFingerprint(), s);
      }
    }
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

  /**
   * Names a list element only when an error needs it: building "changes[123].after" for every
   * change on the success path would allocate several strings per change.
   */
  private record Field(String list, int index) {
    String at(String suffix) {
      return list + "[" + index + "]" + suffix;
    }
  }

  /** Zero and descending orders of one list; true when {@code order} does not descend. */
  private static boolean totalOrder(
      Identity id, Field f, long order, long previous, boolean first, Violations v) {
    if (order == 0) {
      v.report(TOTAL_ORDER_ZERO, f.at(".total_order"), id.txKey(), "total_order is 0");
    }
    if (!first && Long.compareUnsigned(order, previous) < 0) {
      v.report(
          TOTAL_ORDER_NOT_ASCENDING,
          f.at(".total_order"),
          id.eventKey(order),
          "total_order "
              + Long.toUnsignedString(order)
              + " follows "
              + Long.toUnsignedString(previous));
      return false;
    }
    return true;
  }

  /**
   * Both lists ascend, so one merge pass finds a non-zero total_order used twice, within a list or
   * across.
   */
  private static void noRepeatedTotalOrder(
      Identity id, List<ChangeRecord> changes, List<DdlEvent> ddl, Violations v) {
    int i = 0;
    int j = 0;
    long previous = 0;
    while (i < changes.size() || j < ddl.size()) {
      boolean change =
          j >= ddl.size()
              || (i < changes.size()
                  && Long.compareUnsigned(
                          changes.get(i).getTotalOrder(), ddl.get(j).getTotalOrder())
                      <= 0);
      long order = change ? changes.get(i).getTotalOrder() : ddl.get(j).getTotalOrder();
      if (order != 0 && order == previous) {
        v.report(
            DUPLICATE_TOTAL_ORDER,
            (change ? "changes[" + i : "ddl_events[" + j) + "].total_order",
            id.eventKey(order),
            "total_order " + Long.toUnsignedString(order) + " is used by two events");
      }
      previous = order;
      if (change) {
        i++;
      } else {
        j++;
      }
    }
  }

  /**
   * The failure path's form of {@link #noRepeatedTotalOrder}, for lists already found out of order.
   */
  private static void noRepeatedTotalOrderUnsorted(
      Identity id, List<ChangeRecord> changes, List<DdlEvent> ddl, Violations v) {
    long[] orders = new long[changes.size() + ddl.size()];
    int n = 0;
    for (ChangeRecord c : changes) {
      orders[n++] = c.getTotalOrder();
    }
    for (DdlEvent d : ddl) {
      orders[n++] = d.getTotalOrder();
    }
    // signed order groups equal values just as well as unsigned order does
    Arrays.sort(orders);
    for (int k = 1; k < orders.length; k++) {
      if (orders[k] != 0 && orders[k] == orders[k - 1]) {
        v.report(
            DUPLICATE_TOTAL_ORDER,
            "total_order",
            id.eventKey(orders[k]),
            "total_order " + Long.toUnsignedString(orders[k]) + " is used by two events");
      }
    }
  }

  /**
   * Ascending, unique and 1-based: the highest equals the count exactly when nothing is missing.
   */
  static void requireNoGap(
      Identity id, List<ChangeRecord> changes, List<DdlEvent> ddl, long events, Violations v) {
    long max = 0;
    for (ChangeRecord c : changes) {
      max = Long.compareUnsigned(c.getTotalOrder(), max) > 0 ? c.getTotalOrder() : max;
    }
    for (DdlEvent d : ddl) {
      max = Long.compareUnsigned(d.getTotalOrder(), max) > 0 ? d.getTotalOrder() : max;
    }
    if (max != events) {
      v.report(
          TOTAL_ORDER_GAP,
          "changes",
          id.txKey(),
          events + " events but the highest total_order is " + Long.toUnsignedString(max));
    }
  }

  private static void change(
      Identity id, ChangeRecord c, Field f, Versions versions, Violations v) {
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
      truncate(id, c, f, v);
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
    requireImage(
        id, delete ? c.hasBefore() : c.hasAfter(), f, delete ? ".before" : ".after", order, v);
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
    // the identifying image: a delete's old row; an update's old key or row when sent, else its new
    // row
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
   * spec.
   */
  private static void truncate(Identity id, ChangeRecord c, Field f, Violations v) {
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
    if (!sameRelation(t.getRelations(0), c.getRelation())) {
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

  private static void requireImage(
      Identity id, boolean present, Field f, String image, long order, Violations v) {
    if (!present) {
      String field = f.at(image);
      v.report(ROW_IMAGE_MISSING, field, id.eventKey(order), field + " is absent");
    }
  }

  /**
   * Every column of a row image states NULL, unchanged-TOAST or a value, and its text is UTF-8: the
   * parser keeps {@code text} as the bytes that came (the IDL turns its UTF-8 check off, so a value
   * is never decoded and re-encoded), so the check a proto3 parser makes of every string is made
   * here, as the same rule.
   */
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
      if (!column.getTextBytes().isValidUtf8()) {
        v.report(
            MALFORMED_BYTES,
            f.at(imageName + ".columns[" + i + "].text"),
            id.eventKey(order),
            "column " + i + "'s text is not valid UTF-8");
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
          "the image"
              + " carries "
              + image.getColumnsCount()
              + " columns, its schema version "
              + versions.columnCount);
      return false;
    }
    return true;
  }

  /**
   * Update and delete must identify the row: every key column of the schema version
   * (ColumnDefinition.key) has a value in the identifying image; a relation without key columns is
   * identified only by a full old row under REPLICA IDENTITY FULL.
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

  /**
   * The schema version each change follows ({@link SchemaVersions#of}), with its column count and
   * key positions; remembers the last one (changes of one relation cluster).
   */
  private static final class Versions {
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
  }
}
