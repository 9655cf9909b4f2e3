package io.trellara.plugin.crash;

import io.trellara.plugin.crash.Findings.Violation;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The seeded crash-sequence harness: sets a pipeline up for a {@link SequencePlan} (a pre-filled
 * source, both connectors through REST on a killable worker, the transfer writer and the target's
 * readers running from the first moment), runs its steps one after the other, checks after each
 * that the pipeline converged within the bound with nothing FAILED and no reader having seen a
 * partial, emptied or blocked state, and at the end that the target equals the source with nothing
 * lost or twice. The first step with a violation ends the sequence; the diagnostics are taken then,
 * while the pipeline still stands.
 */
public final class CrashSequences {
  /** Seconds a step may take to converge ({@code -Dtrellara.crash.bound.seconds}). */
  static final long BOUND_SECONDS = Long.getLong("trellara.crash.bound.seconds", 120);

  /**
   * Go on with the next steps after a violation ({@code -Dtrellara.crash.continue=true}, the long
   * run's default): more faults per sequence, later findings possibly consequences of earlier ones.
   * A stall or a failed connector ends the sequence all the same.
   */
  private final boolean continueAfterViolation;

  private final TrellaraStack stack;
  private final KafkaBroker broker;
  private final Path pluginPath;
  private final Path reports;

  /**
   * @param broker the sequences' own broker (they restart it)
   * @param pluginPath a plugin.path holding the unpacked component archive
   * @param reports where each sequence writes its diagnostics and worker logs
   */
  public CrashSequences(
      TrellaraStack stack,
      KafkaBroker broker,
      Path pluginPath,
      Path reports,
      boolean continueAfterViolation) {
    this.continueAfterViolation = continueAfterViolation;
    this.stack = stack;
    this.broker = broker;
    this.pluginPath = pluginPath;
    this.reports = reports;
  }

  public static String replayCommand(SequencePlan plan) {
    return "./mvnw -B verify -pl plugin-packaging -am -Dspotless.check.skip=true -Dtest=NONE"
        + " -Dsurefire.failIfNoSpecifiedTests=false -Dit.test='CrashSequenceIT#replay'"
        + " -Dfailsafe.failIfNoSpecifiedTests=false -Dtrellara.crash.sequence='"
        + plan
        + "'";
  }

  public static String redrawCommand(SequencePlan plan) {
    return "./mvnw -B verify -pl plugin-packaging -am -Dspotless.check.skip=true -Dtest=NONE"
        + " -Dsurefire.failIfNoSpecifiedTests=false -Dit.test='CrashSequenceIT#replay'"
        + " -Dfailsafe.failIfNoSpecifiedTests=false -Dtrellara.crash.seed="
        + plan.seed()
        + " -Dtrellara.crash.faults="
        + plan.faults()
        + " -Dtrellara.crash.mode="
        + plan.mode().text()
        + " -Dtrellara.crash.size="
        + plan.size().name().toLowerCase(Locale.ROOT);
  }

  /** Runs one sequence and returns what it found (it never throws for a violation). */
  public Outcome run(SequencePlan plan) {
    long started = System.nanoTime();
    Findings findings = new Findings();
    List<String> steps = new ArrayList<>();
    String diagnostics = null;
    int faultsRun = 0;
    Path dir =
        reports.resolve(
            String.format(
                Locale.ROOT,
                "seed-%d-%s-%x",
                plan.seed(),
                plan.mode().text(),
                System.nanoTime() & 0xffffff));
    System.out.println("CrashSequences: starting " + plan);
    try (TestScope scope = stack.newScope("crash")) {
      PostgresDatabase source = scope.sourceDatabase();
      PostgresDatabase target = scope.targetDatabase();
      Workload workload = new Workload(source, plan);
      source.execute(workload.schema().toArray(String[]::new));
      target.execute(workload.schema().toArray(String[]::new));
      target.execute(Checks.auditSchema().toArray(String[]::new));
      if (plan.streaming()) {
        source.execute(
            "ALTER DATABASE " + source.name() + " SET logical_decoding_work_mem = '64kB'");
      }
      workload.prefill();
      try (Pipeline pipeline =
              new Pipeline(scope, broker, pluginPath, plan, source, target, workload.tables());
          TargetReaders readers =
              new TargetReaders(
                  source, target, workload, findings, plan.snapshotApply().equals("per_table"));
          workload) {
        Checks checks = new Checks(source, target, workload, pipeline, findings, BOUND_SECONDS);
        Faults faults = new Faults(pipeline, broker, source, target, workload, findings);
        pipeline.createTopics();
        readers.start();
        workload.startWriter();
        pipeline.a.start();
        pipeline.createSource();
        pipeline.createSink();
        faults.snapshotStarted();
        boolean snapshotFirst =
            !plan.steps().isEmpty()
                && (plan.steps().get(0).kind() == Step.Kind.KILL_SNAPSHOT
                    || plan.steps().get(0).kind() == Step.Kind.KILL_PUBLISHED);
        if (!snapshotFirst) {
          findings.step("initial snapshot");
          steps.add(line(0, "initial snapshot", "", checks.converge("initial snapshot"), target));
        }
        for (int i = 0; i < plan.steps().size() && !stop(findings); i++) {
          Step step = plan.steps().get(i);
          String label = "step " + (i + 1) + " " + step;
          findings.step(label);
          long at = System.nanoTime();
          String landed = faults.run(step);
          faultsRun += step.kind().fault() ? 1 : 0;
          double took = (System.nanoTime() - at) / 1e9;
          double converged = checks.converge(label);
          if (findings.any() && diagnostics == null) {
            diagnostics = Diagnostics.collect(pipeline, broker, source, target, dir, "at " + label);
          } else if (converged < 0 && stop(findings)) {
            // a stall after earlier violations: the threads and locks of the stall itself
            diagnostics +=
                Diagnostics.collect(pipeline, broker, source, target, dir, "stalled at " + label);
          }
          steps.add(
              line(
                  i + 1,
                  step.toString(),
                  String.format(Locale.ROOT, "%s (%.1f s)", landed, took),
                  converged,
                  target));
        }
        if (!stop(findings)) {
          findings.step("final checks");
          workload.stopWriter();
          double seconds = checks.finalChecks();
          steps.add(
              String.format(
                  Locale.ROOT,
                  "final: writer stopped at transfer %d, %d large transactions; target equal to the"
                      + " source %s",
                  workload.lastTransfer(),
                  workload.lastBatch(),
                  seconds < 0
                      ? "NOT reached"
                      : String.format(Locale.ROOT, "%.1f s later", seconds)));
        }
        steps.add(readers.summary());
        if (findings.any() && diagnostics == null) {
          diagnostics =
              Diagnostics.collect(pipeline, broker, source, target, dir, "at " + findings.step());
        }
        pipeline.keepLogs(dir);
      }
    } catch (Throwable t) {
      findings.violation(
          Violation.FAILED,
          "the harness itself failed: " + t + "\n" + Diagnostics.head(stackTrace(t), 20));
    }
    Outcome outcome =
        new Outcome(
            plan,
            steps,
            faultsRun,
            findings.violations(),
            findings.kinds(),
            findings.notes(),
            diagnostics,
            dir,
            (System.nanoTime() - started) / 1e9);
    System.out.println(outcome.report());
    Diagnostics.write(dir.resolve("report.txt"), outcome.report());
    return outcome;
  }

