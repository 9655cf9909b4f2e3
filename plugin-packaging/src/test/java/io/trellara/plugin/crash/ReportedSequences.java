package io.trellara.plugin.crash;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The sequences users reported, as fixed plans: each is a regression test, run by name with {@code
 * -Dtrellara.crash.sequence=reported-1} (or its text). Connect's default offset flush interval (60
 * s), as the users ran.
 */
public final class ReportedSequences {
  private ReportedSequences() {}

  /** Name to plan text. */
  public static final Map<String, String> PLANS = plans();

  private static Map<String, String> plans() {
    Map<String, String> plans = new LinkedHashMap<>();
    // 1: a pre-filled source (many tables, TOASTed values, composite text keys, uuid keys),
    // transfers running, snapshot.mode=initial, snapshot.apply=atomic; kill -9 during the
    // snapshot, restart. Reported: the source snapshotted again, the sink hung for ever (its task
    // thread in pgjdbc issuing a statement while a COPY was open on the same connection), RUNNING,
    // holding ACCESS EXCLUSIVE on a table every reader waited behind.
    plans.put(
        "reported-1",
        "seed=0 mode=strict size=big apply=atomic streaming=off flush=60000:"
            + " KILL_SNAPSHOT(at=0.50,down=1.00)");
    // 1, its other form: the kill just after the snapshot was published and applied, before
    // Connect flushed the source offsets: the source snapshots again, and the sink, replacing the
    // tables with a snapshot that reached it whole, hangs (small tables: the whole snapshot in one
    // fetch).
    plans.put(
        "reported-1b",
        "seed=0 mode=strict size=small apply=atomic streaming=off flush=60000:"
            + " KILL_PUBLISHED(when=applied,down=1.00)");
    // 1 with the big tables: the replacing snapshot streams in chunk by chunk; it holds ACCESS
    // EXCLUSIVE on every table it has replaced until it commits, and TRUNCATE is not MVCC-safe.
    plans.put(
        "reported-1c",
        "seed=0 mode=strict size=big apply=atomic streaming=off flush=60000:"
            + " KILL_PUBLISHED(when=applied,down=1.00)");
    // 2: a smaller pre-filled source with transfers throughout, one fault after another. Reported:
    // after the last kill the source found no offsets and snapshotted everything again; the sink
    // replaced all tables: a reader was blocked 9.9 s, and a REPEATABLE READ reader whose snapshot
    // predated the replacing transaction saw all tables empty.
    plans.put(
        "reported-2",
        "seed=0 mode=strict size=small apply=atomic streaming=off flush=60000:"
            + " KILL_SNAPSHOT(t=3.7,down=1.00); BROKER_RESTART(down=1.00); DDL(table=transfers);"
            + " RESTART(which=sink); RECREATE(which=sink); TARGET_OUTAGE(s=30);"
            + " SOURCE_PG_RESTART(down=1.00); KILL_STREAMING(after=2.00,down=1.00)");
    // 3: kill -9 10 s into the initial snapshot (77 % read), then a source PostgreSQL restart.
    // Reported: the same hang as 1.
    plans.put(
        "reported-3",
        "seed=0 mode=strict size=big apply=atomic streaming=off flush=60000:"
            + " KILL_SNAPSHOT(at=0.77,down=1.00); SOURCE_PG_RESTART(down=1.00)");
    return java.util.Collections.unmodifiableMap(plans);
  }

  /** A reported sequence by name, or the plan text itself parsed. */
  public static SequencePlan named(String nameOrText) {
    String text = PLANS.getOrDefault(nameOrText.trim(), nameOrText);
    return SequencePlan.parse(text);
  }
}
