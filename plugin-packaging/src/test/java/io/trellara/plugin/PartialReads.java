package io.trellara.plugin;

import io.trellara.testplatform.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A reader of the target, every 20 ms on a connection of its own, counting reads that saw some but
 * not all rows of a large transaction: {@code countQuery} must give 0 or {@code whole}, nothing in
 * between.
 */
final class PartialReads implements Runnable {
  private final PostgresDatabase target;
  private final String countQuery;
  private final long whole;
  private final AtomicBoolean running = new AtomicBoolean(true);
  final AtomicLong reads = new AtomicLong();
  final AtomicLong partial = new AtomicLong();

  PartialReads(PostgresDatabase target, String countQuery, long whole) {
    this.target = target;
    this.countQuery = countQuery;
    this.whole = whole;
  }

  void stop() {
    running.set(false);
  }

  @Override
  public void run() {
    try (Connection c = target.connect();
        Statement s = c.createStatement()) {
      while (running.get()) {
        try (ResultSet rs = s.executeQuery(countQuery)) {
          rs.next();
          long n = rs.getLong(1);
          reads.incrementAndGet();
          if (n != 0 && n != whole) {
            partial.incrementAndGet();
          }
        }
        LockSupport.parkNanos(20_000_000L);
      }
    } catch (SQLException e) {
      if (running.get()) {
        partial
            .incrementAndGet(); // the reader must run throughout; a failure counts against the test
      }
    }
  }
}