  private boolean stop(Findings findings) {
    if (!findings.any()) {
      return false;
    }
    return !continueAfterViolation
        || findings.kinds().contains(Violation.STALLED)
        || findings.kinds().contains(Violation.FAILED);
  }

  private static String line(
      int n, String step, String landed, double converged, PostgresDatabase target) {
    long applied = Faults.snapshotsApplied(target);
    String snapshots = applied < 0 ? "?" : Long.toString(applied);
    return String.format(
        Locale.ROOT,
        "%d. %s: %s -> %s; snapshots applied so far %s",
        n,
        step,
        landed.isEmpty() ? "connectors created" : landed,
        converged < 0
            ? "NOT converged"
            : String.format(Locale.ROOT, "converged %.1f s later", converged),
        snapshots);
  }

  private static String stackTrace(Throwable t) {
    java.io.StringWriter w = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(w));
    return w.toString();
  }

  /**
   * The long run: sequences over consecutive seeds, the modes in turn, until {@code minutes} have
   * passed; prints and returns the outcomes ({@link #summary}).
   */
  public List<Outcome> longRun(
      double minutes,
      long firstSeed,
      List<BoundaryMode> modes,
      SequencePlan.Size size,
      int minFaults,
      int maxFaults) {
    long until = System.nanoTime() + (long) (minutes * 60e9);
    List<Outcome> outcomes = new ArrayList<>();
    for (long i = 0; System.nanoTime() < until; i++) {
      long seed = firstSeed + i;
      int faults = minFaults + (int) Math.floorMod(seed * 7919, maxFaults - minFaults + 1);
      BoundaryMode mode = modes.get((int) (i % modes.size()));
      outcomes.add(run(SequencePlan.draw(seed, faults, mode, size)));
      System.out.println(summary(outcomes));
    }
    return outcomes;
  }

  /** A Markdown table of outcomes and the totals. */
  public static String summary(List<Outcome> outcomes) {
    StringBuilder out =
        new StringBuilder(
            "| # | seed | mode | apply | faults run | result | violations | first violation at | s |\n"
                + "|---|---|---|---|---|---|---|---|---|\n");
    int faults = 0;
    int failed = 0;
    for (int i = 0; i < outcomes.size(); i++) {
      Outcome o = outcomes.get(i);
      faults += o.faultsRun();
      failed += o.passed() ? 0 : 1;
      String first = o.violations().isEmpty() ? "" : o.violations().get(0);
      int close = first.indexOf(']');
      out.append(
          String.format(
              Locale.ROOT,
              "| %d | %d | %s | %s | %d | %s | %s | %s | %.0f |%n",
              i + 1,
              o.plan().seed(),
              o.plan().mode().text(),
              o.plan().snapshotApply(),
              o.faultsRun(),
              o.passed() ? "pass" : "FAIL",
              o.kindsText(),
              close > 0 ? first.substring(first.indexOf(',') + 2, close) : "",
              o.seconds()));
    }
    out.append(
        String.format(
            Locale.ROOT,
            "%n%d sequences, %d faults run, %d passed, %d failed%n",
            outcomes.size(),
            faults,
            outcomes.size() - failed,
            failed));
    return out.toString();
  }
}
