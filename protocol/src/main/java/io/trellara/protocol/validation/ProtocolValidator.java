package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.*;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.ProtocolVersion;
import io.trellara.protocol.SchemaFingerprint;
import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Validates each message on its own against the wire contract (cross-message barrier rules live in
 * {@link BarrierVerifier}). Every failure is a {@link ProtocolViolationException}. Allocation-free per change
 * on the success path; per message it checks each schema version once (fingerprint, column names).
 */
public final class ProtocolValidator {

    private ProtocolValidator() {
    }

    public static void validateEnvelope(TransactionEnvelope e) {
        Identity id = new Identity(e.getSourceId(), e.getDatabaseId(), e.getDatasetId(), e.getTransactionId(),
                e.getCommitLsn());
        identity(e.getProtocolVersion(), id, e.getCommitTimestampMs(), "");
        beginLsn(e.getBeginLsn(), e.getCommitLsn(), id);
        if (e.hasManifest()) {
            throw new ProtocolViolationException(MANIFEST_ON_PLAIN_STRICT, "manifest", id.txKey(),
                    "an envelope travels only as a plain strict transaction; chunked and partitioned boundaries"
                            + " are published as chunks, a manifest and a commit marker");
        }
        long events = events(id, e.getChangesList(), e.getDdlEventsList(), e.getSchemaVersionsList(), "");
        if (events == 0) {
            throw new ProtocolViolationException(EMPTY_BARRIER, "changes", id.txKey(),
                    "the envelope carries no change and no DDL event");
        }
        requireNoGap(id, e.getChangesList(), e.getDdlEventsList(), events);
    }

    public static void validateChunk(PartitionChunk c) {
        Identity id = new Identity(c.getSourceId(), c.getDatabaseId(), c.getDatasetId(), c.getTransactionId(),
                c.getCommitLsn());
        identity(c.getProtocolVersion(), id, c.getCommitTimestampMs(), "");
        beginLsn(c.getBeginLsn(), c.getCommitLsn(), id);
        boundaryMode(c.getBoundaryMode(), id);
        long events = events(id, c.getChangesList(), c.getDdlEventsList(), c.getSchemaVersionsList(), "");
        if (events == 0) {
            throw new ProtocolViolationException(EMPTY_BARRIER, "changes", id.txKey(),
                    "chunk " + c.getPartitionId() + "/" + c.getChunkSequence() + " carries no event");
        }
    }

