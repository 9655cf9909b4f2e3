package io.trellara.plugin.crash;

import io.trellara.plugin.crash.Findings.Violation;
import io.trellara.testplatform.PostgresDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Readers of the target, each on a connection of its own, for the whole sequence:
 *
 * <ul>
 *   <li>the invariant reader: every 50 ms one statement (one snapshot) reading the bank's total,
 *       account 0 against the newest transfer, the newest large transaction against its rows, and
 *       every table the snapshot loads (0 or all of its rows): only a partly applied transaction
 *       breaks any of it; and a table it saw loaded must never be seen empty again;
 *   <li>a REPEATABLE READ reader: takes a snapshot, waits 100–600 ms, then reads the same twice: a
 *       table that an earlier read saw loaded must not be empty under the later snapshot, and the
 *       two reads must be equal (TRUNCATE and table swaps are not MVCC-safe: they break this);
 *   <li>a sampler: a read in flight over 300 ms is looked up in {@code pg_stat_activity}; a read
 *       that waits on a lock for over 1 s is a violation, naming the sessions that block it and
 *       what they hold.
 * </ul>
 */
final class TargetReaders implements AutoCloseable {
  private static final long BLOCKED_NANOS = 1_000_000_000L;
  private static final int EXACT_COUNT_LIMIT = 20_000;
  private static final int REPORTS_PER_KIND = 4;

  private final PostgresDatabase target;
  private final Workload workload;
  private final Findings findings;
  private final boolean perTable;
  private final List<String> watched = new ArrayList<>();
  private final Map<String, Long> fixedRows = new HashMap<>();
  private final Map<String, String[]> probes = new HashMap<>();
  private final long[] loadedSeenAt;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Loop invariant = new Loop("invariant-reader", false);
  private final Loop repeatable = new Loop("repeatable-read-reader", true);
  private final List<Thread> threads = new ArrayList<>();
  private final Map<String, AtomicLong> reported = new ConcurrentHashMap<>();

  TargetReaders(
      PostgresDatabase source,
      PostgresDatabase target,
      Workload workload,
      Findings findings,
      boolean perTable) {
    this.target = target;
    this.workload = workload;
    this.findings = findings;
    this.perTable = perTable;
    for (Workload.Table t : workload.tables()) {
      if (t.fixedRows() >= 0) {
        watched.add(t.name());
        fixedRows.put(t.name(), t.fixedRows());
        if (t.fixedRows() > EXACT_COUNT_LIMIT) {
          String order = " FROM " + t.name() + " ORDER BY " + t.key();
          probes.put(
              t.name(),
              new String[] {
                source.queryString("SELECT ROW(" + t.key() + ")::text" + order + " LIMIT 1"),
                source.queryString(
                    "SELECT ROW("
                        + t.key()
                        + ")::text"
                        + order.replace(",", " DESC,")
                        + " DESC LIMIT 1")
              });
        }
      }
    }
    loadedSeenAt = new long[watched.size()];
  }

  void start() {
    threads.add(thread(invariant, invariant.name));
    threads.add(thread(repeatable, repeatable.name));
    threads.add(thread(this::sample, "crash-lock-sampler"));
  }

  private static Thread thread(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Reads so far, blocked reads, the longest read, read errors. */
  String summary() {
    return String.format(
        Locale.ROOT,
        "invariant reader %,d reads (longest %.2f s, %d slow without a lock wait, %d errors);"
            + " repeatable-read reader %,d transactions (longest read %.2f s, %d errors)",
        invariant.reads.get(),
        invariant.longestNanos.get() / 1e9,
        invariant.slow.get(),
        invariant.errors.get(),
        repeatable.reads.get(),
        repeatable.longestNanos.get() / 1e9,
        repeatable.errors.get());
  }

  long reads() {
    return invariant.reads.get();
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join(5_000);
    }
  }

