package io.trellara.source.snapshot;

/**
 * How an initial snapshot reads its tables.
 *
 * @param maxThreads connections reading tables at once ({@code snapshot.max.threads})
 * @param keyRangeRows rows per key range of a table read in key order ({@code
 *     snapshot.key.range.rows}); 0 reads every table in one COPY, in storage order
 */
public record SnapshotReads(int maxThreads, long keyRangeRows) {
  public static final long DEFAULT_KEY_RANGE_ROWS = 100_000;

  /** One connection, key order in ranges of the default size. */
  public static final SnapshotReads DEFAULT = new SnapshotReads(1, DEFAULT_KEY_RANGE_ROWS);
}
