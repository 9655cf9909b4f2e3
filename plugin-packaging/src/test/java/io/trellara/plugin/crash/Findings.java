package io.trellara.plugin.crash;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a sequence found, from every thread that watches it: violations (each fails the sequence)
 * and notes (printed, never failing), each stamped with the step it happened in and the seconds
 * since the sequence started.
 */
final class Findings {
  /** The kinds of violation the suite checks for. */
  enum Violation {
    /** a reader saw part of a source transaction (an invariant broken). */
    PARTIAL,
    /** a table seen loaded was later seen empty by a read whose snapshot came after. */
    EMPTIED,
    /** a REPEATABLE READ transaction saw a table change or vanish under its snapshot. */
    SNAPSHOT_BROKEN,
    /** a reader waited over 1 s for a lock. */
    BLOCKED,
    /** the pipeline did not converge within the bound. */
    STALLED,
    /** a connector or task FAILED. */
    FAILED,
    /**
     * a committed source row is missing on the target, or the target holds one the source lacks.
     */
    LOST,
    /** a source row or transaction was applied twice. */
    TWICE,
    /** the target differs from the source in another way (a column, a value). */
    DIVERGED
  }

  private final long startedAt = System.nanoTime();
  private final List<String> violations = new ArrayList<>();
  private final List<Violation> kinds = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private volatile String step = "setup";

  void step(String step) {
    this.step = step;
  }

  String step() {
    return step;
  }

  double seconds() {
    return (System.nanoTime() - startedAt) / 1e9;
  }

  synchronized void violation(Violation kind, String text) {
    kinds.add(kind);
    violations.add(stamp() + kind + ": " + text);
  }

  synchronized void note(String text) {
    notes.add(stamp() + text);
  }

  synchronized boolean any() {
    return !violations.isEmpty();
  }

  synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  synchronized List<Violation> kinds() {
    return List.copyOf(kinds);
  }

  synchronized List<String> notes() {
    return List.copyOf(notes);
  }

  private String stamp() {
    return String.format(Locale.ROOT, "[%7.1f s, %s] ", seconds(), step);
  }
}
