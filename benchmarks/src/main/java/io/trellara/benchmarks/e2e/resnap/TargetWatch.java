package io.trellara.benchmarks.e2e.resnap;

import io.trellara.testplatform.PostgresDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a user of the target sees while the big table loads, each on a connection of its own: W1's
 * lag (the newest visible transfer against the {@link CommitLog}, every {@code sampleMillis}),
 * backends of the target database waiting for a lock (same sample), a point reader of the big table
 * (a key lookup every 50 ms, timed) and a counting reader ({@code SELECT count(*)} in a loop,
 * timed, each count checked against the table's whole states: any other count is a read that saw
 * the table half loaded).
 */
final class TargetWatch implements AutoCloseable {
  private static final long POINT_PAUSE_MILLIS = 50;

  /** A reader's query never waits longer than this (every wait is bounded). */
  private static final String STATEMENT_TIMEOUT = "SET statement_timeout = '600s'";

  private final PostgresDatabase target;
  private final CommitLog commits;
  private final long sampleMillis;
  private final long countPauseMillis;
  private final long bigRows;
  private final Set<Long> wholeCounts;
  final Series lag = new Series();
  final Series lockWaiters = new Series();
  final Series pointReads = new Series();
  final Series countReads = new Series();
  private final AtomicInteger partialReads = new AtomicInteger();
  private final Set<Long> partialCounts = new TreeSet<>();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean running = true;

  /**
   * {@code wholeCounts}: the big table's row counts before and after its load; {@code bigRows}: the
   * point reader's keys are 1..bigRows.
   */
  TargetWatch(
      PostgresDatabase target,
      CommitLog commits,
      long sampleMillis,
      long countPauseMillis,
      long bigRows,
      Set<Long> wholeCounts) {
    this.target = target;
    this.commits = commits;
    this.sampleMillis = sampleMillis;
    this.countPauseMillis = countPauseMillis;
    this.bigRows = bigRows;
    this.wholeCounts = Set.copyOf(wholeCounts);
  }

  void start() {
    spawn("lag-sampler", this::sampleLag);
    spawn("point-reader", this::readPoints);
    spawn("count-reader", this::readCounts);
  }

  private interface Body {
    void run(Connection c) throws Exception;
  }

  private void spawn(String name, Body body) {
    Thread t =
        new Thread(
            () -> {
              try (Connection c = target.connect()) {
                try (Statement st = c.createStatement()) {
                  st.execute(STATEMENT_TIMEOUT);
                }
                body.run(c);
              } catch (Throwable e) {
                if (running) {
                  failure.compareAndSet(null, new IllegalStateException(name + " failed", e));
                }
              }
            },
            name);
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  private void sampleLag(Connection c) throws Exception {
    try (PreparedStatement applied =
            c.prepareStatement("SELECT coalesce(max(id), 0) FROM transfer");
        PreparedStatement waiting =
            c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND wait_event_type = 'Lock'")) {
      while (running) {
        long appliedId;
        try (ResultSet rs = applied.executeQuery()) {
          rs.next();
          appliedId = rs.getLong(1);
        }
        long now = System.nanoTime();
        lag.add(now, commits.lagNanos(appliedId, now));
        try (ResultSet rs = waiting.executeQuery()) {
          rs.next();
          lockWaiters.add(now, rs.getLong(1));
        }
        Thread.sleep(sampleMillis);
      }
    }
  }

  private void readPoints(Connection c) throws Exception {
    Random r = new Random(7);
    try (PreparedStatement lookup = c.prepareStatement("SELECT note FROM big WHERE id = ?")) {
      while (running) {
        lookup.setLong(1, 1 + (long) (r.nextDouble() * bigRows));
        long t = System.nanoTime();
        try (ResultSet rs = lookup.executeQuery()) {
          rs.next();
        }
        pointReads.add(t, System.nanoTime() - t);
        Thread.sleep(POINT_PAUSE_MILLIS);
      }
    }
  }

  private void readCounts(Connection c) throws Exception {
    try (Statement st = c.createStatement()) {
      // one core at most, as an application's query would usually get on a busy server
      st.execute("SET max_parallel_workers_per_gather = 0");
      while (running) {
        long t = System.nanoTime();
        long n;
        try (ResultSet rs = st.executeQuery("SELECT count(*) FROM big")) {
          rs.next();
          n = rs.getLong(1);
        }
        countReads.add(t, System.nanoTime() - t);
        if (!wholeCounts.contains(n)) {
          partialReads.incrementAndGet();
          synchronized (partialCounts) {
            if (partialCounts.size() < 5) {
              partialCounts.add(n);
            }
          }
        }
        Thread.sleep(countPauseMillis);
      }
    }
  }

  /** Counting reads that saw neither whole state of the big table. */
  int partialReads() {
    return partialReads.get();
  }

  /** Up to five of the counts those reads saw. */
  String partialCounts() {
    synchronized (partialCounts) {
      return partialCounts.toString();
    }
  }

  /** Fails the run if a watcher failed (a query error, a timeout). */
  void check() {
    if (failure.get() != null) {
      throw new IllegalStateException(failure.get().getMessage(), failure.get().getCause());
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    for (Thread t : threads) {
      t.join(TimeUnit.MINUTES.toMillis(11));
    }
  }
}
