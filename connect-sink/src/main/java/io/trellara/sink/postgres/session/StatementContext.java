package io.trellara.sink.postgres.session;

import java.util.Locale;

/**
 * What the statement in flight on a {@link TargetSession} is about: its kind (the first word of its
 * SQL), the target table, and the event key or the first and last keys and the size of a run of
 * rows. Kept for error messages and the watchdog's report, and put into words only when one of them
 * asks.
 */
final class StatementContext {
  private String relation;
  private String eventKey;
  private String runLastKey;
  private long runRows;
  private String kind = "statement";

  void at(String relation, String eventKey) {
    this.relation = relation;
    this.eventKey = eventKey;
    this.runRows = 0;
  }

  void atRun(String relation, String firstKey, String lastKey, long rows) {
    this.relation = relation;
    this.eventKey = firstKey;
    this.runLastKey = lastKey;
    this.runRows = rows;
  }

  /** The statement about to run is {@code sql}: its kind is the first word. */
  void statement(String sql) {
    kind = kindOf(sql);
  }

  /** The session's own step about to run (COPY, COMMIT). */
  void kind(String kind) {
    this.kind = kind;
  }

  String relation() {
    return relation;
  }

  /** The event key (or range of them), null when none. */
  String eventKey() {
    return runRows <= 1 || eventKey == null
        ? eventKey
        : eventKey + " .. " + runLastKey + " (" + runRows + " rows)";
  }

  /** In words: the statement kind, the table, the event key, the backend and the state. */
  String doing(int backendPid, TargetSession.State state) {
    String at = eventKey();
    return kind
        + (relation == null ? "" : " on " + relation)
        + (at == null || at.isEmpty() ? "" : " at " + at)
        + " (target backend pid "
        + backendPid
        + ", "
        + state.name().toLowerCase(Locale.ROOT)
        + ")";
  }

  private static String kindOf(String sql) {
    int start = 0;
    while (start < sql.length() && !Character.isLetter(sql.charAt(start))) {
      start++;
    }
    int end = start;
    while (end < sql.length() && Character.isLetter(sql.charAt(end))) {
      end++;
    }
    return start == end ? "statement" : sql.substring(start, end).toUpperCase(Locale.ROOT);
  }
}
