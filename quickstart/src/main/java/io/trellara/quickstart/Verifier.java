package io.trellara.quickstart;

import io.trellara.quickstart.Verification.TableCheck;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectorStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Waits until the target has caught up (every committed transaction applied, every table equal), a
 * connector failed or the timeout passed, then compares both sides once more for the {@link
 * Verification}.
 */
final class Verifier {

  private final Stack stack;
  private final RunNames names;
  private final Monitor monitor;
  private final Options options;
  private final ConsoleReport report;

  Verifier(Stack stack, RunNames names, Monitor monitor, Options options, ConsoleReport report) {
    this.stack = stack;
    this.names = names;
    this.monitor = monitor;
    this.options = options;
    this.report = report;
  }

  Verification verify(long expectedTransactions) throws InterruptedException {
    report.step(
        "waiting for the target to catch up, then comparing every table (row count + md5 of all rows in"
            + " key order)");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.verifyTimeoutSeconds);
    List<TableCheck> checks;
    Progress p;
    String failure;
    while (true) {
      failure = connectorFailure();
      if (failure != null) {
        checks = compareTables();
        p = monitor.progress();
        break;
      }
      p = monitor.progress();
      checks = p.applied() >= expectedTransactions ? compareTables() : null;
      if (checks != null
          && checks.stream().allMatch(TableCheck::equal)
          && p.applied() >= p.captured()) {
        break;
      }
      if (System.nanoTime() > deadline) {
        if (checks == null) {
          checks = compareTables();
        }
        break;
      }
      Thread.sleep(500);
    }
    monitor.stopPrinting();
    report.step("  progress: " + p.line());
    long largest = 0;
    try {
      largest =
          stack
              .target()
              .queryLong(
                  "SELECT max(change_count) FROM trellara_sink.applied_transactions"
                      + " WHERE source_id = '"
                      + names.sourceId()
                      + "'");
    } catch (RuntimeException ignored) {
      // no checkpoint table: nothing was applied
    }
    int timedOut = System.nanoTime() > deadline ? options.verifyTimeoutSeconds : -1;
    return new Verification(
        checks, p, expectedTransactions, largest, options.rows, failure, timedOut);
  }

  private List<TableCheck> compareTables() {
    List<TableCheck> checks = new ArrayList<>();
    for (String[] t : DemoWorkload.TABLES) {
      String sql =
          "SELECT count(*) || ' ' || md5(coalesce(string_agg(t::text, ',' ORDER BY "
              + t[1]
              + "), '')) FROM "
              + DemoWorkload.SCHEMA
              + "."
              + t[0]
              + " t";
      String[] s = stack.source().queryString(sql).split(" ");
      String[] d;
      try {
        d = stack.target().queryString(sql).split(" ");
      } catch (RuntimeException e) {
        d = new String[] {"-1", "error"};
      }
      checks.add(new TableCheck(t[0], Long.parseLong(s[0]), Long.parseLong(d[0]), s[1], d[1]));
    }
    return checks;
  }

  /**
   * Null while both connectors and their tasks run; otherwise which one failed and the start of its
   * trace.
   */
  private String connectorFailure() {
    ConnectWorker worker = stack.worker();
    for (String name : Deployment.CONNECTORS) {
      try {
        ConnectorStatus s = worker.rest().status(name);
        if (s.isFailed()) {
          String trace = s.firstTrace() == null ? "" : s.firstTrace();
          String[] lines = trace.split("\n");
          return "connector "
              + name
              + " FAILED: "
              + (lines.length > 0 ? lines[0] : "")
              + "\n  (full trace: curl -s "
              + worker.restUrl()
              + "connectors/"
              + name
              + "/status)";
        }
      } catch (RuntimeException e) {
        // the REST API is briefly unavailable during a rebalance
      }
    }
    return null;
  }
}
