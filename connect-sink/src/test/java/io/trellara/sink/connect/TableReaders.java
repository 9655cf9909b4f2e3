package io.trellara.sink.connect;

import io.trellara.testplatform.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Readers of every loaded table while the sink loads or replaces them, as an application would read
 * its target: one at READ COMMITTED every 50 ms, each read with {@code lock_timeout = 1s} (a read
 * that waits longer for a lock the sink holds fails and is counted), and one at REPEATABLE READ
 * that keeps each transaction open for a second of reads and counts every read that finds a table
 * empty after it had seen rows (a TRUNCATE a snapshot predates is seen through).
 */
final class TableReaders implements AutoCloseable {
  private final AtomicBoolean reading = new AtomicBoolean(true);
  private final AtomicLong reads = new AtomicLong();
  private final AtomicLong lockedOut = new AtomicLong();
  private final AtomicLong seenEmpty = new AtomicLong();
  private final AtomicLong longestReadMillis = new AtomicLong();
  private final List<String> problems = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();

  TableReaders(PostgresDatabase target, List<String> tables) {
    threads.add(new Thread(() -> readCommitted(target, tables), "reader-read-committed"));
    threads.add(new Thread(() -> repeatableRead(target, tables), "reader-repeatable-read"));
    threads.forEach(Thread::start);
  }

  private void readCommitted(PostgresDatabase target, List<String> tables) {
    try (Connection c = target.connect();
        Statement s = c.createStatement()) {
      s.execute("SET lock_timeout = '1s'");
      while (reading.get()) {
        for (String t : tables) {
          long started = System.nanoTime();
          try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + t)) {
            rs.next();
          } catch (SQLException e) {
            if ("55P03".equals(e.getSQLState())) {
              lockedOut.incrementAndGet();
            } else {
              problem("read of " + t + ": " + e);
            }
          }
          longestReadMillis.accumulateAndGet((System.nanoTime() - started) / 1_000_000L, Math::max);
          reads.incrementAndGet();
        }
        LockSupport.parkNanos(50_000_000L);
      }
    } catch (SQLException e) {
      problem("reader connection: " + e);
    }
  }

  private void repeatableRead(PostgresDatabase target, List<String> tables) {
    try (Connection c = target.connect()) {
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      try (Statement s = c.createStatement()) {
        while (reading.get()) {
          s.execute("SET LOCAL lock_timeout = '1s'");
          boolean[] hadRows = new boolean[tables.size()];
          long until = System.nanoTime() + 1_000_000_000L;
          while (reading.get() && System.nanoTime() < until) {
            for (int i = 0; i < tables.size(); i++) {
              try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + tables.get(i))) {
                rs.next();
                long n = rs.getLong(1);
                if (n == 0 && hadRows[i]) {
                  seenEmpty.incrementAndGet();
                }
                hadRows[i] |= n > 0;
              }
            }
            LockSupport.parkNanos(50_000_000L);
          }
          c.commit();
        }
      }
    } catch (SQLException e) {
      if ("55P03".equals(e.getSQLState())) {
        lockedOut.incrementAndGet();
      } else {
        problem("repeatable read reader: " + e);
      }
    }
  }

  private synchronized void problem(String p) {
    problems.add(p);
  }

  long reads() {
    return reads.get();
  }

  /** Reads that waited over 1 s for a lock. */
  long lockedOut() {
    return lockedOut.get();
  }

  /** REPEATABLE READ reads that found a table empty after seeing it with rows. */
  long seenEmpty() {
    return seenEmpty.get();
  }

  long longestReadMillis() {
    return longestReadMillis.get();
  }

  synchronized List<String> problems() {
    return List.copyOf(problems);
  }

  @Override
  public void close() throws InterruptedException {
    reading.set(false);
    for (Thread t : threads) {
      t.join();
    }
  }
}
