package io.trellara.sink.postgres.apply;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.schema.TargetTable;
import java.util.ArrayList;
import java.util.List;

/**
 * The columns an update or delete finds its one target row by, as positions in its key image: the
 * target's own primary key, whose columns the key image must carry with a value and (under REPLICA
 * IDENTITY DEFAULT) the schema version must flag as key, exactly those (under USING INDEX: those
 * and possibly more, an index holding the primary key; under FULL the flags are not judged); or,
 * only when the target has no primary key and the source sent the old row under REPLICA IDENTITY
 * FULL, every old column ({@code fullIdentity}). A record that flags another key, or leaves one
 * out, is refused rather than matched on what it chose.
 *
 * @param positions the key columns' positions in the key image, in key order
 * @param fullIdentity the row is matched by every old column (no primary key)
 */
record MatchKey(List<Integer> positions, boolean fullIdentity) {

  /**
   * The match key of {@code c} on {@code layout}'s target; {@code image} is its key image ({@code
   * fromBefore}: the before image), its values already checked.
   */
  static MatchKey of(
      ChangeRecord c,
      RowLayout layout,
      RowImage image,
      boolean fromBefore,
      String relation,
      String eventKey) {
    List<Integer> keys = primaryKey(c, layout, image, fromBefore, relation, eventKey);
    return keys.isEmpty()
        ? new MatchKey(fullIdentityColumns(image), true)
        : new MatchKey(keys, false);
  }

  /**
   * Positions of the target's primary-key columns, in key order; empty only when the target has no
   * primary key and REPLICA IDENTITY FULL allows a full-row match.
   */
  private static List<Integer> primaryKey(
      ChangeRecord c,
      RowLayout layout,
      RowImage image,
      boolean fromBefore,
      String relation,
      String eventKey) {
    String which = fromBefore ? "before" : "after";
    boolean fullIdentity = c.getReplicaIdentity() == ReplicaIdentity.REPLICA_IDENTITY_FULL;
    TargetTable table = layout.table;
    if (layout.flaggedNotTargetKey != null && !fullIdentity && !indexHoldingKey(c, layout)) {
      throw new ApplyException(
          ApplyException.Reason.KEY_COLUMNS_MISMATCH,
          relation,
          eventKey,
          c.getOperation()
              + " flags column \""
              + layout.flaggedNotTargetKey
              + "\" as key (its schema"
              + " version's key), but the target's primary key is "
              + table.primaryKey()
              + "; the sink"
              + " matches rows on the target's primary key only");
    }
    if (table.primaryKey().isEmpty()) {
      if (fromBefore && fullIdentity && image.getColumnsCount() > 0) {
        return List.of();
      }
      throw new ApplyException(
          ApplyException.Reason.MISSING_KEY_COLUMN,
          relation,
          eventKey,
          "the target table has no primary key, so "
              + c.getOperation()
              + " cannot match one row (replica"
              + " identity "
              + c.getReplicaIdentity()
              + "); give the target table the source's primary"
              + " key");
    }
    List<Integer> keys = new ArrayList<>(table.primaryKey().size());
    for (int k = 0; k < layout.primaryKeyPositions.length; k++) {
      String name = table.primaryKey().get(k);
      int i = layout.primaryKeyPositions[k];
      if (i < 0) {
        throw new ApplyException(
            ApplyException.Reason.KEY_COLUMNS_MISMATCH,
            relation,
            eventKey,
            c.getOperation()
                + " lacks primary-key column \""
                + name
                + "\" of the target in its schema"
                + " version; the target's primary key is "
                + table.primaryKey());
      }
      ColumnValue v = image.getColumns(i);
      if (v.getState() != ColumnState.COLUMN_STATE_VALUE) {
        throw new ApplyException(
            ApplyException.Reason.MISSING_KEY_COLUMN,
            relation,
            eventKey,
            "key column \""
                + name
                + "\" of the "
                + which
                + " image has state "
                + v.getState()
                + " instead of a value");
      }
      keys.add(i);
    }
    if (layout.targetKeyNotFlagged != null && !fullIdentity) {
      throw new ApplyException(
          ApplyException.Reason.KEY_COLUMNS_MISMATCH,
          relation,
          eventKey,
          c.getOperation()
              + " does not flag primary-key column \""
              + layout.targetKeyNotFlagged
              + "\" of"
              + " the target as key in its schema version; the record's key and the target's primary"
              + " key "
              + table.primaryKey()
              + " differ");
    }
    return keys;
  }

  /**
   * REPLICA IDENTITY USING INDEX on an index that holds the target's whole primary key (and more
   * columns, such as an ownership column routed by): the key image carries every primary-key
   * column, so the row is found by the target's primary key, and the index's other columns are
   * carried along, not matched on.
   */
  private static boolean indexHoldingKey(ChangeRecord c, RowLayout layout) {
    return c.getReplicaIdentity() == ReplicaIdentity.REPLICA_IDENTITY_INDEX
        && layout.targetKeyNotFlagged == null
        && !layout.table.primaryKey().isEmpty();
  }

  private static List<Integer> fullIdentityColumns(RowImage image) {
    List<Integer> keys = new ArrayList<>();
    for (int i = 0; i < image.getColumnsCount(); i++) {
      if (image.getColumns(i).getState() != ColumnState.COLUMN_STATE_UNCHANGED_TOAST) {
        keys.add(i);
      }
    }
    return keys;
  }
}