  /** One statement reading every invariant; rebuilt when the sink's tables appear. */
  private String observationSql(boolean snapshotTables) {
    StringBuilder sql =
        new StringBuilder(
                "SELECT (SELECT count(*) FROM account), (SELECT coalesce(sum(balance), 0) FROM account),"
                    + " (SELECT balance FROM account WHERE id = 0), (SELECT max(id) FROM transfers),"
                    + " (SELECT batch FROM bulk_batches ORDER BY batch DESC LIMIT 1),"
                    + " (SELECT rows FROM bulk_batches ORDER BY batch DESC LIMIT 1),"
                    + " (SELECT count(*) FROM bulk WHERE batch = (SELECT max(batch) FROM bulk_batches)),"
                    + " (SELECT max(batch) FROM bulk), ")
            .append(snapshotTables ? "(SELECT count(*) FROM trellara_sink.snapshot_tables)" : "0");
    for (String t : watched) {
      if (t.equals("account")) {
        continue;
      }
      String[] probe = probes.get(t);
      if (probe == null) {
        sql.append(", (SELECT count(*) FROM ").append(t).append(')');
      } else {
        String key = keyOf(t);
        String order = " FROM " + t + " ORDER BY " + key;
        sql.append(", (SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM ")
            .append(t)
            .append(") THEN 0 WHEN (SELECT ROW(")
            .append(key)
            .append(")::text")
            .append(order)
            .append(" LIMIT 1) = ")
            .append(literal(probe[0]))
            .append(" AND (SELECT ROW(")
            .append(key)
            .append(")::text")
            .append(order.replace(",", " DESC,"))
            .append(" DESC LIMIT 1) = ")
            .append(literal(probe[1]))
            .append(" THEN ")
            .append(fixedRows.get(t))
            .append(" ELSE -1 END)");
      }
    }
    return sql.toString();
  }

  private String keyOf(String table) {
    return workload.tables().stream()
        .filter(t -> t.name().equals(table))
        .findFirst()
        .orElseThrow()
        .key();
  }

  private static String literal(String text) {
    return "'" + text.replace("'", "''") + "'";
  }

  /** One observation: the columns of {@link #observationSql}, nulls as -1. */
  private record Observation(long[] v) {
    long accounts() {
      return v[0];
    }

    long sum() {
      return v[1];
    }

    long fees() {
      return v[2];
    }

    long newestTransfer() {
      return v[3];
    }

    long lastBatch() {
      return v[4];
    }

    long lastBatchRows() {
      return v[5];
    }

    long lastBatchCount() {
      return v[6];
    }

    long newestBulkBatch() {
      return v[7];
    }

    long snapshotTablesPending() {
      return v[8];
    }

    /** rows of watched table i: account first, then the others in order. */
    long watched(int i) {
      return i == 0 ? accounts() : v[8 + i];
    }

    @Override
    public String toString() {
      return Arrays.toString(v);
    }
  }

  /** The invariants of one observation; returns what is broken, or null. */
  private String broken(Observation o) {
    long total = workload.total();
    boolean gate = perTable && o.snapshotTablesPending() > 0;
    for (int i = 0; i < watched.size(); i++) {
      long n = o.watched(i);
      long whole = fixedRows.get(watched.get(i));
      if (n != 0 && n != whole) {
        return watched.get(i) + " holds " + (n < 0 ? "a part" : n) + " of its " + whole + " rows";
      }
    }
    if (o.accounts() > 0 && o.sum() != total) {
      return "sum(balance) = " + o.sum() + ", expected " + total;
    }
    if (gate) {
      return null; // per_table: tables load one by one, cross-table invariants hold at the end
    }
    for (int i = 1; i < watched.size(); i++) {
      if ((o.watched(i) == 0) != (o.accounts() == 0)) {
        return "the snapshot is visible in part: account "
            + o.accounts()
            + " rows, "
            + watched.get(i)
            + " "
            + o.watched(i);
      }
    }
    long newest = Math.max(0, o.newestTransfer());
    if (o.accounts() > 0 && o.fees() != newest) {
      return "balance(0) = " + o.fees() + " but the newest transfer is " + newest;
    }
    if (o.accounts() == 0 && newest > 0) {
      return "transfers up to " + newest + " visible without the accounts";
    }
    if (o.lastBatch() >= 0 && o.lastBatchCount() != o.lastBatchRows()) {
      return "large transaction "
          + o.lastBatch()
          + " visible with "
          + o.lastBatchCount()
          + " of its "
          + o.lastBatchRows()
          + " rows";
    }
    if (o.newestBulkBatch() >= 0 && o.newestBulkBatch() > o.lastBatch()) {
      return "rows of large transaction "
          + o.newestBulkBatch()
          + " visible before its batch row (newest batch row "
          + o.lastBatch()
          + ")";
    }
    return null;
  }

  private void report(Violation kind, String who, String text) {
    long n = reported.computeIfAbsent(kind + who, k -> new AtomicLong()).incrementAndGet();
    if (n <= REPORTS_PER_KIND) {
      findings.violation(
          kind, who + ": " + text + (n == REPORTS_PER_KIND ? " (further ones not listed)" : ""));
    }
  }

