package io.trellara.plugin.crash;

import io.trellara.plugin.crash.Findings.Violation;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.PostgresDatabase;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * The checks after each step and at the end. After a step: the pipeline converges within the bound
 * (every transfer and large transaction committed before the fault cleared, every added column and
 * every loaded table on the target) with no connector or task FAILED. At the end, with the writer
 * stopped: every table equal to the source (md5 of its ordered rows, and its columns), no transfer
 * lost or extra, none inserted twice (a target trigger logs every insert, delete and truncate of
 * {@code transfers}), no source transaction recorded twice by the sink.
 */
final class Checks {
  private final PostgresDatabase source;
  private final PostgresDatabase target;
  private final Workload workload;
  private final Pipeline pipeline;
  private final Findings findings;
  private final long boundNanos;

  /** Columns already reported missing on the target: later steps do not wait for them again. */
  private final Set<String> reportedColumns = new HashSet<>();

  Checks(
      PostgresDatabase source,
      PostgresDatabase target,
      Workload workload,
      Pipeline pipeline,
      Findings findings,
      long boundSeconds) {
    this.source = source;
    this.target = target;
    this.workload = workload;
    this.pipeline = pipeline;
    this.findings = findings;
    this.boundNanos = boundSeconds * 1_000_000_000L;
  }

  /** The target's audit of {@code transfers}: every insert, delete and truncate, transactional. */
  static List<String> auditSchema() {
    return List.of(
        "CREATE SCHEMA crash_audit",
        "CREATE TABLE crash_audit.events (seq bigserial PRIMARY KEY, tbl text NOT NULL,"
            + " op text NOT NULL, id bigint, xid xid8 NOT NULL DEFAULT pg_current_xact_id(),"
            + " at timestamptz NOT NULL DEFAULT clock_timestamp())",
        "CREATE FUNCTION crash_audit.row_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            + " IF TG_OP = 'DELETE' THEN INSERT INTO crash_audit.events (tbl, op, id)"
            + " VALUES (TG_TABLE_NAME, 'D', OLD.id); ELSE INSERT INTO crash_audit.events"
            + " (tbl, op, id) VALUES (TG_TABLE_NAME, 'I', NEW.id); END IF; RETURN NULL; END $$",
        "CREATE FUNCTION crash_audit.truncate_event() RETURNS trigger LANGUAGE plpgsql AS $$"
            + " BEGIN INSERT INTO crash_audit.events (tbl, op) VALUES (TG_TABLE_NAME, 'T');"
            + " RETURN NULL; END $$",
        "CREATE TRIGGER crash_audit_rows AFTER INSERT OR DELETE ON transfers FOR EACH ROW"
            + " EXECUTE FUNCTION crash_audit.row_event()",
        "CREATE TRIGGER crash_audit_truncate AFTER TRUNCATE ON transfers FOR EACH STATEMENT"
            + " EXECUTE FUNCTION crash_audit.truncate_event()",
        "ALTER TABLE transfers ENABLE ALWAYS TRIGGER crash_audit_rows",
        "ALTER TABLE transfers ENABLE ALWAYS TRIGGER crash_audit_truncate");
  }

  /**
   * Waits until everything committed on the source up to now is on the target. Returns the seconds
   * it took, or -1 after a violation (FAILED, or STALLED past the bound).
   */
  double converge(String what) {
    long transfers = workload.lastTransfer();
    long batches = workload.lastBatch();
    List<String> columns = workload.addedColumns();
    long started = System.nanoTime();
    long lastStatus = 0;
    String last = "nothing read yet";
    while (true) {
      long now = System.nanoTime();
      if (now - lastStatus > 500_000_000L) {
        lastStatus = now;
        String failed = failed();
        if (failed != null) {
          findings.violation(Violation.FAILED, what + ": " + failed);
          return -1;
        }
      }
      try {
        last = missing(transfers, batches, columns);
        if (last == null) {
          return (System.nanoTime() - started) / 1e9;
        }
      } catch (RuntimeException e) {
        last = "target unreadable: " + e.getMessage();
      }
      if (now - started > boundNanos) {
        // everything else arrived: the target's schema differs from the source's, nothing stalls
        boolean columnOnly = last.startsWith("column ");
        if (columnOnly) {
          reportedColumns.add(last.split(" ")[1]);
        }
        findings.violation(
            columnOnly ? Violation.DIVERGED : Violation.STALLED,
            String.format(
                Locale.ROOT,
                "%s: not converged within %d s (%s); source %s, sink %s",
                what,
                boundNanos / 1_000_000_000L,
                last,
                brief(pipeline.statusOrNull(pipeline.sourceName)),
                brief(pipeline.statusOrNull(pipeline.sinkName))));
        return -1;
      }
      LockSupport.parkNanos(200_000_000L);
    }
  }

