package io.trellara.source.snapshot;

import java.util.List;

/**
 * A captured table as the snapshot reads it, described the way pgoutput's Relation message describes it: its
 * live, non-generated columns in attnum order, each flagged when part of the replica identity (every column
 * under REPLICA IDENTITY FULL, as pgoutput flags them).
 *
 * @param replicaIdentity pg_class.relreplident: d, n, f or i
 * @param partitioned     relkind 'p': read through a query, since COPY cannot read a partitioned table directly
 * @param estimatedRows   pg_class.reltuples (negative: never analysed), for the progress estimate only
 * @param rowFilter       the publication's row filter (PostgreSQL 15+), the catalog's own expression text; null: none
 */
public record SnapshotTable(long oid, String schema, String name, char replicaIdentity, boolean partitioned,
                            long estimatedRows, String rowFilter, List<Column> columns) {

    public record Column(String name, long typeOid, int typeModifier, boolean key) {
    }

    public String display() {
        return schema + "." + name;
    }
}
