package io.trellara.sink.target;

import io.trellara.sink.engine.ApplyException;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import java.util.ArrayList;
import java.util.List;

/**
 * The statement shape of one row change: which columns it sets and which identify the target row. Rows of one
 * relation and operation with an equal shape share one prepared statement and are batched. Built once per run
 * of rows; {@link #matches} checks each further row without allocating.
 */
final class RowShape {
    final Operation operation;
    final QualifiedName target;
    /** Insert: every column; update: the columns set (VALUE or NULL). Names and indexes in {@code after}. */
    final String[] columns;
    final int[] columnIndex;
    /** Update/delete: the WHERE columns in the key image; insert: the key columns of {@code after}. */
    final String[] keyColumns;
    final int[] keyIndex;
    /** The WHERE image is {@code before} (old key or old row) rather than {@code after}. */
    final boolean keyFromBefore;
    /** REPLICA IDENTITY FULL without key flags: match one row by every old column ({@code IS NULL} for nulls). */
    final boolean fullIdentity;
    final boolean[] keyIsNull;

    // what matches() compares
    private final String[] afterNames;
    private final byte[] afterStates;
    private final String[] keyImageNames;
    private final byte[] keyImageStates;

    private RowShape(Operation operation, QualifiedName target, List<Integer> cols, List<Integer> keys, RowImage after,
                     RowImage keyImage, boolean keyFromBefore, boolean fullIdentity) {
        this.operation = operation;
        this.target = target;
        this.keyFromBefore = keyFromBefore;
        this.fullIdentity = fullIdentity;
        this.columns = new String[cols.size()];
        this.columnIndex = new int[cols.size()];
        for (int i = 0; i < cols.size(); i++) {
            columnIndex[i] = cols.get(i);
            columns[i] = after.getColumns(columnIndex[i]).getName();
        }
        RowImage keySource = operation == Operation.OPERATION_INSERT ? after : keyImage;
        this.keyColumns = new String[keys.size()];
        this.keyIndex = new int[keys.size()];
        this.keyIsNull = new boolean[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            keyIndex[i] = keys.get(i);
            ColumnValue v = keySource.getColumns(keyIndex[i]);
            keyColumns[i] = v.getName();
            keyIsNull[i] = v.getState() == ColumnState.COLUMN_STATE_NULL;
        }
        this.afterNames = names(after);
        this.afterStates = states(after);
        this.keyImageNames = operation == Operation.OPERATION_INSERT ? null : names(keyImage);
        this.keyImageStates = operation == Operation.OPERATION_INSERT ? null : keyStates(keyImage);
    }

    /**
     * The shape of {@code c} against {@code table}: updates and deletes match on the target's primary key, whose
     * columns the key image must carry by name, each once with a value; under REPLICA IDENTITY DEFAULT or INDEX
     * the columns the record flags as key must be exactly those (a record that flags another column, or leaves
     * one out, is refused rather than matched on what it chose).
     */
    static RowShape of(ChangeRecord c, TargetTable table) {
        QualifiedName target = table.name();
        String relation = target.quoted();
        String eventKey = c.getIdempotencyKey();
        return switch (c.getOperation()) {
            case OPERATION_INSERT -> insert(c, table, relation, eventKey);
            case OPERATION_UPDATE -> update(c, table, relation, eventKey);
            case OPERATION_DELETE -> delete(c, table, relation, eventKey);
            default -> throw new ApplyException(ApplyException.Reason.UNSUPPORTED_CHANGE, relation, eventKey,
                    "operation " + c.getOperation() + " has no row shape");
        };
    }

