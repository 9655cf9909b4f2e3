package io.trellara.quickstart;

import java.io.PrintStream;

/**
 * The whole Trellara pipeline on one machine: source PostgreSQL, Kafka, a Connect worker running
 * the source and sink connectors, target PostgreSQL; a demo workload; a verification that both
 * sides are equal. This class wires the parts in run order: {@link Stack}, {@link Deployment},
 * {@link DemoWorkload} watched by the {@link Monitor}, {@link Verifier}; all of them print through
 * the {@link ConsoleReport}.
 */
public final class Quickstart implements AutoCloseable {

  private final Options options;
  private final ConsoleReport report;
  private final RunNames names;
  private final Stack stack;
  private final Monitor monitor;
  private volatile boolean closing;
  private boolean closed;

  Quickstart(Options options, PrintStream out) {
    this.options = options;
    this.report = new ConsoleReport(out);
    this.names = RunNames.of(options, Long.toString(System.nanoTime() % 1_000_000L, 36));
    this.stack = new Stack(options, names, report);
    this.monitor = new Monitor(stack, names, report);
  }

  public static void main(String[] args) {
    Logging.prepare();
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("quickstart: " + e.getMessage());
      System.exit(2);
      return;
    }
    if (options.help) {
      Options.printHelp(System.out);
      return;
    }
    Quickstart quickstart = new Quickstart(options, System.out);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  Logging.silence(); // Ctrl-C: PostgreSQL's own hooks may stop it under the running
                  // tasks; no error spam
                  quickstart.close();
                },
                "trellara-quickstart-shutdown"));
    int code;
    try {
      code = quickstart.run();
    } catch (Exception | AssertionError e) {
      if (quickstart.closing) {
        return; // Ctrl-C during the run: the shutdown hook stops everything
      }
      System.out.println();
      System.out.println("quickstart FAILED: " + e.getMessage());
      Throwable cause = e.getCause();
      while (cause != null) {
        System.out.println("  caused by: " + cause);
        cause = cause.getCause();
      }
      quickstart.close();
      System.exit(1);
      return;
    }
    if (options.exitAfterVerify) {
      quickstart.close();
      System.exit(code);
      return;
    }
    quickstart.watchUntilStopped();
  }

  /** One run: stack, schema, connectors, workload, verification; 0 on PASS, 1 on FAIL. */
  int run() throws Exception {
    report.banner();
    stack.start();
    report.stackUp(stack, options);
    Deployment deployment = new Deployment(options, stack, names, report);
    deployment.createSchema();
    DemoWorkload workload = new DemoWorkload(stack.source());
    workload.prefill(report); // a source that already holds data: the initial snapshot brings it
    deployment.deployConnectors();
    long w0 = System.nanoTime();
    monitor.startPrinting();
    int transactions = workload.run(options.orders, options.rows, report);
    long workloadMillis = ConsoleReport.millisSince(w0);
    long v0 = System.nanoTime();
    Verification verification =
        new Verifier(stack, names, monitor, options, report).verify(transactions);
    report.verification(verification);
    long verificationMillis = ConsoleReport.millisSince(v0);
    report.timings(stack.startupMillis(), workloadMillis, verificationMillis);
    report.connectorStatus(stack.worker().rest(), Deployment.CONNECTORS);
    return verification.pass() ? 0 : 1;
  }

  /**
   * Until Ctrl-C: what to try, and a progress line whenever a new transaction is captured or
   * applied.
   */
  private void watchUntilStopped() {
    report.tryHints(stack, options);
    monitor.watchUntilClosed();
  }

  /** Monitor, connectors, worker, broker, PostgreSQL; on existing servers what this run created. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    closing = true;
    monitor.close();
    stack.close();
  }
}
