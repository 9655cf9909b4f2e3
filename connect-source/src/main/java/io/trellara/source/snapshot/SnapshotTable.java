package io.trellara.source.snapshot;

import java.util.List;

/**
 * A captured table as the snapshot reads it, described the way pgoutput's Relation message
 * describes it: its live, non-generated columns in attnum order, each flagged when part of the
 * replica identity (every column under REPLICA IDENTITY FULL, as pgoutput flags them).
 *
 * @param replicaIdentity pg_class.relreplident: d, n, f or i
 * @param partitioned relkind 'p': read through a query, since COPY cannot read a partitioned table
 *     directly
 * @param estimatedRows pg_class.reltuples (negative: never analysed), for the progress estimate
 *     only
 * @param rowFilter the publication's row filter (PostgreSQL 15+), the catalog's own expression
 *     text; null: none
 * @param orderKey the columns of the table's unique key the snapshot reads it in the order of (its
 *     primary key, or its replica identity index), in the index's column order; empty: the table
 *     has none usable and is read in one COPY, in storage order
 */
public record SnapshotTable(
    long oid,
    String schema,
    String name,
    char replicaIdentity,
    boolean partitioned,
    long estimatedRows,
    String rowFilter,
    List<Column> columns,
    List<KeyColumn> orderKey) {

  public record Column(String name, long typeOid, int typeModifier, boolean key) {}

  /**
   * A column of the order key.
   *
   * @param column its index in {@link #columns()}: where the COPY row carries it
   * @param type its type as format_type() spells it without modifier, to cast the last key read
   *     back to
   */
  public record KeyColumn(int column, String type) {}

  public String display() {
    return schema + "." + name;
  }
}
