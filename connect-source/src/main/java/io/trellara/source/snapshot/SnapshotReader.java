package io.trellara.source.snapshot;

import io.trellara.connect.common.SessionTimeouts;
import io.trellara.protocol.LogText;
import io.trellara.protocol.Lsn;
import io.trellara.source.pg.PgEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every table of the publication inside the exported snapshot and hands each row on to the
 * snapshot transaction's {@link SnapshotEvents}, table after table, each whole and contiguous. Rows
 * come from {@code COPY ... TO STDOUT} (PostgreSQL's fastest way out, as its own table
 * synchronisation uses), honouring the publication's column lists and row filters as pgoutput does.
 * Memory holds one row at a time: the pipeline publishes the snapshot's chunks as they fill.
 */
public final class SnapshotReader {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotReader.class);

  /**
   * Exported snapshot names are hex groups joined by dashes; anything else is never put into SQL.
   */
  private static final Pattern SNAPSHOT_NAME = Pattern.compile("[0-9A-Fa-f]+(-[0-9A-Fa-f]+)+");

  static final long PROGRESS_LOG_INTERVAL_MS = 5_000;

  private final PgEndpoint endpoint;
  private final String publication;
  private final SnapshotProgress progress;
  private final BooleanSupplier running;
  private final int threads;
  private final long rangeRows;
  private final Path spillDirectory;
  private Function<List<SnapshotTable>, List<SnapshotTable>> selection = all -> all;

  /** The connections reading now, which {@link #abort} closes under their reads. */
  private final List<Connection> open = new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * @param threads connections reading tables at once ({@code snapshot.max.threads}); above 1,
   *     helpers read ahead into files in {@code spillDirectory} (see {@link TableReadAhead})
   * @param rangeRows rows per key range of a table read in key order ({@code
   *     snapshot.key.range.rows}; 0: every table in one COPY, in storage order; see {@link
   *     TableCopy})
   */
  public SnapshotReader(
      PgEndpoint endpoint,
      String publication,
      SnapshotProgress progress,
      BooleanSupplier running,
      int threads,
      long rangeRows,
      Path spillDirectory) {
    this.endpoint = endpoint;
    this.publication = publication;
    this.progress = progress;
    this.running = running;
    this.threads = Math.max(1, threads);
    this.rangeRows = rangeRows;
    this.spillDirectory = spillDirectory;
  }

  /**
   * Reads only what {@code select} makes of the publication's tables (an online snapshot: the
   * tables a signal names, a row filter added to each).
   */
  public SnapshotReader selecting(Function<List<SnapshotTable>, List<SnapshotTable>> select) {
    this.selection = select;
    return this;
  }

  /**
   * Imports {@code exported}'s snapshot, closes the replication connection that exported it (the
   * import holds the snapshot from then on), and hands every row of it to {@code feed}. Returns the
   * rows read; the caller commits the snapshot transaction.
   */
  public long read(ExportedSnapshot exported, SnapshotEvents feed) throws SQLException {
    if (!SNAPSHOT_NAME.matcher(exported.snapshotName()).matches()) {
      throw new SQLException("unexpected exported snapshot name '" + exported.snapshotName() + "'");
    }
    List<Connection> helpers = new ArrayList<>();
    Connection c = open(exported);
    try {
      List<SnapshotTable> tables = selection.apply(tables(c));
      // helpers only when there are tables for them; each imports the snapshot while it is still
      // exported
      for (int i = 1; i < Math.min(threads, tables.size()); i++) {
        helpers.add(open(exported));
      }
      exported.close();
      long estimated = tables.stream().mapToLong(t -> Math.max(0, t.estimatedRows())).sum();
      long now = System.currentTimeMillis();
      progress.started(tables.size(), estimated, now);
      LOG.info(
          "{} of publication {} begins at consistent point {}: {} tables, about {} rows, {}"
              + " connection(s) reading",
          progress.label(),
          publication,
          Lsn.format(exported.consistentPoint()),
          tables.size(),
          estimated,
          1 + helpers.size());
      long[] lastLog = {now};
      if (helpers.isEmpty()) {
        for (SnapshotTable t : tables) {
          readTable(c, t, feed, lastLog);
        }
      } else {
        List<SnapshotTable> largestFirst = new ArrayList<>(tables);
        largestFirst.sort(Comparator.comparingLong(SnapshotTable::estimatedRows).reversed());
        readInParallel(c, new ArrayDeque<>(largestFirst), helpers, tables.size(), feed, lastLog);
        helpers.clear(); // closed by the read-ahead
      }
      c.commit();
      progress.ended(true, System.currentTimeMillis());
      LOG.info("{} read: {}", progress.label(), progress.summary(System.currentTimeMillis()));
      return progress.rows();
    } catch (SQLException | RuntimeException e) {
      progress.ended(false, System.currentTimeMillis());
      throw e;
    } finally {
      for (Connection h : helpers) {
        closeQuietly(h);
      }
      closeQuietly(c);
      open.clear(); // the read-ahead closed its helpers
    }
  }

  /** A pinned connection inside the exported snapshot (REPEATABLE READ, READ ONLY). */
  private Connection open(ExportedSnapshot exported) throws SQLException {
    // the name trellara status looks for in pg_stat_progress_copy
    Connection c = endpoint.connectPinned("trellara-snapshot:" + exported.slotName());
    open.add(c);
    try {
      try (Statement st = c.createStatement()) {
        // a COPY lasts as long as the pipeline takes its rows, a connection waits in its
        // transaction while
        // read-ahead tables are published, and the snapshot's transaction lasts the whole load:
        // none of
        // them may be cut by the role's or the database's timeouts
        st.execute(SessionTimeouts.OFF);
      }
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        st.execute("SET TRANSACTION SNAPSHOT '" + exported.snapshotName() + "'");
      }
      return c;
    } catch (SQLException | RuntimeException e) {
      closeQuietly(c);
      throw e;
    }
  }

  /**
   * Aborts every connection of the read (another thread: the watchdog's), so a read blocked on a
   * server that stopped answering ends with an error.
   */
  public void abort() {
    for (Connection c : open) {
      try {
        c.abort(Runnable::run);
      } catch (SQLException | RuntimeException e) {
        LOG.debug("Aborting a snapshot connection: {}", e.toString());
      }
    }
  }

  private void closeQuietly(Connection c) {
    open.remove(c);
    try {
      c.close();
    } catch (SQLException ignored) {
      // leaving the snapshot: nothing of it is written
    }
  }

  /**
   * Publishes each table whole: one a helper finished when there is one, else the next pending one
   * read here.
   */
  private void readInParallel(
      Connection c,
      Deque<SnapshotTable> pending,
      List<Connection> helpers,
      int total,
      SnapshotEvents feed,
      long[] lastLog)
      throws SQLException {
    SnapshotTable first =
        pending.poll(); // the largest: read here, straight into the pipeline, no file
    try (TableReadAhead ahead =
        new TableReadAhead(
            pending, List.copyOf(helpers), spillDirectory, progress, running, rangeRows)) {
      readTable(c, first, feed, lastLog);
      for (int published = 1; published < total; published++) {
        TableReadAhead.ReadTable done = ahead.finished(false);
        if (done == null) {
          SnapshotTable t = ahead.nextPending();
          if (t != null) {
            readTable(c, t, feed, lastLog);
            continue;
          }
          done = ahead.finished(true);
        }
        replay(ahead, done, feed);
      }
    }
  }

  private void replay(TableReadAhead ahead, TableReadAhead.ReadTable r, SnapshotEvents feed) {
    SnapshotTable t = r.table();
    progress.table(t.display());
    feed.table(t);
    try {
      ahead.replay(
          r,
          (row, length, i) -> {
            feed.row(row, length, false);
            progress.moved();
            if ((i & 1023) == 1023 && !running.getAsBoolean()) {
              throw new SnapshotCancelledException(
                  "the task stopped during the snapshot of " + t.display());
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read back the rows of " + t.display() + " read ahead", e);
    }
    progress.tableDone();
  }

  private void readTable(Connection c, SnapshotTable t, SnapshotEvents feed, long[] lastLog)
      throws SQLException {
    progress.table(t, rangeRows);
    long started = System.currentTimeMillis();
    feed.table(t);
    long[] rows = {0};
    try {
      TableCopy.read(
          c,
          t,
          rangeRows,
          row -> {
            feed.row(row, row.length, true); // pgjdbc gives each row an array of its own
            progress.row(row.length);
            if ((++rows[0] & 1023) == 0) {
              progress.tableRows(rows[0]);
              if (!running.getAsBoolean()) {
                throw new SnapshotCancelledException(
                    "the task stopped during the snapshot of " + t.display());
              }
              long now = System.currentTimeMillis();
              if (now - lastLog[0] >= PROGRESS_LOG_INTERVAL_MS) {
                lastLog[0] = now;
                LOG.info("{} in progress: {}", progress.label(), progress.summary(now));
              }
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e); // the consumer here writes no file
    }
    progress.tableRows(rows[0]);
    progress.tableDone();
    LOG.info(
        "{} read table {}: {} rows in {} ms{}",
        progress.label(),
        LogText.escape(t.display()),
        rows[0],
        System.currentTimeMillis() - started,
        order(t));
  }

  /** The publication's tables as of the snapshot, each described as pgoutput describes it. */
  List<SnapshotTable> tables(Connection c) throws SQLException {
    return SnapshotTables.of(c, publication);
  }

  /** How a table is read, for its log line. */
  String order(SnapshotTable t) {
    if (rangeRows <= 0) {
      return ", in storage order (snapshot.key.range.rows=0)";
    }
    return t.orderKey().isEmpty() ? ", in storage order (no usable key)" : ", in key order";
  }

  /**
   * The engine closed while the snapshot was being read: not a failure, nothing of it was
   * committed.
   */
  public static final class SnapshotCancelledException extends RuntimeException {
    SnapshotCancelledException(String message) {
      super(message);
    }
  }
}