    public static void validateManifest(TransactionManifest m) {
        Identity id = new Identity(m.getSourceId(), m.getDatabaseId(), m.getDatasetId(), m.getTransactionId(),
                m.getSourceCommitLsn());
        identity(m.getProtocolVersion(), id, m.getSourceCommitTimestampMs(), "source_");
        boundaryMode(m.getBoundaryMode(), id);
        if (m.getPartitionsCount() == 0) {
            throw new ProtocolViolationException(MANIFEST_PARTITIONS_EMPTY, "partitions", id.txKey(),
                    "the manifest lists no chunk");
        }
        long global = m.getGlobalEventCount();
        if (global == 0) {
            throw new ProtocolViolationException(EMPTY_BARRIER, "global_event_count", id.txKey(),
                    "the manifest declares zero source events");
        }
        long sum = 0;
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < m.getPartitionsCount(); i++) {
            ManifestPartition p = m.getPartitions(i);
            String f = "partitions[" + i + "]";
            if (p.getFirstTotalOrder() == 0 || p.getLastTotalOrder() == 0) {
                throw new ProtocolViolationException(MANIFEST_ZERO_TOTAL_ORDER, f + ".first_total_order", id.txKey(),
                        "range " + p.getFirstTotalOrder() + ".." + p.getLastTotalOrder());
            }
            if (Long.compareUnsigned(p.getFirstTotalOrder(), p.getLastTotalOrder()) > 0) {
                throw new ProtocolViolationException(MANIFEST_REVERSED_RANGE, f + ".last_total_order", id.txKey(),
                        "range " + p.getFirstTotalOrder() + ".." + p.getLastTotalOrder());
            }
            if (p.getEventCount() == 0) {
                throw new ProtocolViolationException(MANIFEST_ZERO_EVENT_COUNT, f + ".event_count", id.txKey(),
                        "chunk " + p.getId() + "/" + p.getChunkSequence() + " declares zero events");
            }
            long span = p.getLastTotalOrder() - p.getFirstTotalOrder() + 1;
            if (Long.compareUnsigned(p.getEventCount(), span) > 0) {
                throw new ProtocolViolationException(MANIFEST_EVENT_COUNT_EXCEEDS_RANGE, f + ".event_count",
                        id.txKey(), "event_count " + p.getEventCount() + " exceeds the range span " + span);
            }
            if (Long.compareUnsigned(p.getLastTotalOrder(), global) > 0) {
                throw new ProtocolViolationException(MANIFEST_RANGE_ABOVE_GLOBAL_COUNT, f + ".last_total_order",
                        id.txKey(), "last_total_order " + p.getLastTotalOrder() + " > global_event_count " + global);
            }
            if (!seen.add(((long) p.getId() << 32) | (p.getChunkSequence() & 0xFFFFFFFFL))) {
                throw new ProtocolViolationException(MANIFEST_DUPLICATE_CHUNK, f + ".id", id.txKey(),
                        "chunk " + p.getId() + "/" + p.getChunkSequence() + " is listed twice");
            }
            sum += p.getEventCount();
        }
        if (sum != global) {
            throw new ProtocolViolationException(MANIFEST_COUNTS_DO_NOT_ADD_UP, "global_event_count", id.txKey(),
                    "entries add up to " + sum + " events, global_event_count is " + global);
        }
        if (Long.compareUnsigned(m.getDdlEventCount(), global) > 0) {
            throw new ProtocolViolationException(MANIFEST_COUNTS_DO_NOT_ADD_UP, "ddl_event_count", id.txKey(),
                    "ddl_event_count " + m.getDdlEventCount() + " > global_event_count " + global);
        }
    }

    public static void validateCommitMarker(TransactionCommitMarker k) {
        Identity id = new Identity(k.getSourceId(), k.getDatabaseId(), k.getDatasetId(), k.getTransactionId(),
                k.getSourceCommitLsn());
        identity(k.getProtocolVersion(), id, k.getSourceCommitTimestampMs(), "source_");
        if (k.getGlobalEventCount() == 0 || k.getParticipatingPartitionCount() == 0) {
            throw new ProtocolViolationException(EMPTY_BARRIER,
                    k.getGlobalEventCount() == 0 ? "global_event_count" : "participating_partition_count",
                    id.txKey(), "a commit marker for zero events or zero partitions is an empty barrier");
        }
    }

    // ---- shared pieces -------------------------------------------------------------------------------------

    /** The identity fields every message kind repeats. */
    record Identity(String sourceId, String databaseId, String datasetId, String transactionId, String commitLsn) {
        String txKey() {
            return sourceId + ':' + commitLsn + ':' + transactionId;
        }

        String eventKey(long totalOrder) {
            return EventKey.of(sourceId, commitLsn, transactionId, totalOrder);
        }
    }

    private static void identity(int version, Identity id, long timestampMs, String lsnPrefix) {
        if (version != ProtocolVersion.CURRENT) {
            throw new ProtocolViolationException(UNKNOWN_PROTOCOL_VERSION, "protocol_version", id.txKey(),
                    "protocol_version is " + Integer.toUnsignedString(version));
        }
        required(id.sourceId, "source_id", id);
        required(id.databaseId, "database_id", id);
        required(id.datasetId, "dataset_id", id);
        required(id.transactionId, "transaction_id", id);
        String lsnField = lsnPrefix + "commit_lsn";
        required(id.commitLsn, lsnField, id);
        if (!Lsn.isCanonical(id.commitLsn)) {
            throw new ProtocolViolationException(COMMIT_LSN_NOT_CANONICAL, lsnField, id.txKey(),
                    "'" + id.commitLsn + "' is not canonical X/X");
        }
        if (Lsn.parse(id.commitLsn).isZero()) {
            throw new ProtocolViolationException(COMMIT_LSN_ZERO, lsnField, id.txKey(), "commit_lsn is 0/0");
        }
        if (timestampMs <= 0) {
            throw new ProtocolViolationException(COMMIT_TIMESTAMP_NOT_POSITIVE, lsnPrefix + "commit_timestamp_ms",
                    id.txKey(), "commit timestamp is " + timestampMs);
        }
    }

    private static void required(String value, String field, Identity id) {
        if (value.isBlank()) {
            throw new ProtocolViolationException(REQUIRED_FIELD_BLANK, field, id.txKey(), field + " is blank");
        }
    }

    private static void beginLsn(String begin, String commit, Identity id) {
        if (begin.isEmpty()) {
            return;
        }
        Lsn b;
        try {
            b = Lsn.parse(begin);
        } catch (IllegalArgumentException ex) {
            throw new ProtocolViolationException(BEGIN_LSN_INVALID, "begin_lsn", id.txKey(), ex.getMessage(), ex);
        }
        if (b.compareTo(Lsn.parse(commit)) > 0) {
            throw new ProtocolViolationException(BEGIN_LSN_AFTER_COMMIT, "begin_lsn", id.txKey(),
                    "begin_lsn " + begin + " > commit_lsn " + commit);
        }
    }

    private static void boundaryMode(ManifestBoundaryMode mode, Identity id) {
        if (mode != ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER
                && mode != ManifestBoundaryMode.PARTITIONED_SCALE_MODE) {
            throw new ProtocolViolationException(BOUNDARY_MODE_UNSPECIFIED, "boundary_mode", id.txKey(),
                    "boundary_mode is " + mode);
        }
    }

    /** Validates the events of an envelope or chunk; returns how many there are. */
    static long events(Identity id, List<ChangeRecord> changes, List<DdlEvent> ddl, List<SchemaVersion> schemas,
                       String fieldPrefix) {
        schemaVersions(id, schemas, fieldPrefix);
        Versions versions = new Versions(schemas);
        String keyPrefix = EventKey.prefix(id.sourceId, id.commitLsn, id.transactionId);
        long previous = 0;
        String changesList = fieldPrefix + "changes";
        for (int i = 0; i < changes.size(); i++) {
            ChangeRecord c = changes.get(i);
            Field f = new Field(changesList, i);
            long order = c.getTotalOrder();
            ascending(id, f, order, previous);
            previous = order;
            if (!c.getTransactionId().equals(id.transactionId)) {
                throw new ProtocolViolationException(TRANSACTION_ID_MISMATCH, f.at(".transaction_id"),
                        id.eventKey(order), "'" + c.getTransactionId() + "' != '" + id.transactionId + "'");
            }
            if (c.getIdempotencyKey().isBlank()) {
                throw new ProtocolViolationException(IDEMPOTENCY_KEY_BLANK, f.at(".idempotency_key"),
                        id.eventKey(order), "idempotency_key is blank");
            }
            if (!EventKey.matches(c.getIdempotencyKey(), keyPrefix, order)) {
                throw new ProtocolViolationException(IDEMPOTENCY_KEY_MISMATCH, f.at(".idempotency_key"),
                        id.eventKey(order), "'" + c.getIdempotencyKey() + "'");
            }
            change(id, c, f, versions);
        }
        previous = 0;
        String ddlList = fieldPrefix + "ddl_events";
        for (int i = 0; i < ddl.size(); i++) {
            DdlEvent d = ddl.get(i);
            Field f = new Field(ddlList, i);
            ascending(id, f, d.getTotalOrder(), previous);
            previous = d.getTotalOrder();
            if (!d.getTransactionId().equals(id.transactionId)) {
                throw new ProtocolViolationException(TRANSACTION_ID_MISMATCH, f.at(".transaction_id"),
                        id.eventKey(d.getTotalOrder()), "'" + d.getTransactionId() + "' != '" + id.transactionId + "'");
            }
            if (d.getCommandTag().isBlank()) {
                throw new ProtocolViolationException(DDL_COMMAND_TAG_BLANK, f.at(".command_tag"),
                        id.eventKey(d.getTotalOrder()), "command_tag is blank");
            }
        }
        noSharedTotalOrder(id, changes, ddl, fieldPrefix);
        return (long) changes.size() + ddl.size();
    }

    /**
     * A consumer maps row positions to columns by a schema version, so one whose fingerprint lies about it, or whose
     * column names are blank or repeated, is refused.
     */
    private static void schemaVersions(Identity id, List<SchemaVersion> schemas, String fieldPrefix) {
        for (int i = 0; i < schemas.size(); i++) {
            SchemaVersion s = schemas.get(i);
            String field = fieldPrefix + "schema_versions[" + i + "]";
            String expected = SchemaFingerprint.of(s);
            if (!expected.equals(s.getFingerprint())) {
                throw new ProtocolViolationException(SCHEMA_FINGERPRINT_MISMATCH, field + ".fingerprint", id.txKey(),
                        "schema version of " + s.getRelation().getSchema() + "." + s.getRelation().getTable()
                                + " carries fingerprint '" + s.getFingerprint() + "', its columns give " + expected);
            }
            Set<String> names = new HashSet<>(s.getColumnsCount() * 2);
            for (int j = 0; j < s.getColumnsCount(); j++) {
                String name = s.getColumns(j).getName();
                if (name.isEmpty()) {
                    throw new ProtocolViolationException(COLUMN_NAME_BLANK, field + ".columns[" + j + "].name",
                            id.txKey(), "column " + j + " of " + s.getRelation().getTable() + " has no name");
                }
                if (!names.add(name)) {
                    throw new ProtocolViolationException(COLUMN_NAME_DUPLICATE, field + ".columns[" + j + "].name",
                            id.txKey(), "column '" + name + "' of " + s.getRelation().getTable() + " is listed twice");
                }
            }
        }
    }

    /**
     * Names a list element only when an error needs it: building "changes[123].after" for every change on
     * the success path would allocate several strings per change.
     */
    private record Field(String list, int index) {
        String at(String suffix) {
            return list + "[" + index + "]" + suffix;
        }

        @Override
        public String toString() {
            return at("");
        }
    }

    private static void ascending(Identity id, Field field, long order, long previous) {
        if (order == 0) {
            throw new ProtocolViolationException(TOTAL_ORDER_ZERO, field.at(".total_order"), id.txKey(),
                    "total_order is 0");
        }
        if (Long.compareUnsigned(order, previous) == 0) {
            throw new ProtocolViolationException(DUPLICATE_TOTAL_ORDER, field.at(".total_order"), id.eventKey(order),
                    "total_order " + order + " repeats");
        }
        if (Long.compareUnsigned(order, previous) < 0) {
            throw new ProtocolViolationException(TOTAL_ORDER_NOT_ASCENDING, field.at(".total_order"),
                    id.eventKey(order), "total_order " + order + " follows " + previous);
        }
    }

    /** Both lists ascend, so one merge pass finds a total_order they share. */
    private static void noSharedTotalOrder(Identity id, List<ChangeRecord> changes, List<DdlEvent> ddl,
                                           String fieldPrefix) {
        int i = 0;
        int j = 0;
        while (i < changes.size() && j < ddl.size()) {
            int cmp = Long.compareUnsigned(changes.get(i).getTotalOrder(), ddl.get(j).getTotalOrder());
            if (cmp == 0) {
                long order = ddl.get(j).getTotalOrder();
                throw new ProtocolViolationException(DUPLICATE_TOTAL_ORDER,
                        fieldPrefix + "ddl_events[" + j + "].total_order", id.eventKey(order),
                        "total_order " + order + " is used by changes[" + i + "] and ddl_events[" + j + "]");
            }
            if (cmp < 0) {
                i++;
            } else {
                j++;
            }
        }
    }

    private static void requireNoGap(Identity id, List<ChangeRecord> changes, List<DdlEvent> ddl, long events) {
        long maxChange = changes.isEmpty() ? 0 : changes.get(changes.size() - 1).getTotalOrder();
        long maxDdl = ddl.isEmpty() ? 0 : ddl.get(ddl.size() - 1).getTotalOrder();
        long max = Long.compareUnsigned(maxChange, maxDdl) >= 0 ? maxChange : maxDdl;
        // ascending, unique and 1-based: the largest equals the count exactly when nothing is missing
        if (max != events) {
            throw new ProtocolViolationException(TOTAL_ORDER_GAP, "changes", id.txKey(),
                    events + " events but the highest total_order is " + Long.toUnsignedString(max));
        }
    }

    private static void change(Identity id, ChangeRecord c, Field f, Versions versions) {
        long order = c.getTotalOrder();
        if (!c.hasRelation() || c.getRelation().getSchema().isEmpty() || c.getRelation().getTable().isEmpty()) {
            throw new ProtocolViolationException(RELATION_MISSING, f.at(".relation"), id.eventKey(order),
                    "relation schema or table is empty");
        }
        Operation op = c.getOperation();
        if (op == Operation.OPERATION_UNSPECIFIED || op == Operation.UNRECOGNIZED) {
            throw new ProtocolViolationException(OPERATION_UNSPECIFIED, f.at(".operation"), id.eventKey(order),
                    "operation is " + op);
        }
        ReplicaIdentity ri = c.getReplicaIdentity();
        if (ri == ReplicaIdentity.REPLICA_IDENTITY_UNSPECIFIED || ri == ReplicaIdentity.UNRECOGNIZED) {
            throw new ProtocolViolationException(REPLICA_IDENTITY_UNSPECIFIED, f.at(".replica_identity"),
                    id.eventKey(order), "replica_identity is " + ri);
        }
        if (op == Operation.OPERATION_TRUNCATE) {
            return;
        }
        if (!versions.resolve(c)) {
            throw new ProtocolViolationException(SCHEMA_VERSION_MISSING, f.at(".relation"), id.eventKey(order),
                    SchemaVersions.whyMissing(c, versions.schemas));
        }
        if (c.hasBefore()) {
            columns(id, c.getBefore(), f, ".before", order, versions.columnCount);
        }
        if (c.hasAfter()) {
            columns(id, c.getAfter(), f, ".after", order, versions.columnCount);
        }
        switch (op) {
            case OPERATION_INSERT -> requireImage(id, c.hasAfter(), f, ".after", order);
            case OPERATION_UPDATE -> {
                requireImage(id, c.hasAfter(), f, ".after", order);
                identifyingKey(id, c.hasBefore() ? c.getBefore() : c.getAfter(), f,
                        c.hasBefore() ? ".before" : ".after", order, versions, ri);
            }
            case OPERATION_DELETE -> {
                requireImage(id, c.hasBefore(), f, ".before", order);
                identifyingKey(id, c.getBefore(), f, ".before", order, versions, ri);
            }
            default -> throw new IllegalStateException(op.toString());
        }
    }

    private static void requireImage(Identity id, boolean present, Field f, String image, long order) {
        if (!present) {
            String field = f.at(image);
            throw new ProtocolViolationException(ROW_IMAGE_MISSING, field, id.eventKey(order), field + " is absent");
        }
    }

    /** A row image is positional: one column per column of its schema version, each with a state. */
    private static void columns(Identity id, RowImage image, Field f, String imageName, long order,
                                int columnCount) {
        if (image.getColumnsCount() != columnCount) {
            throw new ProtocolViolationException(ROW_IMAGE_COLUMN_COUNT_MISMATCH, f.at(imageName + ".columns"),
                    id.eventKey(order), "the image carries " + image.getColumnsCount() + " columns, its schema"
                            + " version " + columnCount);
        }
        for (int i = 0; i < columnCount; i++) {
            ColumnState state = image.getColumns(i).getState();
            if (state == ColumnState.COLUMN_STATE_UNSPECIFIED || state == ColumnState.UNRECOGNIZED) {
                throw new ProtocolViolationException(COLUMN_STATE_UNSPECIFIED,
                        f.at(imageName + ".columns[" + i + "].state"), id.eventKey(order),
                        "column " + i + " has no state");
            }
        }
    }

    /**
     * Update and delete must identify the row: every key column of the schema version (ColumnDefinition.key) has
     * a value in the identifying image; a relation without key columns is identified only by a full old row
     * under REPLICA IDENTITY FULL.
     */
    private static void identifyingKey(Identity id, RowImage image, Field f, String imageName, long order,
                                       Versions versions, ReplicaIdentity ri) {
        int[] keys = versions.keyPositions;
        if (keys.length == 0) {
            if (ri == ReplicaIdentity.REPLICA_IDENTITY_FULL && image.getColumnsCount() > 0) {
                return; // the whole old row identifies it
            }
            throw new ProtocolViolationException(MISSING_KEY_COLUMN, f.at(imageName), id.eventKey(order),
                    "the relation has no key columns and the change carries no full old row");
        }
        for (int k : keys) {
            ColumnState state = image.getColumns(k).getState();
            if (state != ColumnState.COLUMN_STATE_VALUE) {
                throw new ProtocolViolationException(MISSING_KEY_COLUMN, f.at(imageName + ".columns[" + k + "]"),
                        id.eventKey(order), "key column '" + versions.version.getColumns(k).getName() + "' is "
                                + state);
            }
        }
    }

    /**
     * The schema version each change follows ({@link SchemaVersions#of}), with its column count and key positions;
     * remembers the last one (changes of one relation cluster).
     */
    private static final class Versions {
        final List<SchemaVersion> schemas;
        SchemaVersion version;
        /** {@code version} is its relation's only one in the message (a change naming no fingerprint follows it). */
        boolean onlyVersion;
        int columnCount;
        int[] keyPositions;

        Versions(List<SchemaVersion> schemas) {
            this.schemas = schemas;
        }

        /** Points at {@code c}'s schema version; false when it has none. */
        boolean resolve(ChangeRecord c) {
            if (version != null && SchemaVersions.describes(version, c.getRelation())
                    && (c.getSchemaFingerprint().isEmpty() ? onlyVersion
                    : c.getSchemaFingerprint().equals(version.getFingerprint()))) {
                return true;
            }
            SchemaVersion v = SchemaVersions.of(c, schemas);
            if (v == null) {
                return false;
            }
            if (v != version) {
                version = v;
                onlyVersion = SchemaVersions.count(c.getRelation(), schemas) == 1;
                columnCount = v.getColumnsCount();
                keyPositions = SchemaVersions.keyPositions(v);
            }
            return true;
        }
    }
}
