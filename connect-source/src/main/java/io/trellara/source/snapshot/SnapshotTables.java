package io.trellara.source.snapshot;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** What a snapshot reads: the publication's tables, read from the catalogue inside the snapshot. */
final class SnapshotTables {
  private SnapshotTables() {}

  /**
   * The tables of {@code publication} as of the snapshot {@code c} is in, each described as
   * pgoutput describes it: columns (the publication's column list), key flags, row filter, and the
   * key to read it in order of.
   */
  static List<SnapshotTable> of(Connection c, String publication) throws SQLException {
    int major = c.getMetaData().getDatabaseMajorVersion();
    List<SnapshotTable> tables = new ArrayList<>();
    List<String[]> columnLists = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT c.oid, n.nspname, c.relname, c.relreplident,"
                + " c.relkind, c.reltuples::bigint"
                + (major >= 15 ? ", t.attnames, t.rowfilter" : ", NULL::name[], NULL")
                + " FROM pg_publication_tables t JOIN pg_namespace n ON n.nspname = t.schemaname"
                + " JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename"
                + " WHERE t.pubname = ? ORDER BY n.nspname, c.relname")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          tables.add(
              new SnapshotTable(
                  rs.getLong(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4).charAt(0),
                  "p".equals(rs.getString(5)),
                  rs.getLong(6),
                  rs.getString(8),
                  List.of(),
                  List.of()));
          Array names = rs.getArray(7);
          columnLists.add(names == null ? null : (String[]) names.getArray());
        }
      }
    }
    List<SnapshotTable> described = new ArrayList<>(tables.size());
    for (int i = 0; i < tables.size(); i++) {
      SnapshotTable t = tables.get(i);
      List<SnapshotTable.Column> columns = columns(c, t, columnLists.get(i), major);
      described.add(
          new SnapshotTable(
              t.oid(),
              t.schema(),
              t.name(),
              t.replicaIdentity(),
              t.partitioned(),
              t.estimatedRows(),
              t.rowFilter(),
              columns,
              orderKey(c, t, columns, major)));
    }
    return described;
  }

  private static List<SnapshotTable.Column> columns(
      Connection c, SnapshotTable t, String[] published, int major) throws SQLException {
    Set<String> only = published == null ? null : new HashSet<>(Arrays.asList(published));
    List<SnapshotTable.Column> columns = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT a.attname, a.atttypid, a.atttypmod,"
                + " (c.relreplident = 'f' OR EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid"
                + "   AND a.attnum = ANY (i.indkey) AND ((c.relreplident = 'd' AND i.indisprimary)"
                + "   OR (c.relreplident = 'i' AND i.indisreplident))))"
                + " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
                + " WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped"
                + (major >= 12 ? " AND a.attgenerated = ''" : "")
                + " ORDER BY a.attnum")) {
      ps.setLong(1, t.oid());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (only == null || only.contains(rs.getString(1))) {
            columns.add(
                new SnapshotTable.Column(
                    rs.getString(1), rs.getLong(2), rs.getInt(3), rs.getBoolean(4)));
          }
        }
      }
    }
    return columns;
  }

  /**
   * The unique key to read {@code t} in the order of: its replica identity index under REPLICA
   * IDENTITY USING INDEX, else its primary key; in the index's column order, so the range scans use
   * the index. Empty (read in storage order) when it has none, when a key column is not published
   * (column list), or when the index orders by another operator class or collation than a plain
   * ORDER BY would (the ranges would then sort the table instead of scanning the index).
   */
  private static List<SnapshotTable.KeyColumn> orderKey(
      Connection c, SnapshotTable t, List<SnapshotTable.Column> columns, int major)
      throws SQLException {
    List<SnapshotTable.KeyColumn> key = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT a.attname, format_type(a.atttypid, NULL),"
                + " o.opcdefault AND k.coll = a.attcollation"
                + " FROM pg_class c JOIN pg_index i ON i.indrelid = c.oid AND CASE WHEN c.relreplident = 'i'"
                + "   THEN i.indisreplident ELSE i.indisprimary END"
                + " CROSS JOIN LATERAL unnest(i.indkey::int2[], i.indclass::oid[], i.indcollation::oid[])"
                + "   WITH ORDINALITY AS k(attnum, opclass, coll, ord)"
                + " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum"
                + " JOIN pg_opclass o ON o.oid = k.opclass"
                + " WHERE c.oid = ? AND k.ord <= "
                + (major >= 11 ? "i.indnkeyatts" : "i.indnatts")
                + " ORDER BY k.ord")) {
      ps.setLong(1, t.oid());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          int column = indexOf(columns, rs.getString(1));
          if (column < 0 || !rs.getBoolean(3)) {
            return List.of();
          }
          key.add(new SnapshotTable.KeyColumn(column, rs.getString(2)));
        }
      }
    }
    return List.copyOf(key);
  }

  private static int indexOf(List<SnapshotTable.Column> columns, String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }
}
