package io.trellara.quickstart;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectorStatus;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * Everything the quickstart prints: timestamped steps (from the main thread, the server start-up
 * threads and the progress monitor, hence the lock), the stack's addresses, the verification table
 * and what to try next.
 */
final class ConsoleReport {

  private final PrintStream out;
  private final long t0 = System.nanoTime();
  private final Object printLock = new Object();

  ConsoleReport(PrintStream out) {
    this.out = out;
  }

  /** One step, prefixed with the seconds since the start. */
  void step(String line) {
    synchronized (printLock) {
      out.println(String.format(Locale.ROOT, "[%5.1fs] %s", (System.nanoTime() - t0) / 1e9, line));
    }
  }

  /** A line without a timestamp. */
  void line(String line) {
    synchronized (printLock) {
      out.println(line);
    }
  }

  void blank() {
    line("");
  }

  void banner() {
    blank();
    line(
        "Trellara quickstart: PostgreSQL -> Kafka Connect -> PostgreSQL, each source transaction applied"
            + " as one target transaction");
    blank();
  }

  /**
   * Where each part of the stack listens; passwords are never printed, only where they come from.
   */
  void stackUp(Stack stack, Options options) {
    step(String.format(Locale.ROOT, "stack up in %.1f s", stack.startupMillis() / 1000.0));
    line(
        "    source PostgreSQL  "
            + stack.source().psql()
            + (options.embeddedSource() ? "" : "  (existing)")
            + "  "
            + passwordHint(options.embeddedSource(), "--source-password"));
    line(
        "    target PostgreSQL  "
            + stack.target().psql()
            + (options.embeddedTarget() ? "" : "  (existing)")
            + "  "
            + passwordHint(options.embeddedTarget(), "--target-password"));
    line(
        "    Kafka              "
            + stack.bootstrapServers()
            + (options.embeddedKafka() ? "" : "  (existing)"));
    line("    Connect REST       " + stack.worker().restUrl());
  }

  /** Where the password is, since it is never printed. */
  static String passwordHint(boolean embedded, String option) {
    return embedded
        ? "(no password: trust authentication)"
        : "(password: the one given with " + option + "; export it as PGPASSWORD for psql)";
  }

  /**
   * The verification table: one line per table, then the transaction and large-transaction checks,
   * the result.
   */
  void verification(Verification v) {
    blank();
    line(
        "  VERIFICATION                 source rows   target rows   source md5     target md5     result");
    line(
        "  ---------------------------  -----------   -----------   ------------   ------------   ------");
    for (Verification.TableCheck c : v.tables()) {
      line(
          String.format(
              Locale.ROOT,
              "  %-27s  %,11d   %,11d   %-12s   %-12s   %s",
              DemoWorkload.SCHEMA + "." + c.table(),
              c.sourceRows(),
              c.targetRows(),
              abbrev(c.sourceMd5()),
              abbrev(c.targetMd5()),
              passFail(c.equal())));
    }
    line(
        String.format(
            Locale.ROOT,
            "  %-79s   %s",
            String.format(
                Locale.ROOT,
                "transactions: %,d committed on the"
                    + " source, %,d on the topic, %,d applied on the target",
                v.expectedTransactions(),
                v.progress().captured(),
                v.progress().applied()),
            passFail(v.transactionsEqual())));
    line(
        String.format(
            Locale.ROOT,
            "  %-79s   %s",
            String.format(
                Locale.ROOT,
                "large transaction: %,d lines" + " applied in one target transaction (%,d changes)",
                v.largeTransactionLines(),
                v.largestChangeCount()),
            passFail(v.largeTransactionWhole())));
    blank();
    if (v.connectorFailure() != null) {
      line("  " + v.connectorFailure());
    }
    line(
        v.pass()
            ? String.format(
                Locale.ROOT,
                "  RESULT: PASS  every table is equal; %,d source transactions applied as"
                    + " %,d target transactions (largest: %,d changes)",
                v.expectedTransactions(),
                v.progress().applied(),
                v.largestChangeCount())
            : "  RESULT: FAIL  source and target differ"
                + (v.timedOutAfterSeconds() >= 0
                    ? " after waiting " + v.timedOutAfterSeconds() + " s"
                    : ""));
  }

  void timings(long startupMillis, long workloadMillis, long verificationMillis) {
    blank();
    step(
        String.format(
            Locale.ROOT,
            "timings: start-up %.1f s, workload %.1f s, catch-up and verification %.1f s",
            startupMillis / 1000.0,
            workloadMillis / 1000.0,
            verificationMillis / 1000.0));
  }

  void connectorStatus(ConnectRestClient rest, List<String> connectors) {
    for (String name : connectors) {
      ConnectorStatus s = rest.status(name);
      StringBuilder tasks = new StringBuilder();
      s.tasks()
          .forEach(
              t ->
                  tasks
                      .append(tasks.length() == 0 ? "" : ", ")
                      .append("task ")
                      .append(t.id())
                      .append(' ')
                      .append(t.state()));
      step("connector " + name + ": " + s.state() + " (" + tasks + ")");
    }
  }

  /** After a PASS without --exit-after-verify: commands to poke the running pipeline. */
  void tryHints(Stack stack, Options options) {
    String rest = stack.worker().restUrl().toString();
    String src = stack.source().psql();
    String dst = stack.target().psql();
    blank();
    line("Running. Try:");
    line("  curl -s " + rest + "connectors?expand=status");
    line("  curl -s " + rest + "connectors/" + Deployment.SINK_CONNECTOR + "/config");
    line(
        "  psql \""
            + src
            + "\" -c \"INSERT INTO "
            + DemoWorkload.SCHEMA
            + ".customer VALUES (1001, 'You', 'you@example.com', now())\"");
    line(
        "  psql \""
            + dst
            + "\" -c \"SELECT * FROM "
            + DemoWorkload.SCHEMA
            + ".customer WHERE id = 1001\"");
    line(
        "  psql \""
            + dst
            + "\" -c \"SELECT commit_lsn, change_count, ddl_count, applied_at FROM"
            + " trellara_sink.applied_transactions ORDER BY commit_lsn_value DESC LIMIT 5\"");
    line(
        "New transactions show up below as they are captured and applied. Ctrl-C stops everything"
            + (options.embeddedSource() && options.embeddedTarget() && options.embeddedKafka()
                ? " and deletes the temp data."
                : "."));
  }

  static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  private static String passFail(boolean ok) {
    return ok ? "PASS" : "FAIL";
  }

  private static String abbrev(String md5) {
    return md5.length() > 12 ? md5.substring(0, 12) : md5;
  }
}
