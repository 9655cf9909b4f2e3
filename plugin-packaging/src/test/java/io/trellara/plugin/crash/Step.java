package io.trellara.plugin.crash;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One step of a crash sequence: a fault (or a workload event: a large transaction, a DDL statement)
 * with its parameters, printed and parsed as {@code KIND(key=value,...)}, e.g. {@code
 * KILL_SNAPSHOT(at=0.41)}. The printed form replays the step exactly.
 */
record Step(Kind kind, Map<String, String> params) {

  /** What a step does. {@link #fault()} is false for the workload's own events. */
  enum Kind {
    /**
     * kill -9 of the worker while the snapshot is read: {@code at} share of its rows or {@code t}
     * s.
     */
    KILL_SNAPSHOT(true),
    /** kill -9 as soon as the snapshot is published, before Connect flushes the source offsets. */
    KILL_PUBLISHED(true),
    /**
     * kill -9 during a large transaction: {@code phase=open} (source tx open) or {@code applying}.
     */
    KILL_LARGE_TX(true),
    /** kill -9 while transfers stream, {@code after} s into the step. */
    KILL_STREAMING(true),
    /**
     * the source's offsets reset (a new snapshot replaces the target's tables), kill -9 at {@code
     * at}.
     */
    KILL_SWAP(true),
    /** a graceful restart of a connector and its tasks through REST ({@code which}). */
    RESTART(true),
    /** a connector ({@code which}) deleted and created again with the same name and config. */
    RECREATE(true),
    SOURCE_PG_RESTART(true),
    TARGET_PG_RESTART(true),
    /** the target unreachable for {@code s} seconds: connections cut, new ones refused. */
    TARGET_OUTAGE(true),
    BROKER_RESTART(true),
    /** a second worker joins the group, takes tasks, then leaves ({@code leave=stop|kill}). */
    REBALANCE(true),
    /** {@code ALTER TABLE <table> ADD COLUMN} on a captured table, with an UPDATE that sets it. */
    DDL(false),
    /** one source transaction of {@code rows} inserts (chunked or streamed in those modes). */
    LARGE_TX(false);

    private final boolean fault;

    Kind(boolean fault) {
      this.fault = fault;
    }

    boolean fault() {
      return fault;
    }

    boolean kill() {
      return name().startsWith("KILL_");
    }
  }

  Step {
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
  }

  static Step of(Kind kind, Object... keyValues) {
    Map<String, String> params = new LinkedHashMap<>();
    for (int i = 0; i + 1 < keyValues.length; i += 2) {
      Object v = keyValues[i + 1];
      String text =
          v instanceof Double d ? String.format(Locale.ROOT, "%.2f", d) : String.valueOf(v);
      params.put(String.valueOf(keyValues[i]), text);
    }
    return new Step(kind, params);
  }

  /** Parses {@code KIND} or {@code KIND(k=v,k=v)}. */
  static Step parse(String text) {
    String t = text.trim();
    int open = t.indexOf('(');
    String name = open < 0 ? t : t.substring(0, open);
    Map<String, String> params = new LinkedHashMap<>();
    if (open >= 0) {
      if (!t.endsWith(")")) {
        throw new IllegalArgumentException("step without its closing parenthesis: " + text);
      }
      for (String pair : t.substring(open + 1, t.length() - 1).split(",")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          params.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
      }
    }
    return new Step(Kind.valueOf(name.trim().toUpperCase(Locale.ROOT)), params);
  }

  String text(String key, String otherwise) {
    return params.getOrDefault(key, otherwise);
  }

  double number(String key, double otherwise) {
    String v = params.get(key);
    return v == null ? otherwise : Double.parseDouble(v.replace("s", ""));
  }

  boolean has(String key) {
    return params.containsKey(key);
  }

  @Override
  public String toString() {
    if (params.isEmpty()) {
      return kind.name();
    }
    StringBuilder out = new StringBuilder(kind.name()).append('(');
    params.forEach(
        (k, v) ->
            out.append(out.charAt(out.length() - 1) == '(' ? "" : ",")
                .append(k)
                .append('=')
                .append(v));
    return out.append(')').toString();
  }
}