  /** A reader's loop; {@code repeatable} for the REPEATABLE READ reader. */
  private final class Loop implements Runnable {
    final String name;
    final boolean repeatableRead;
    final AtomicLong reads = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final AtomicLong slow = new AtomicLong();
    final AtomicLong longestNanos = new AtomicLong();
    volatile int pid;
    volatile long inFlightSince;
    volatile boolean lockWait;
    volatile boolean blockedReported;
    volatile String blockers = "";
    private final Random random = new Random(11);

    Loop(String name, boolean repeatableRead) {
      this.name = name;
      this.repeatableRead = repeatableRead;
    }

    @Override
    public void run() {
      while (running.get()) {
        try (Connection c = target.connect()) {
          try (Statement s = c.createStatement()) {
            s.execute("SET application_name = 'crash-" + name + "'");
            try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
              rs.next();
              pid = rs.getInt(1);
            }
          }
          if (repeatableRead) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
          }
          loop(c);
        } catch (SQLException | RuntimeException e) {
          errors.incrementAndGet();
          inFlightSince = 0;
          LockSupport.parkNanos(100_000_000L); // the target restarts in some steps: read again
        }
      }
    }

    private void loop(Connection c) throws SQLException {
      boolean snapshotTables = false;
      String sql = observationSql(false);
      for (long i = 0; running.get(); i++) {
        if (!snapshotTables && (repeatableRead || i % 10 == 0)) {
          snapshotTables = exists(c, "trellara_sink.snapshot_tables");
          sql = observationSql(snapshotTables);
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
          if (repeatableRead) {
            repeatableRead(c, ps);
          } else {
            long started = System.nanoTime();
            Observation o = observe(ps);
            checkOne(o, started);
            LockSupport.parkNanos(50_000_000L);
          }
        }
      }
    }

    private boolean exists(Connection c, String table) throws SQLException {
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT to_regclass('" + table + "') IS NOT NULL")) {
        rs.next();
        boolean found = rs.getBoolean(1);
        if (repeatableRead) {
          c.commit();
        }
        return found;
      }
    }

    private void checkOne(Observation o, long started) {
      String broken = broken(o);
      if (broken != null) {
        report(Violation.PARTIAL, name, broken + " " + o);
      }
      long now = System.nanoTime();
      synchronized (loadedSeenAt) {
        for (int t = 0; t < watched.size(); t++) {
          if (o.watched(t) > 0 && loadedSeenAt[t] == 0) {
            loadedSeenAt[t] = now;
          } else if (o.watched(t) == 0 && loadedSeenAt[t] != 0 && loadedSeenAt[t] < started) {
            report(
                Violation.EMPTIED,
                name,
                watched.get(t)
                    + " read empty "
                    + String.format(Locale.ROOT, "%.1f", (now - loadedSeenAt[t]) / 1e9)
                    + " s after a read saw it loaded");
          }
        }
      }
    }

    private void repeatableRead(Connection c, PreparedStatement ps) throws SQLException {
      long snapshotAt = System.nanoTime();
      try (Statement s = c.createStatement()) {
        s.execute("SELECT 1"); // the transaction's snapshot is taken here
      }
      LockSupport.parkNanos((100 + random.nextInt(500)) * 1_000_000L);
      Observation first = observe(ps);
      Observation second = observe(ps);
      c.commit();
      boolean emptied = false;
      synchronized (loadedSeenAt) {
        for (int t = 0; t < watched.size(); t++) {
          if (first.watched(t) == 0 && loadedSeenAt[t] != 0 && loadedSeenAt[t] < snapshotAt) {
            report(
                Violation.SNAPSHOT_BROKEN,
                name,
                watched.get(t)
                    + " read empty under a REPEATABLE READ snapshot taken "
                    + String.format(Locale.ROOT, "%.1f", (snapshotAt - loadedSeenAt[t]) / 1e9)
                    + " s after a read saw it loaded "
                    + first);
            emptied = true;
          }
        }
      }
      // a table emptied under the snapshot breaks the cross-table invariants too: reported once,
      // as what it is
      String broken = emptied ? null : broken(first);
      if (broken != null) {
        report(Violation.PARTIAL, name, broken + " " + first);
      }
      if (!Arrays.equals(first.v(), second.v())) {
        report(
            Violation.SNAPSHOT_BROKEN,
            name,
            "two reads under one REPEATABLE READ snapshot differ: " + first + " then " + second);
      }
      LockSupport.parkNanos(50_000_000L);
    }

    private Observation observe(PreparedStatement ps) throws SQLException {
      lockWait = false;
      blockedReported = false;
      long started = System.nanoTime();
      inFlightSince = started;
      long[] v;
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        int n = rs.getMetaData().getColumnCount();
        v = new long[n];
        for (int i = 0; i < n; i++) {
          long x = rs.getLong(i + 1);
          v[i] = rs.wasNull() ? -1 : x;
        }
      } finally {
        inFlightSince = 0;
      }
      long took = System.nanoTime() - started;
      reads.incrementAndGet();
      longestNanos.accumulateAndGet(took, Math::max);
      if (took > BLOCKED_NANOS) {
        if (lockWait) {
          findings.note(
              String.format(
                  Locale.ROOT,
                  "%s: a read blocked on a lock ended after %.1f s",
                  name,
                  took / 1e9));
        } else {
          slow.incrementAndGet();
        }
      }
      return new Observation(v);
    }
  }

  /** Looks up reads in flight over 300 ms: a lock wait past 1 s is a violation. */
  private void sample() {
    while (running.get()) {
      try (Connection c = target.connect();
          PreparedStatement wait =
              c.prepareStatement(
                  "SELECT wait_event_type, wait_event, pg_blocking_pids(pid)::text"
                      + " FROM pg_stat_activity WHERE pid = ?");
          PreparedStatement who =
              c.prepareStatement(
                  "SELECT a.pid, a.application_name, a.state, a.backend_xid::text,"
                      + " round(extract(epoch FROM now() - a.xact_start)::numeric, 1),"
                      + " left(regexp_replace(a.query, '\\s+', ' ', 'g'), 160),"
                      + " (SELECT string_agg(l.relation::regclass::text || ' ' || l.mode, ', ')"
                      + " FROM pg_locks l WHERE l.pid = a.pid AND l.granted AND l.relation IS NOT NULL"
                      + " AND l.mode IN ('AccessExclusiveLock', 'ExclusiveLock', 'ShareLock')),"
                      + " coalesce((SELECT bool_and(b.application_name LIKE 'crash-%')"
                      + " FROM pg_stat_activity b WHERE b.pid = ANY (pg_blocking_pids(a.pid))), false)"
                      + " FROM pg_stat_activity a WHERE a.pid = ANY (?::int[])")) {
        while (running.get()) {
          for (Loop loop : List.of(invariant, repeatable)) {
            sample(loop, wait, who);
          }
          LockSupport.parkNanos(100_000_000L);
        }
      } catch (SQLException | RuntimeException e) {
        LockSupport.parkNanos(200_000_000L);
      }
    }
  }

  private void sample(Loop loop, PreparedStatement wait, PreparedStatement who)
      throws SQLException {
    long since = loop.inFlightSince;
    long now = System.nanoTime();
    if (since == 0 || now - since < 300_000_000L) {
      return;
    }
    wait.setInt(1, loop.pid);
    String blocking = null;
    try (ResultSet rs = wait.executeQuery()) {
      if (rs.next() && "Lock".equals(rs.getString(1))) {
        loop.lockWait = true;
        blocking = rs.getString(3);
      }
    }
    if (blocking == null || loop.blockedReported || now - since < BLOCKED_NANOS) {
      return;
    }
    StringBuilder text = new StringBuilder();
    boolean harnessOnly = true;
    who.setString(1, blocking);
    try (ResultSet rs = who.executeQuery()) {
      while (rs.next()) {
        harnessOnly &= rs.getBoolean(8);
        text.append(text.length() == 0 ? "" : "; ")
            .append("pid ")
            .append(rs.getInt(1))
            .append(" ")
            .append(rs.getString(2))
            .append(" ")
            .append(rs.getString(3))
            .append(" xid ")
            .append(rs.getString(4))
            .append(" for ")
            .append(rs.getString(5))
            .append(" s holding [")
            .append(rs.getString(7))
            .append("] running: ")
            .append(rs.getString(6));
      }
    }
    if (since == loop.inFlightSince && harnessOnly && text.length() > 0) {
      loop.blockedReported = true;
      findings.note(
          loop.name
              + ": a read waits behind a statement that itself waits only for this harness's"
              + " REPEATABLE READ reader (not counted): "
              + text);
    } else if (since == loop.inFlightSince) {
      loop.blockedReported = true;
      loop.blockers = text.toString();
      report(
          Violation.BLOCKED,
          loop.name,
          String.format(
              Locale.ROOT,
              "a read has waited %.1f s for a lock (and goes on waiting), blocked by %s",
              (now - since) / 1e9,
              text));
    }
  }
}
