package io.trellara.benchmarks.e2e.resnap;

import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.PostgresServer;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL's own way to start replicating a table while a subscription streams others: W1's
 * tables published and subscribed ({@code copy_data = false}: both sides start equal), then the big
 * table added to the publication and {@code ALTER SUBSCRIPTION ... REFRESH PUBLICATION WITH
 * (copy_data = true)}: a tablesync worker copies it beside the apply worker. Native has no
 * re-snapshot of a table it already replicates, so the target's big table starts empty (as a table
 * added to capture does with Trellara).
 */
final class NativeResnapLeg implements ResnapLeg {
  private final PostgresDatabase source;
  private final PostgresServer targetServer;
  private final long rows;
  private final String subscription;
  private final String publication;
  private PostgresDatabase target;

  /** When the big table's tablesync state was first seen, by state (i, d, f, s, r). */
  private final Map<String, Long> stateSeen = new LinkedHashMap<>();

  private long triggered;

  NativeResnapLeg(PostgresDatabase source, PostgresServer targetServer, long rows) {
    this.source = source;
    this.targetServer = targetServer;
    this.rows = rows;
    this.subscription = source.name() + "_native_sub";
    this.publication = source.name() + "_native_pub";
  }

  @Override
  public String name() {
    return "native";
  }

  @Override
  public void start() throws Exception {
    ResnapshotBenchmark.recreateW1(source);
    target = targetServer.createDatabase("resnap_native");
    target.execute(ResnapshotBenchmark.BIG);
    target.execute(W1Writer.SCHEMA);
    source.execute("CREATE PUBLICATION " + publication + " FOR TABLE account, transfer");
    target.execute(
        "CREATE SUBSCRIPTION "
            + subscription
            + " CONNECTION 'host="
            + source.host()
            + " port="
            + source.port()
            + " dbname="
            + source.name()
            + " user="
            + source.user()
            + " password="
            + source.password()
            + "' PUBLICATION "
            + publication
            + " WITH (copy_data = false)");
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (target.queryLong(
                "SELECT count(*) FROM pg_stat_subscription WHERE subname = '"
                    + subscription
                    + "' AND relid IS NULL AND pid IS NOT NULL")
            != 1
        || target.queryLong(
                "SELECT count(*) FROM pg_subscription_rel r JOIN pg_subscription s"
                    + " ON s.oid = r.srsubid WHERE s.subname = '"
                    + subscription
                    + "' AND r.srsubstate = 'r'")
            != 2) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("subscription " + subscription + " not ready in 60 s");
      }
      Thread.sleep(50);
    }
  }

  @Override
  public PostgresDatabase target() {
    return target;
  }

  @Override
  public Set<Long> wholeCounts() {
    return Set.of(0L, rows);
  }

  @Override
  public void trigger() {
    triggered = System.nanoTime();
    source.execute("ALTER PUBLICATION " + publication + " ADD TABLE big");
    target.execute(
        "ALTER SUBSCRIPTION " + subscription + " REFRESH PUBLICATION WITH (copy_data = true)");
  }

  /** Synchronised ({@code s}) or ready ({@code r}): the copy committed and caught up. */
  @Override
  public boolean loaded() {
    String state =
        target.queryString(
            "SELECT coalesce((SELECT r.srsubstate::text FROM pg_subscription_rel r"
                + " JOIN pg_subscription s ON s.oid = r.srsubid WHERE s.subname = '"
                + subscription
                + "' AND r.srrelid = 'public.big'::regclass), '-')");
    stateSeen.putIfAbsent(state, System.nanoTime());
    return state.equals("s") || state.equals("r");
  }

  @Override
  public String details() {
    StringBuilder b = new StringBuilder("tablesync state first seen:");
    stateSeen.forEach(
        (state, at) ->
            b.append(String.format(Locale.ROOT, " %s +%.1f s", state, (at - triggered) / 1e9)));
    return b.append(" (d: copying, f: copy committed, s/r: caught up)").toString();
  }

  @Override
  public void close() {
    try {
      if (target != null) {
        target.execute("DROP SUBSCRIPTION IF EXISTS " + subscription);
        target.drop();
      }
      source.execute("DROP PUBLICATION IF EXISTS " + publication);
    } catch (RuntimeException e) {
      System.out.println("native: teardown incomplete: " + e.getMessage());
    }
  }
}