  /** What the target still lacks, or null. */
  private String missing(long transfers, long batches, List<String> columns) {
    long have = Db.number(target, "SELECT count(*) FROM transfers WHERE id <= " + transfers);
    if (have != transfers) {
      return "transfers: " + have + " of 1.." + transfers;
    }
    long batchRows =
        Db.number(target, "SELECT count(*) FROM bulk_batches WHERE batch <= " + batches);
    if (batchRows != batches) {
      return "large transactions: " + batchRows + " of 1.." + batches;
    }
    for (Workload.Table t : workload.tables()) {
      if (t.fixedRows() > 0) {
        long n = Db.number(target, "SELECT count(*) FROM " + t.name());
        if (n != t.fixedRows()) {
          return t.name() + ": " + n + " of " + t.fixedRows() + " rows";
        }
      }
    }
    if (!columns.isEmpty()) {
      Set<String> present =
          new HashSet<>(
              Db.rows(
                      target,
                      "SELECT table_name || '.' || column_name FROM information_schema.columns"
                          + " WHERE table_schema = 'public'")
                  .stream()
                  .map(r -> r.get(0))
                  .toList());
      for (String c : columns) {
        if (!present.contains(c) && !reportedColumns.contains(c)) {
          return "column " + c + " not on the target";
        }
      }
    }
    return null;
  }

  /** A FAILED connector or task with the first lines of its trace, or null. */
  String failed() {
    for (String name : List.of(pipeline.sourceName, pipeline.sinkName)) {
      ConnectorStatus s = pipeline.statusOrNull(name);
      if (s != null && s.isFailed()) {
        String trace = s.firstTrace();
        return name
            + " FAILED: "
            + brief(s)
            + "\n"
            + (trace == null ? "" : Diagnostics.head(trace, 12));
      }
    }
    return null;
  }

  static String brief(ConnectorStatus s) {
    if (s == null) {
      return "(no status)";
    }
    return s.state()
        + " "
        + s.tasks().stream()
            .map(t -> t.id() + ":" + t.state())
            .collect(Collectors.joining(",", "[", "]"));
  }