    private static RowShape insert(ChangeRecord c, TargetTable table, String relation, String eventKey) {
        RowImage after = requireImage(c.hasAfter() ? c.getAfter() : null, "after", relation, eventKey);
        checkNames(after, "after", relation, eventKey);
        List<Integer> cols = new ArrayList<>();
        List<Integer> keys = new ArrayList<>();
        for (int i = 0; i < after.getColumnsCount(); i++) {
            ColumnValue v = after.getColumns(i);
            checkColumn(v, relation, eventKey);
            if (v.getState() == ColumnState.COLUMN_STATE_UNCHANGED_TOAST) {
                throw new ApplyException(ApplyException.Reason.UNSUPPORTED_CHANGE, relation, eventKey,
                        "insert carries column \"" + v.getName() + "\" as unchanged-TOAST; an inserted row must"
                                + " carry every column");
            }
            cols.add(i);
        }
        for (String k : table.primaryKey()) {
            int i = indexOf(after, k);
            if (i >= 0) {
                keys.add(i); // the conflict target of an upsert
            }
        }
        return new RowShape(Operation.OPERATION_INSERT, table.name(), cols, keys, after, null, false, false);
    }

    private static RowShape update(ChangeRecord c, TargetTable table, String relation, String eventKey) {
        RowImage after = requireImage(c.hasAfter() ? c.getAfter() : null, "after", relation, eventKey);
        checkNames(after, "after", relation, eventKey);
        boolean fromBefore = c.hasBefore() && c.getBefore().getColumnsCount() > 0;
        RowImage keyImage = fromBefore ? c.getBefore() : after;
        List<Integer> keys = keyColumns(c, table, keyImage, fromBefore, relation, eventKey);
        boolean full = keys.isEmpty();
        if (full) {
            keys = fullIdentityColumns(keyImage);
        }
        List<Integer> cols = new ArrayList<>();
        for (int i = 0; i < after.getColumnsCount(); i++) {
            ColumnValue v = after.getColumns(i);
            checkColumn(v, relation, eventKey);
            boolean unchangedKey = !fromBefore && table.isKey(v.getName());
            if (v.getState() != ColumnState.COLUMN_STATE_UNCHANGED_TOAST && !unchangedKey) {
                cols.add(i);
            }
        }
        if (cols.isEmpty()) {
            for (int i = 0; i < after.getColumnsCount(); i++) {
                if (table.isKey(after.getColumns(i).getName())) {
                    cols.add(i); // nothing else to set: set the (unchanged) key so the row is still matched
                }
            }
        }
        return new RowShape(Operation.OPERATION_UPDATE, table.name(), cols, keys, after, keyImage, fromBefore, full);
    }

    private static RowShape delete(ChangeRecord c, TargetTable table, String relation, String eventKey) {
        RowImage before = requireImage(c.hasBefore() ? c.getBefore() : null, "before", relation, eventKey);
        List<Integer> keys = keyColumns(c, table, before, true, relation, eventKey);
        boolean full = keys.isEmpty();
        if (full) {
            keys = fullIdentityColumns(before);
        }
        return new RowShape(Operation.OPERATION_DELETE, table.name(), List.of(), keys, RowImage.getDefaultInstance(),
                before, true, full);
    }

    /**
     * Indexes in {@code image} of the target's primary-key columns, in key order; empty only when the target
     * has no primary key and REPLICA IDENTITY FULL allows a full-row match.
     */
    private static List<Integer> keyColumns(ChangeRecord c, TargetTable table, RowImage image, boolean fromBefore,
                                            String relation, String eventKey) {
        String which = fromBefore ? "before" : "after";
        checkNames(image, which, relation, eventKey);
        boolean fullIdentity = c.getReplicaIdentity() == ReplicaIdentity.REPLICA_IDENTITY_FULL;
        for (int i = 0; i < image.getColumnsCount(); i++) {
            ColumnValue v = image.getColumns(i);
            checkColumn(v, relation, eventKey);
            if (v.getKey() && !fullIdentity && !table.isKey(v.getName())) {
                throw new ApplyException(ApplyException.Reason.KEY_COLUMNS_MISMATCH, relation, eventKey,
                        c.getOperation() + " flags column \"" + v.getName() + "\" of its " + which + " image as key,"
                                + " but the target's primary key is " + table.primaryKey() + "; the sink matches rows"
                                + " on the target's primary key only");
            }
        }
        if (table.primaryKey().isEmpty()) {
            if (fromBefore && fullIdentity && image.getColumnsCount() > 0) {
                return List.of();
            }
            throw new ApplyException(ApplyException.Reason.MISSING_KEY_COLUMN, relation, eventKey,
                    "the target table has no primary key, so " + c.getOperation() + " cannot match one row (replica"
                            + " identity " + c.getReplicaIdentity() + "); give the target table the source's primary"
                            + " key");
        }
        List<Integer> keys = new ArrayList<>(table.primaryKey().size());
        for (String k : table.primaryKey()) {
            int i = indexOf(image, k);
            if (i < 0) {
                throw new ApplyException(ApplyException.Reason.KEY_COLUMNS_MISMATCH, relation, eventKey,
                        c.getOperation() + " lacks primary-key column \"" + k + "\" of the target in its " + which
                                + " image; the target's primary key is " + table.primaryKey());
            }
            ColumnValue v = image.getColumns(i);
            if (v.getState() != ColumnState.COLUMN_STATE_VALUE) {
                throw new ApplyException(ApplyException.Reason.MISSING_KEY_COLUMN, relation, eventKey,
                        "key column \"" + k + "\" of the " + which + " image has state " + v.getState()
                                + " instead of a value");
            }
            if (!v.getKey() && !fullIdentity) {
                throw new ApplyException(ApplyException.Reason.KEY_COLUMNS_MISMATCH, relation, eventKey,
                        c.getOperation() + " does not flag primary-key column \"" + k + "\" of the target as key in"
                                + " its " + which + " image; the record's key and the target's primary key "
                                + table.primaryKey() + " differ");
            }
            keys.add(i);
        }
        return keys;
    }

