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
  private final Map<RelationSchema, Route> routes = new IdentityHashMap<>();
  private final ChangeRecord.Builder move = ChangeRecord.newBuilder();

  public OwnershipRouter(
      int partitions,
      OwnershipKeys keys,
      NullKeyPolicy nullKeyPolicy,
      KeyChangePolicy keyChangePolicy) {
    this(partitions, keys, nullKeyPolicy, keyChangePolicy, KeyTypes.builtIn());
  }

  /**
   * @param keyTypes resolves the user types (enums, domains) of ownership columns, which a Relation
   *     message names by OID only
   */
  public OwnershipRouter(
      int partitions,
      OwnershipKeys keys,
      NullKeyPolicy nullKeyPolicy,
      KeyChangePolicy keyChangePolicy,
      KeyTypes keyTypes) {
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
        int to = r.partition(c.getAfter(), key);
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
    List<String> ownership = new ArrayList<>();
    List<String> primaryKey = new ArrayList<>();
    for (RelationSchema.Column col : relation.columns()) {
      if (col.key()) {
        primaryKey.add(col.name());
      }
    }
    if (named == null) {
      ownership.addAll(primaryKey);
    } else {
      for (String n : named) {
        if (!primaryKey.contains(n)) {
          throw new CaptureException(
              "ownership_key_column",
              "ownership column '"
                  + n
                  + "' of "
                  + relation.qualifiedName()
                  + " is not a primary-key column ("
                  + primaryKey
                  + "). Ownership"
                  + " columns must be primary-key columns so every update and delete carries them.");
        }
        ownership.add(n);
      }
    }
    if (ownership.isEmpty()) {
      throw new CaptureException(
          "ownership_key_column",
          relation.qualifiedName() + " has no primary key to own its rows by");
    }
    return new Route(relation, ownership, primaryKey);
  }

  /**
   * One relation version's ownership columns, by position: row images are positional against the
   * relation's columns, key-only old images included, so one set of positions serves every image.
   */
  private final class Route {
    final String table;
    final int[] positions;
    final KeyEncoder encoder;
    final Route
        primaryKey; // for derive_from_primary_key; null when ownership already is the primary key

    Route(RelationSchema relation, List<String> ownership, List<String> pk) {
      this(relation, ownership, pk, true);
    }

    private Route(RelationSchema relation, List<String> ownership, List<String> pk, boolean outer) {
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
      primaryKey = outer && !ownership.equals(pk) ? new Route(relation, pk, pk, false) : null;
    }

    int partition(RowImage image, String eventKey) {
      encoder.begin();
      for (int i : positions) {
        ColumnValue v = i < image.getColumnsCount() ? image.getColumns(i) : null;
        if (v == null || v.getState() != ColumnState.COLUMN_STATE_VALUE) {
          return nullKey(image, eventKey, v == null ? "absent" : v.getState().name());
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

    private int nullKey(RowImage image, String eventKey, String state) {
      return switch (nullKeyPolicy) {
        case QUARANTINE ->
            throw new CaptureException(
                "null_ownership_key",
                "event "
                    + eventKey
                    + " of "
                    + table
                    + " has no ownership key value ("
                    + state
                    + ") and null_key_policy is quarantine");
        case ROUTE_TO_SINGLETON_PARTITION -> 0;
        case ROUTE_TO_DEAD_LETTER_PARTITION -> partitions - 1;
        case DERIVE_FROM_PRIMARY_KEY ->
            primaryKey == null ? 0 : primaryKey.partition(image, eventKey);
      };
    }
  }
}
