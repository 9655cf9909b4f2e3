package io.trellara.source.routing;

import io.trellara.identity.ColumnType;
import io.trellara.identity.KeyEncoder;
import io.trellara.identity.OwnershipRouting;
import io.trellara.identity.RowIdentityDomain;
import io.trellara.identity.RowIdentityEncoder;
import io.trellara.identity.RowIdentityException;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.source.capture.CaptureException;
import io.trellara.source.capture.RelationSchema;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Partitioned scale mode's planner: routes each change to the partition that owns its row — xxh3_64
 * of the row identity V2 SCAN_KEY bytes of the ownership columns, unsigned, mod N — and applies the
 * null-key and key-change policies. Rowless events (TRUNCATE, DDL) are not rows without a key: they
 * have no row at all, and go to lane 0 whatever the null-key policy (the sink merges a
 * transaction's lanes by total_order, so any one lane keeps them in order); the null-key policy is
 * about rows only.
 */
public final class OwnershipRouter {

  /**
   * Receives the routed events: once per change, twice (delete, then insert) for an emitted move.
   */
  public interface Lanes {
    void emit(int partition, ChangeRecord change);
  }

  private final int partitions;
  private final OwnershipKeys keys;
  private final NullKeyPolicy nullKeyPolicy;
  private final KeyChangePolicy keyChangePolicy;
  private final KeyTypes keyTypes;
  private final PrimaryKeys primaryKeys;
  private final Map<RelationSchema, Route> routes = new IdentityHashMap<>();
  private final ChangeRecord.Builder move = ChangeRecord.newBuilder();

  public OwnershipRouter(
      int partitions,
      OwnershipKeys keys,
      NullKeyPolicy nullKeyPolicy,
      KeyChangePolicy keyChangePolicy) {
    this(partitions, keys, nullKeyPolicy, keyChangePolicy, KeyTypes.builtIn());
  }

  /** With the key flags as primary keys: for tables that all have REPLICA IDENTITY DEFAULT. */
  public OwnershipRouter(
      int partitions,
      OwnershipKeys keys,
      NullKeyPolicy nullKeyPolicy,
      KeyChangePolicy keyChangePolicy,
      KeyTypes keyTypes) {
    this(partitions, keys, nullKeyPolicy, keyChangePolicy, keyTypes, PrimaryKeys.flagged());
  }

  /**
   * @param keyTypes resolves the user types (enums, domains) of ownership columns, which a Relation
   *     message names by OID only
   * @param primaryKeys the tables' primary keys, which a Relation message does not name (its key
   *     flags are the replica identity's columns)
   */
  public OwnershipRouter(
      int partitions,
      OwnershipKeys keys,
      NullKeyPolicy nullKeyPolicy,
      KeyChangePolicy keyChangePolicy,
      KeyTypes keyTypes,
      PrimaryKeys primaryKeys) {
    if (partitions <= 0) {
      throw new IllegalArgumentException("partitions must be positive");
    }
    if (!keyChangePolicy.planned()) {
      throw new IllegalArgumentException(
          "key_change_policy "
              + keyChangePolicy.configName()
              + " has no planner: ownership moves are handled by emit_move (or refused by quarantine)");
    }
    this.partitions = partitions;
    this.keys = keys;
    this.nullKeyPolicy = nullKeyPolicy;
    this.keyChangePolicy = keyChangePolicy;
    this.keyTypes = keyTypes;
    this.primaryKeys = primaryKeys;
  }

  public int partitions() {
    return partitions;
  }

  /** Routes a row change (insert, update, delete). */
  public void route(ChangeRecord c, RelationSchema relation, Lanes lanes) {
    Route r = routes.computeIfAbsent(relation, this::resolve);
    String key = c.getIdempotencyKey();
    switch (c.getOperation()) {
      case OPERATION_INSERT -> lanes.emit(r.partition(c.getAfter(), key), c);
      case OPERATION_DELETE -> lanes.emit(r.partition(c.getBefore(), key), c);
      case OPERATION_UPDATE -> {
        int to = r.partition(c.getAfter(), c.hasBefore() ? c.getBefore() : null, key);
        int from = c.hasBefore() ? r.partition(c.getBefore(), key) : to;
        if (from == to) {
          lanes.emit(to, c);
        } else if (keyChangePolicy == KeyChangePolicy.EMIT_MOVE) {
          emitMove(c, relation, from, to, lanes);
        } else {
          throw new CaptureException(
              "ownership_key_change",
              "update "
                  + key
                  + " of "
                  + relation.qualifiedName()
                  + " moves its row from partition "
                  + from
                  + " to "
                  + to
                  + " and key_change_policy is quarantine. Set dataset.partitioned.key_change_policy="
                  + "emit_move to publish it as a delete in the old lane and an insert in the new one.");
        }
      }
      default -> lanes.emit(ROWLESS_LANE, c); // a truncate: no row
    }
  }

  /** The lane of an event without a row (TRUNCATE or DDL): lane 0, under every policy. */
  public static final int ROWLESS_LANE = 0;

  /**
   * A move: the delete (old key) in the old lane, then the insert (new row) in the new one. A
   * column the update did not send (unchanged TOAST) takes the old row's value when the old image
   * has it (REPLICA IDENTITY FULL); one still without a value (a key-only old image) stays
   * UNCHANGED_TOAST, and the insert then keeps the old image as its {@code before}: the sink, which
   * applies both halves in one target transaction, carries the value over from the row the delete
   * removes (docs/protocol.md, "Moves").
   */
  private void emitMove(ChangeRecord c, RelationSchema relation, int from, int to, Lanes lanes) {
    lanes.emit(
        from,
        move.clear().mergeFrom(c).clearAfter().setOperation(Operation.OPERATION_DELETE).build());
    RowImage after = c.getAfter();
    RowImage before = c.getBefore();
    RowImage.Builder filled = null;
    boolean lacking = false;
    for (int i = 0; i < after.getColumnsCount(); i++) {
      if (after.getColumns(i).getState() != ColumnState.COLUMN_STATE_UNCHANGED_TOAST) {
        continue;
      }
      ColumnValue old = i < before.getColumnsCount() ? before.getColumns(i) : null;
      if (old != null && old.getState() != ColumnState.COLUMN_STATE_UNCHANGED_TOAST) {
        if (filled == null) {
          filled = after.toBuilder();
        }
        filled.setColumns(i, old);
      } else {
        lacking = true;
      }
    }
    move.clear().mergeFrom(c).setOperation(Operation.OPERATION_INSERT);
    if (filled != null) {
      move.setAfter(filled);
    }
    if (!lacking) {
      move.clearBefore();
    }
    lanes.emit(to, move.build());
  }

  private Route resolve(RelationSchema relation) {
    List<String> named = keys.columnsOf(relation.qualifiedName());
    List<String> ownership = named != null ? named : primaryKeys.of(relation);
    if (ownership.isEmpty()) {
      throw new CaptureException(
          "ownership_key_column",
          relation.qualifiedName() + " has no primary key to own its rows by");
    }
    for (String n : ownership) {
      RelationSchema.Column col = columnNamed(relation, n);
      if (col == null) {
        throw new CaptureException(
            "ownership_key_column",
            "ownership column '" + n + "' is not a column of " + relation.qualifiedName());
      }
      if (relation.replicaIdentity() != ReplicaIdentity.REPLICA_IDENTITY_FULL && !col.key()) {
        throw new CaptureException(
            "ownership_key_column",
            "ownership column '"
                + n
                + "' of "
                + relation.qualifiedName()
                + " is not carried by its replica identity ("
                + relation.replicaIdentity()
                + ", columns "
                + PrimaryKeys.flaggedColumns(relation)
                + "), so its deletes and ownership moves could not be routed. Run ALTER TABLE "
                + quote(relation.schema())
                + '.'
                + quote(relation.table())
                + " REPLICA IDENTITY FULL (or USING INDEX on a unique index holding the primary key"
                + " and the column).");
      }
    }
    return new Route(relation, ownership, named == null);
  }

  private static RelationSchema.Column columnNamed(RelationSchema relation, String name) {
    for (RelationSchema.Column col : relation.columns()) {
      if (col.name().equals(name)) {
        return col;
      }
    }
    return null;
  }

  private static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /**
   * One relation version's ownership columns, by position: row images are positional against the
   * relation's columns, key-only old images included, so one set of positions serves every image.
   */
  private final class Route {
    final RelationSchema relation;
    final String table;
    final int[] positions;
    final KeyEncoder encoder;

    /** The ownership columns are the primary key: there is nothing else to derive a lane from. */
    final boolean ofPrimaryKey;

    /** For derive_from_primary_key: the primary key's route, read on the first null key. */
    private Route primaryKey;

    Route(RelationSchema relation, List<String> ownership, boolean ofPrimaryKey) {
      this.relation = relation;
      this.ofPrimaryKey = ofPrimaryKey;
      table = relation.qualifiedName();
      positions = new int[ownership.size()];
      List<ColumnType> types = new ArrayList<>();
      for (int i = 0; i < ownership.size(); i++) {
        for (int c = 0; c < relation.columnCount(); c++) {
          RelationSchema.Column col = relation.column(c);
          if (col.name().equals(ownership.get(i))) {
            positions[i] = c;
            types.add(keyTypes.resolve(col.typeOid(), col.typeModifier()));
            break;
          }
        }
      }
      try {
        encoder = RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, types);
      } catch (RowIdentityException e) {
        throw new CaptureException(
            "ownership_key_column",
            "ownership key of " + table + " cannot be encoded as a row identity: " + e.getMessage(),
            e);
      }
    }

    int partition(RowImage image, String eventKey) {
      return partition(image, null, eventKey);
    }

    /**
     * @param unchanged the update's old row, which holds a column's value where {@code image} left
     *     it unsent (an unchanged TOAST value, equal to the old one); null: none
     */
    int partition(RowImage image, RowImage unchanged, String eventKey) {
      encoder.begin();
      for (int i : positions) {
        ColumnValue v = i < image.getColumnsCount() ? image.getColumns(i) : null;
        if (v != null
            && v.getState() == ColumnState.COLUMN_STATE_UNCHANGED_TOAST
            && unchanged != null
            && i < unchanged.getColumnsCount()
            && unchanged.getColumns(i).getState() == ColumnState.COLUMN_STATE_VALUE) {
          v = unchanged.getColumns(i);
        }
        if (v == null || v.getState() != ColumnState.COLUMN_STATE_VALUE) {
          return nullKey(image, unchanged, eventKey, v == null ? "absent" : v.getState().name());
        }
        if (!v.getBinary().isEmpty()) {
          byte[] b = v.getBinary().toByteArray();
          encoder.binary(b, 0, b.length);
        } else {
          byte[] b = v.getTextBytes().toByteArray();
          encoder.text(b, 0, b.length);
        }
      }
      return OwnershipRouting.partitionFor(encoder.finish(), partitions);
    }

    private int nullKey(RowImage image, RowImage unchanged, String eventKey, String state) {
      return switch (nullKeyPolicy) {
        case QUARANTINE -> throw noKey(eventKey, state, "null_key_policy is quarantine");
        case ROUTE_TO_SINGLETON_PARTITION -> 0;
        case ROUTE_TO_DEAD_LETTER_PARTITION -> partitions - 1;
        case DERIVE_FROM_PRIMARY_KEY ->
            derived(eventKey, state).partition(image, unchanged, eventKey);
      };
    }

    /** The primary key's route, whose own null key fails closed (no key is left to derive from). */
    private Route derived(String eventKey, String state) {
      if (ofPrimaryKey) {
        throw noKey(eventKey, state, "it is the primary key, which derive_from_primary_key hashes");
      }
      if (primaryKey == null) {
        List<String> pk = primaryKeys.of(relation);
        if (pk.isEmpty()) {
          throw noKey(eventKey, state, "the table has no primary key to derive a lane from");
        }
        primaryKey = new Route(relation, pk, true);
      }
      return primaryKey;
    }

    private CaptureException noKey(String eventKey, String state, String why) {
      return new CaptureException(
          "null_ownership_key",
          "event "
              + eventKey
              + " of "
              + table
              + " has no ownership key value ("
              + state
              + ") and "
              + why);
    }
  }
}
