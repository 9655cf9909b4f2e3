package io.trellara.plugin.crash;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What one sequence did: its plan, a line per step executed, the violations (none when it passed),
 * the notes, the diagnostics printed at the first failing step, and where its files are.
 */
public record Outcome(
    SequencePlan plan,
    List<String> steps,
    int faultsRun,
    List<String> violations,
    List<Findings.Violation> kinds,
    List<String> notes,
    String diagnostics,
    Path directory,
    double seconds) {

  public boolean passed() {
    return violations.isEmpty();
  }

  /** The kinds of violation, each once, in the order first met. */
  public String kindsText() {
    return kinds.stream().distinct().map(Enum::name).collect(Collectors.joining(", "));
  }

  /** The whole report: plan, replay commands, steps, verdict, violations, notes, diagnostics. */
  public String report() {
    StringBuilder out = new StringBuilder();
    out.append("crash sequence ").append(passed() ? "PASSED" : "FAILED").append(": ").append(plan);
    out.append(String.format(Locale.ROOT, "%n  %d faults run in %.1f s%n", faultsRun, seconds));
    out.append("  replay: ").append(CrashSequences.replayCommand(plan)).append('\n');
    if (plan.seed() > 0) {
      out.append("  or draw it again: ").append(CrashSequences.redrawCommand(plan)).append('\n');
    }
    for (String step : steps) {
      out.append("  ").append(step).append('\n');
    }
    for (String v : violations) {
      out.append("  VIOLATION ").append(v).append('\n');
    }
    for (String n : notes) {
      out.append("  note ").append(n).append('\n');
    }
    out.append("  files: ").append(directory).append('\n');
    if (diagnostics != null) {
      out.append(diagnostics);
    }
    return out.toString();
  }
}