  /**
   * With the writer stopped: the target equal to the source table by table, then lost, extra and
   * twice. Returns the seconds the final convergence took, -1 after a violation.
   */
  double finalChecks() {
    Map<String, String> expected = fingerprints(source);
    long started = System.nanoTime();
    Map<String, String> actual = Map.of();
    while (true) {
      String failed = failed();
      if (failed != null) {
        findings.violation(Violation.FAILED, "final convergence: " + failed);
        return -1;
      }
      try {
        actual = fingerprints(target);
      } catch (RuntimeException e) {
        actual = Map.of("error", e.getMessage());
      }
      if (actual.equals(expected)) {
        break;
      }
      if (System.nanoTime() - started > boundNanos) {
        reportDifferences(expected, actual);
        return -1;
      }
      LockSupport.parkNanos(250_000_000L);
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    if (!columns(source).equals(columns(target))) {
      findings.violation(
          Violation.DIVERGED,
          "columns differ: source " + columns(source) + ", target " + columns(target));
    }
    audit();
    List<List<String>> twice =
        Db.rows(
            target,
            "SELECT transaction_id, count(*) FROM trellara_sink.applied_transactions"
                + " WHERE transaction_id <> 'snapshot' GROUP BY 1 HAVING count(*) > 1 LIMIT 10");
    if (!twice.isEmpty()) {
      findings.violation(
          Violation.TWICE, "source transactions recorded as applied more than once: " + twice);
    }
    return seconds;
  }

  /** Per table: row count and md5 of the md5s of its rows in key order. */
  private Map<String, String> fingerprints(PostgresDatabase db) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Workload.Table t : workload.tables()) {
      out.put(
          t.name(),
          Db.text(
              db,
              "SELECT count(*) || ':' || coalesce(md5(string_agg(md5(x::text), '' ORDER BY "
                  + t.key()
                  + ")), '') FROM "
                  + t.name()
                  + " x"));
    }
    return out;
  }

  private List<List<String>> columns(PostgresDatabase db) {
    return Db.rows(
        db,
        "SELECT table_name, column_name, data_type FROM information_schema.columns"
            + " WHERE table_schema = 'public' ORDER BY table_name, ordinal_position");
  }

  private void reportDifferences(Map<String, String> expected, Map<String, String> actual) {
    List<String> diff = new ArrayList<>();
    expected.forEach(
        (table, fp) -> {
          if (!fp.equals(actual.get(table))) {
            diff.add(table + " source " + fp + " target " + actual.get(table));
          }
        });
    Set<Long> sourceIds = ids(source);
    Set<Long> targetIds;
    try {
      targetIds = ids(target);
    } catch (RuntimeException e) {
      findings.violation(
          Violation.STALLED,
          "final convergence: target unreadable (" + e.getMessage() + "); differences " + diff);
      return;
    }
    List<Long> lost = sourceIds.stream().filter(id -> !targetIds.contains(id)).sorted().toList();
    List<Long> extra = targetIds.stream().filter(id -> !sourceIds.contains(id)).sorted().toList();
    if (!lost.isEmpty() || !extra.isEmpty()) {
      findings.violation(
          Violation.LOST,
          String.format(
              Locale.ROOT,
              "transfers lost %d %s, extra %d %s",
              lost.size(),
              lost.subList(0, Math.min(10, lost.size())),
              extra.size(),
              extra.subList(0, Math.min(10, extra.size()))));
    }
    findings.violation(
        lost.isEmpty() && extra.isEmpty() ? Violation.DIVERGED : Violation.STALLED,
        "final convergence: target not equal to the source within "
            + boundNanos / 1_000_000_000L
            + " s: "
            + diff
            + "; source "
            + brief(pipeline.statusOrNull(pipeline.sourceName))
            + ", sink "
            + brief(pipeline.statusOrNull(pipeline.sinkName)));
  }

  private static Set<Long> ids(PostgresDatabase db) {
    return Db.rows(db, "SELECT id FROM transfers").stream()
        .map(r -> Long.parseLong(r.get(0)))
        .collect(Collectors.toSet());
  }

  /**
   * Twice: a transfer inserted more often than once plus once after each delete of it and each
   * truncate of the table since its first insert (a snapshot that replaces the table loads it
   * again).
   */
  private void audit() {
    long triggers =
        Db.number(
            target,
            "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'public.transfers'::regclass"
                + " AND tgname LIKE 'crash_audit%'");
    if (triggers < 2) {
      findings.note(
          "the audit triggers on the target's transfers are gone (the table was replaced by"
              + " another): twice is judged from the sink's dedup records and the rows only");
      return;
    }
    List<List<String>> counts =
        Db.rows(
            target,
            "SELECT op, count(*) FROM crash_audit.events WHERE tbl = 'transfers' GROUP BY op"
                + " ORDER BY op");
    findings.note("target audit of transfers (op, count): " + counts);
    List<List<String>> twice =
        Db.rows(
            target,
            "WITH e AS (SELECT * FROM crash_audit.events WHERE tbl = 'transfers'),"
                + " i AS (SELECT id, count(*) AS n, min(seq) AS first FROM e WHERE op = 'I'"
                + " GROUP BY id), d AS (SELECT id, count(*) AS n FROM e WHERE op = 'D' GROUP BY id)"
                + " SELECT i.id, i.n, coalesce(d.n, 0),"
                + " (SELECT count(*) FROM e t WHERE t.op = 'T' AND t.seq > i.first) AS truncates"
                + " FROM i LEFT JOIN d USING (id) WHERE i.n > 1 + coalesce(d.n, 0)"
                + " + (SELECT count(*) FROM e t WHERE t.op = 'T' AND t.seq > i.first)"
                + " ORDER BY i.id LIMIT 10");
    if (!twice.isEmpty()) {
      findings.violation(
          Violation.TWICE,
          "transfers inserted on the target more often than once per load"
              + " (id, inserts, deletes, truncates since): "
              + twice);
    }
  }
}
