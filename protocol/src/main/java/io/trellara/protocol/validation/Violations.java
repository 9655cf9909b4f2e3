package io.trellara.protocol.validation;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Where the validator and the barrier verifier report a broken rule. {@link #FAIL_FAST} throws the
 * first one (a consumer refuses a message at its first broken rule); {@link #collecting()} keeps
 * every one and lets the checks go on, so a report (the CLI, the conformance kit) names every rule
 * a message or barrier breaks. Both run the same checks in the same order: what fail-fast throws is
 * the first of what collecting lists.
 */
public final class Violations {
  /** Throws the first violation; holds no state, so one instance serves every caller. */
  public static final Violations FAIL_FAST = new Violations(null);

  private final List<ProtocolViolationException> found;

  private Violations(List<ProtocolViolationException> found) {
    this.found = found;
  }

  public static Violations collecting() {
    return new Violations(new ArrayList<>());
  }

  void report(ProtocolRule rule, String field, String eventKey, String detail) {
    report(new ProtocolViolationException(rule, field, eventKey, detail));
  }

  /** Throws {@code v} when failing fast; otherwise keeps it. */
  public void report(ProtocolViolationException v) {
    if (found == null) {
      throw v;
    }
    found.add(v);
  }

  /** How many violations were kept so far (always 0 when failing fast: the first one throws). */
  int count() {
    return found == null ? 0 : found.size();
  }

  /** Every violation kept, in the order the checks found them. */
  public List<ProtocolViolationException> all() {
    return found == null ? List.of() : Collections.unmodifiableList(found);
  }

  /** The rules broken. */
  public Set<ProtocolRule> rules() {
    Set<ProtocolRule> rules = EnumSet.noneOf(ProtocolRule.class);
    all().forEach(v -> rules.add(v.rule()));
    return rules;
  }

  public boolean isEmpty() {
    return count() == 0;
  }
}
