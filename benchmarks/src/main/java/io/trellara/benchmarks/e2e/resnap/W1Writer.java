package io.trellara.benchmarks.e2e.resnap;

import io.trellara.testplatform.PostgresDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * W1 (PLATFORM.md's transfer workload: 2 updates + 2 inserts a transaction, one client) on a thread
 * of its own, at {@code rate} transactions a second (0: as fast as the client can), each COMMIT's
 * return noted in the {@link CommitLog} under the last transfer id it inserted.
 */
final class W1Writer implements AutoCloseable {
  static final String[] SCHEMA = {
    "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL)",
    "CREATE TABLE transfer (id bigserial PRIMARY KEY, src int, dst int, amount int)",
    "INSERT INTO account SELECT g, 1000000 FROM generate_series(1, 1000) g"
  };

  private final PostgresDatabase source;
  private final int rate;
  private final CommitLog log = new CommitLog();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private volatile boolean running = true;
  private Thread thread;

  W1Writer(PostgresDatabase source, int rate) {
    this.source = source;
    this.rate = rate;
  }

  CommitLog log() {
    return log;
  }

  void start() {
    thread = new Thread(this::loop, "w1-writer");
    thread.setDaemon(true);
    thread.start();
  }

  private void loop() {
    Random r = new Random(1);
    long period = rate > 0 ? TimeUnit.SECONDS.toNanos(1) / rate : 0;
    long next = System.nanoTime();
    try (Connection c = source.connect();
        PreparedStatement debit =
            c.prepareStatement("UPDATE account SET balance = balance - 5 WHERE id = ?");
        PreparedStatement credit =
            c.prepareStatement("UPDATE account SET balance = balance + 5 WHERE id = ?");
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO transfer (src, dst, amount) VALUES (?, ?, 5), (?, ?, 0) RETURNING id")) {
      c.setAutoCommit(false);
      while (running) {
        if (period > 0) {
          long wait = next - System.nanoTime();
          if (wait > 0) {
            LockSupport.parkNanos(wait);
          }
          // behind (the box is busy): carry on at the rate from now, no burst to catch up
          next = Math.max(next + period, System.nanoTime() - period);
        }
        int a = 1 + r.nextInt(1000);
        int b = 1 + r.nextInt(1000);
        debit.setInt(1, a);
        debit.executeUpdate();
        credit.setInt(1, b);
        credit.executeUpdate();
        insert.setInt(1, a);
        insert.setInt(2, b);
        insert.setInt(3, b);
        insert.setInt(4, a);
        long last = 0;
        try (ResultSet rs = insert.executeQuery()) {
          while (rs.next()) {
            last = Math.max(last, rs.getLong(1));
          }
        }
        c.commit();
        log.committed(last, System.nanoTime());
      }
    } catch (Throwable t) {
      failure.set(t);
    }
  }

  /** Stops the writer; fails if it failed. Returns the transactions it committed. */
  int stop() throws InterruptedException {
    running = false;
    if (thread != null) {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    }
    if (failure.get() != null) {
      throw new IllegalStateException("W1 writer failed", failure.get());
    }
    return log.size();
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    if (thread != null) {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    }
  }
}
