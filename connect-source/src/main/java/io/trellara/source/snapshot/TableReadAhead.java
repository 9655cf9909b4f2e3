package io.trellara.source.snapshot;

import io.trellara.protocol.LogText;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code snapshot.max.threads} above 1: helper connections, each inside the same exported snapshot,
 * read tables ahead of the thread that publishes the snapshot, each table's {@code COPY} rows into
 * a file of its own in the spill directory (memory holds one row per helper). The publishing thread
 * takes a finished table when one is there, reads the next pending table itself otherwise, and
 * waits for a helper only when nothing is pending: every table is still published whole, one after
 * the other, as one snapshot transaction.
 */
final class TableReadAhead implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableReadAhead.class);

  /** A table a helper read: its rows, framed by their length, in {@code file}. */
  record ReadTable(SnapshotTable table, Path file, long rows) {}

  private final Deque<SnapshotTable> pending;
  private final List<Connection> helpers;
  private final Path directory;
  private final SnapshotProgress progress;
  private final BooleanSupplier running;
  private final long rangeRows;
  private final LinkedBlockingQueue<Object> finished = new LinkedBlockingQueue<>();
  private final List<Path> files = new ArrayList<>();
  private final ExecutorService pool;

  TableReadAhead(
      Deque<SnapshotTable> pending,
      List<Connection> helpers,
      Path directory,
      SnapshotProgress progress,
      BooleanSupplier running,
      long rangeRows) {
    this.pending = pending;
    this.helpers = helpers;
    this.directory = directory;
    this.progress = progress;
    this.running = running;
    this.rangeRows = rangeRows;
    int[] n = {0};
    this.pool =
        Executors.newFixedThreadPool(
            helpers.size(),
            r -> {
              Thread t = new Thread(r, "trellara-snapshot-read-" + ++n[0]);
              t.setDaemon(true);
              return t;
            });
    for (Connection c : helpers) {
      pool.execute(() -> readWhilePending(c));
    }
  }

  /** The next pending table for the publishing thread to read itself; null when none is left. */
  SnapshotTable nextPending() {
    synchronized (pending) {
      return pending.poll();
    }
  }

  /**
   * A table a helper finished; null when none is finished now and {@code wait} is false. Waiting,
   * it returns once a helper finishes one (the caller waits only for tables a helper took), and
   * throws what a helper failed with.
   */
  ReadTable finished(boolean wait) throws SQLException {
    while (true) {
      Object o;
      try {
        o = finished.poll(wait ? 500 : 0, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SnapshotReader.SnapshotCancelledException("interrupted during the snapshot");
      }
      if (o instanceof ReadTable r) {
        return r;
      }
      if (o instanceof SQLException e) {
        throw e;
      }
      if (o instanceof RuntimeException e) {
        throw e;
      }
      if (!wait) {
        return null;
      }
      if (!running.getAsBoolean()) {
        throw new SnapshotReader.SnapshotCancelledException("the task stopped during the snapshot");
      }
    }
  }

  private void readWhilePending(Connection c) {
    try {
      SnapshotTable t;
      while (running.getAsBoolean()) {
        synchronized (pending) {
          t = pending.poll();
          if (t == null) {
            return;
          }
        }
        finished.add(read(c, t));
      }
    } catch (SQLException | RuntimeException e) {
      finished.add(e);
    } catch (IOException e) {
      finished.add(new UncheckedIOException(e));
    }
  }

  private ReadTable read(Connection c, SnapshotTable t) throws SQLException, IOException {
    long started = System.currentTimeMillis();
    Path file = Files.createTempFile(directory, "trellara-snapshot-", ".rows");
    synchronized (files) {
      files.add(file);
    }
    long rows;
    try (DataOutputStream out =
        new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16))) {
      long[] n = {0};
      rows =
          TableCopy.read(
              c,
              t,
              rangeRows,
              row -> {
                out.writeInt(row.length);
                out.write(row);
                progress.row(row.length);
                if ((++n[0] & 1023) == 0 && !running.getAsBoolean()) {
                  throw new SnapshotReader.SnapshotCancelledException(
                      "the task stopped during the snapshot of " + t.display());
                }
              });
    }
    LOG.info(
        "Snapshot read table {} ahead: {} rows in {} ms",
        LogText.escape(t.display()),
        rows,
        System.currentTimeMillis() - started);
    return new ReadTable(t, file, rows);
  }

  /**
   * Hands each row of {@code r} to {@code row} (a reused buffer and its length), then deletes its
   * file.
   */
  void replay(ReadTable r, RowSink row) throws IOException {
    byte[] buffer = new byte[8192];
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(r.file()), 1 << 16))) {
      for (long i = 0; i < r.rows(); i++) {
        int length = in.readInt();
        if (length > buffer.length) {
          buffer = new byte[Math.max(length, buffer.length * 2)];
        }
        in.readFully(buffer, 0, length);
        row.accept(buffer, length, i);
      }
    }
    Files.deleteIfExists(r.file());
  }

  @FunctionalInterface
  interface RowSink {
    void accept(byte[] row, int length, long index);
  }

  /** Stops the helpers, ends their snapshot transactions, deletes what was not replayed. */
  @Override
  public void close() {
    pool.shutdownNow();
    try {
      pool.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Connection c : helpers) {
      try {
        c.close();
      } catch (SQLException e) {
        LOG.debug("Closing a snapshot helper connection: {}", e.toString());
      }
    }
    synchronized (files) {
      for (Path f : files) {
        try {
          Files.deleteIfExists(f);
        } catch (IOException e) {
          LOG.warn("Cannot delete snapshot read-ahead file {}: {}", f, e.toString());
        }
      }
    }
  }
}