    private static int indexOf(RowImage image, String name) {
        for (int i = 0; i < image.getColumnsCount(); i++) {
            if (image.getColumns(i).getName().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** A row image names each column at most once (else which value applies would be the writer's choice). */
    private static void checkNames(RowImage image, String which, String relation, String eventKey) {
        int n = image.getColumnsCount();
        if (n <= 1) {
            return;
        }
        java.util.HashSet<String> seen = new java.util.HashSet<>(n * 2);
        for (int i = 0; i < n; i++) {
            String name = image.getColumns(i).getName();
            if (!seen.add(name)) {
                throw new ApplyException(ApplyException.Reason.KEY_COLUMNS_MISMATCH, relation, eventKey,
                        "the " + which + " image names column \"" + name + "\" more than once");
            }
        }
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

    private static RowImage requireImage(RowImage image, String which, String relation, String eventKey) {
        if (image == null || image.getColumnsCount() == 0) {
            throw new ApplyException(ApplyException.Reason.MISSING_KEY_COLUMN, relation, eventKey,
                    "the change has no " + which + " row image");
        }
        return image;
    }

    private static void checkColumn(ColumnValue v, String relation, String eventKey) {
        try {
            Identifiers.check(v.getName());
        } catch (IllegalArgumentException e) {
            throw new ApplyException(ApplyException.Reason.RELATION_REFUSED, relation, eventKey,
                    "column name cannot be used: " + e.getMessage());
        }
        if (v.getState() == ColumnState.COLUMN_STATE_VALUE && v.getText().isEmpty() && !v.getBinary().isEmpty()) {
            throw new ApplyException(ApplyException.Reason.UNSUPPORTED_CHANGE, relation, eventKey,
                    "column \"" + v.getName() + "\" carries only a binary value; the sink applies the text form");
        }
    }

    /** True when {@code c} has exactly this shape (same relation is the caller's check). */
    boolean matches(ChangeRecord c) {
        if (c.getOperation() != operation) {
            return false;
        }
        if (operation != Operation.OPERATION_DELETE && !sameImage(c.getAfter(), afterNames, afterStates, false)) {
            return false;
        }
        if (operation == Operation.OPERATION_INSERT) {
            return true;
        }
        boolean fromBefore = c.hasBefore() && c.getBefore().getColumnsCount() > 0;
        if (fromBefore != keyFromBefore) {
            return false;
        }
        return sameImage(fromBefore ? c.getBefore() : c.getAfter(), keyImageNames, keyImageStates, true);
    }

    private boolean sameImage(RowImage image, String[] names, byte[] states, boolean keyImage) {
        int n = image.getColumnsCount();
        if (n != names.length) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            ColumnValue v = image.getColumns(i);
            byte s = keyImage ? keyState(v) : state(v);
            if (s != states[i] || !v.getName().equals(names[i])) {
                return false;
            }
        }
        return true;
    }

    private static String[] names(RowImage image) {
        String[] out = new String[image.getColumnsCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = image.getColumns(i).getName();
        }
        return out;
    }

    private static byte[] states(RowImage image) {
        byte[] out = new byte[image.getColumnsCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = state(image.getColumns(i));
        }
        return out;
    }

    private static byte[] keyStates(RowImage image) {
        byte[] out = new byte[image.getColumnsCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = keyState(image.getColumns(i));
        }
        return out;
    }

    /** Unchanged-TOAST or not, and the key flag (a different key flag is a different statement). */
    private static byte state(ColumnValue v) {
        return (byte) ((v.getState() == ColumnState.COLUMN_STATE_UNCHANGED_TOAST ? 1 : 0) | (v.getKey() ? 2 : 0));
    }

    /** In a key image the null pattern matters too (full identity uses IS NULL). */
    private static byte keyState(ColumnValue v) {
        return (byte) (v.getState().getNumber() | (v.getKey() ? 8 : 0));
    }

    // ---- SQL ------------------------------------------------------------------------------------------

    String insertSql(int rows, boolean upsert, String relation, String eventKey) {
        StringBuilder b = new StringBuilder(64 + rows * columns.length * 3).append("INSERT INTO ")
                .append(target.quoted()).append(" (");
        appendColumns(b, columns);
        b.append(") VALUES ");
        for (int r = 0; r < rows; r++) {
            b.append(r == 0 ? "(" : ",(");
            for (int i = 0; i < columns.length; i++) {
                b.append(i == 0 ? "?" : ",?");
            }
            b.append(')');
        }
        if (upsert) {
            if (keyColumns.length == 0) {
                throw new ApplyException(ApplyException.Reason.MISSING_KEY_COLUMN, relation, eventKey,
                        "upsert needs the key columns of the inserted row, and none is flagged as key");
            }
            b.append(" ON CONFLICT (");
            appendColumns(b, keyColumns);
            b.append(')');
            boolean any = false;
            for (int i = 0; i < columns.length; i++) {
                if (!isKey(columnIndex[i])) {
                    b.append(any ? ", " : " DO UPDATE SET ");
                    String q = Identifiers.quote(columns[i]);
                    b.append(q).append(" = EXCLUDED.").append(q);
                    any = true;
                }
            }
            if (!any) {
                b.append(" DO NOTHING");
            }
        }
        return b.toString();
    }

    private boolean isKey(int afterIndex) {
        for (int k : keyIndex) {
            if (k == afterIndex) {
                return true;
            }
        }
        return false;
    }

    String copySql() {
        StringBuilder b = new StringBuilder(64).append("COPY ").append(target.quoted()).append(" (");
        appendColumns(b, columns);
        return b.append(") FROM STDIN").toString();
    }

    String updateSql() {
        StringBuilder b = new StringBuilder(96).append("UPDATE ").append(target.quoted()).append(" SET ");
        for (int i = 0; i < columns.length; i++) {
            b.append(i == 0 ? "" : ", ").append(Identifiers.quote(columns[i])).append(" = ?");
        }
        return appendWhere(b).toString();
    }

    String deleteSql() {
        return appendWhere(new StringBuilder(96).append("DELETE FROM ").append(target.quoted())).toString();
    }

    private StringBuilder appendWhere(StringBuilder b) {
        if (fullIdentity) {
            b.append(" WHERE ctid = (SELECT ctid FROM ").append(target.quoted());
        }
        b.append(" WHERE ");
        for (int i = 0; i < keyColumns.length; i++) {
            b.append(i == 0 ? "" : " AND ").append(Identifiers.quote(keyColumns[i]))
                    .append(keyIsNull[i] ? " IS NULL" : " = ?");
        }
        if (fullIdentity) {
            b.append(" LIMIT 1)");
        }
        return b;
    }

    private static void appendColumns(StringBuilder b, String[] names) {
        for (int i = 0; i < names.length; i++) {
            b.append(i == 0 ? "" : ", ").append(Identifiers.quote(names[i]));
        }
    }
}
