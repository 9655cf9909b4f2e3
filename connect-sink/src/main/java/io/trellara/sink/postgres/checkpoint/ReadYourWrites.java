package io.trellara.sink.postgres.checkpoint;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read-your-writes on the target (docs/read-your-writes.md): the view {@code trellara.applied} (per
 * source and flow, the newest transaction applied) and the function {@code trellara.wait_for_lsn}
 * (true once every flow asked for has applied a transaction whose commit LSN is at or past the
 * given source LSN). Both read only the dedup records the apply transaction writes already ({@code
 * trellara_sink.applied_transactions}): the apply path pays nothing for them.
 *
 * <p>Created with the sink's other objects, in {@link CheckpointStore#createSchema}'s transaction
 * under its advisory lock. The schema {@code trellara} is the user-facing one (what services call);
 * a least-privilege sink role without CREATE on the database cannot make it, and read-your-writes
 * is optional: then it is skipped with a warning naming what an administrator runs, and the sink
 * starts as before (an upgrade must not stop a running pipeline over a feature it never used).
 */
public final class ReadYourWrites {
  public static final String SCHEMA = "trellara";
  private static final Logger LOG = LoggerFactory.getLogger(ReadYourWrites.class);

  /**
   * Whether the sink role can put its objects into {@code trellara}: the schema exists and it may
   * create in it, or it may create the schema; and no view or function of those names belongs to
   * another role (CREATE OR REPLACE would fail there).
   */
  private static final String USABLE =
      """
        SELECT CASE
          WHEN pg_catalog.to_regnamespace('trellara') IS NULL
            THEN pg_catalog.has_database_privilege(pg_catalog.current_database(), 'CREATE')
          ELSE pg_catalog.has_schema_privilege('trellara', 'CREATE')
        END AND NOT EXISTS (
          SELECT 1 FROM pg_catalog.pg_class c
           WHERE c.oid = pg_catalog.to_regclass('trellara.applied')
             AND NOT pg_catalog.pg_has_role(c.relowner, 'USAGE')
          UNION ALL
          SELECT 1 FROM pg_catalog.pg_proc p
           WHERE p.pronamespace = pg_catalog.to_regnamespace('trellara')
             AND p.proname = 'wait_for_lsn' AND NOT pg_catalog.pg_has_role(p.proowner, 'USAGE'))""";

  /**
   * The newest applied transaction of each flow, found through the index {@code
   * applied_transactions_flow_order} (source_id, dataset_id, commit_lsn_value): a skip scan over
   * the flows and one index probe each, so its cost grows with the number of flows, not with the
   * dedup records (which are never pruned). At one LSN the snapshot orders before a streamed
   * transaction (CommitOrder.Position). Dedup is per flow, not per sink, so a flow is applied by
   * one sink at a time: sink_name is the sink that applied its newest transaction.
   */
  private static final String NEWEST_PER_FLOW =
      """
        WITH RECURSIVE flows(source_id, dataset_id) AS (
          (SELECT a.source_id, a.dataset_id FROM trellara_sink.applied_transactions a
            ORDER BY a.source_id, a.dataset_id LIMIT 1)
          UNION ALL
          SELECT n.source_id, n.dataset_id FROM flows f CROSS JOIN LATERAL (
            SELECT a.source_id, a.dataset_id FROM trellara_sink.applied_transactions a
             WHERE (a.source_id, a.dataset_id) > (f.source_id, f.dataset_id)
             ORDER BY a.source_id, a.dataset_id LIMIT 1) n)
        SELECT l.sink_name, f.source_id, f.dataset_id, l.commit_lsn, l.transaction_id,
               l.commit_timestamp AS source_commit_time, l.applied_at
          FROM flows f CROSS JOIN LATERAL (
            SELECT a.sink_name, a.commit_lsn, a.transaction_id, a.commit_timestamp, a.applied_at
              FROM trellara_sink.applied_transactions a
             WHERE a.source_id = f.source_id AND a.dataset_id = f.dataset_id
             ORDER BY a.commit_lsn_value DESC, (a.transaction_id = 'snapshot') ASC LIMIT 1) l""";

  private static final String[] DDL = {
    """
        DO $$ BEGIN
          IF pg_catalog.to_regnamespace('trellara') IS NULL THEN
            CREATE SCHEMA trellara;
          END IF;
        END $$""",
    "CREATE OR REPLACE VIEW trellara.applied AS " + NEWEST_PER_FLOW,
    "REVOKE ALL ON trellara.applied FROM PUBLIC",
    // The wait. A function runs inside one statement of the caller's transaction: it cannot
    // receive a NOTIFY (delivered between transactions), so it reads the view again after short
    // sleeps that back off from 1 ms by 1.5 times to 20 ms (at most about half the time waited so
    // far
    // is added to it, and 50 cheap reads a second at worst), never past the deadline. Each
    // read is a new statement, so under READ COMMITTED it sees every apply committed since (a
    // REPEATABLE READ snapshot never would: refused). SECURITY DEFINER with a pinned search_path:
    // a caller needs EXECUTE only, not the sink's tables, and no object of the caller's can stand
    // in for one named here.
    """
        CREATE OR REPLACE FUNCTION trellara.wait_for_lsn(
            lsn pg_lsn, timeout interval, source_id text, dataset_id text DEFAULT NULL)
          RETURNS boolean LANGUAGE plpgsql VOLATILE SECURITY DEFINER
          SET search_path = pg_catalog, pg_temp AS $f$
        DECLARE
          deadline timestamptz := pg_catalog.clock_timestamp() + timeout;
          pause double precision := 0.001;
          left_s double precision;
        BEGIN
          IF lsn IS NULL OR timeout IS NULL OR source_id IS NULL THEN
            RAISE EXCEPTION 'trellara.wait_for_lsn: lsn, timeout and source_id must not be null'
              USING ERRCODE = '22004';
          END IF;
          IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
            RAISE EXCEPTION 'trellara.wait_for_lsn needs READ COMMITTED: a % snapshot never sees the sink''s progress',
              pg_catalog.current_setting('transaction_isolation') USING ERRCODE = '25001';
          END IF;
          LOOP
            IF EXISTS (SELECT 1 FROM trellara.applied a
                        WHERE a.source_id = wait_for_lsn.source_id
                          AND (wait_for_lsn.dataset_id IS NULL OR a.dataset_id = wait_for_lsn.dataset_id))
               AND NOT EXISTS (SELECT 1 FROM trellara.applied a
                        WHERE a.source_id = wait_for_lsn.source_id
                          AND (wait_for_lsn.dataset_id IS NULL OR a.dataset_id = wait_for_lsn.dataset_id)
                          AND a.commit_lsn < wait_for_lsn.lsn) THEN
              RETURN true;
            END IF;
            left_s := EXTRACT(EPOCH FROM deadline - pg_catalog.clock_timestamp());
            IF left_s <= 0 THEN
              RETURN false;
            END IF;
            PERFORM pg_catalog.pg_sleep(LEAST(pause, left_s));
            pause := LEAST(pause * 1.5, 0.02);
          END LOOP;
        END $f$""",
    // one source on the target (the usual case): the same without naming it; several are an
    // error, since LSNs of two source servers are not comparable
    """
        CREATE OR REPLACE FUNCTION trellara.wait_for_lsn(lsn pg_lsn, timeout interval)
          RETURNS boolean LANGUAGE plpgsql VOLATILE SECURITY DEFINER
          SET search_path = pg_catalog, pg_temp AS $f$
        DECLARE
          deadline timestamptz := pg_catalog.clock_timestamp() + timeout;
          pause double precision := 0.001;
          sources text[];
        BEGIN
          IF lsn IS NULL OR timeout IS NULL THEN
            RAISE EXCEPTION 'trellara.wait_for_lsn: lsn and timeout must not be null'
              USING ERRCODE = '22004';
          END IF;
          IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
            RAISE EXCEPTION 'trellara.wait_for_lsn needs READ COMMITTED: a % snapshot never sees the sink''s progress',
              pg_catalog.current_setting('transaction_isolation') USING ERRCODE = '25001';
          END IF;
          LOOP
            sources := ARRAY(SELECT DISTINCT a.source_id FROM trellara.applied a ORDER BY 1);
            IF pg_catalog.cardinality(sources) > 1 THEN
              RAISE EXCEPTION 'trellara.wait_for_lsn: this target applies several sources (%): name one, as in trellara.wait_for_lsn(lsn, timeout, source_id)',
                pg_catalog.array_to_string(sources, ', ') USING ERRCODE = '22023';
            END IF;
            IF pg_catalog.cardinality(sources) = 1 THEN
              RETURN trellara.wait_for_lsn(lsn,
                  GREATEST(deadline - pg_catalog.clock_timestamp(), interval '0'), sources[1]);
            END IF;
            IF pg_catalog.clock_timestamp() >= deadline THEN
              RETURN false;
            END IF;
            PERFORM pg_catalog.pg_sleep(LEAST(pause,
                EXTRACT(EPOCH FROM deadline - pg_catalog.clock_timestamp())));
            pause := LEAST(pause * 1.5, 0.02);
          END LOOP;
        END $f$""",
    // not for PUBLIC: a call holds a backend and its snapshot (the vacuum horizon) for up to its
    // timeout, which the caller chooses; the operator grants EXECUTE to the services that read
    "REVOKE ALL ON FUNCTION trellara.wait_for_lsn(pg_lsn, interval, text, text) FROM PUBLIC",
    "REVOKE ALL ON FUNCTION trellara.wait_for_lsn(pg_lsn, interval) FROM PUBLIC"
  };

  private ReadYourWrites() {}

  /** Creates or replaces the view and the functions in the caller's transaction (see class). */
  static void create(Statement s) throws SQLException {
    boolean usable;
    try (ResultSet rs = s.executeQuery(USABLE)) {
      usable = rs.next() && rs.getBoolean(1);
    }
    if (!usable) {
      LOG.warn(
          "Read-your-writes (the view trellara.applied, the function trellara.wait_for_lsn) is"
              + " not installed: this role may not create the schema trellara or in it, or another"
              + " role owns those objects. An administrator runs CREATE SCHEMA trellara"
              + " AUTHORIZATION <the sink's role>; the sink then creates them at its next start"
              + " (docs/read-your-writes.md)");
      return;
    }
    for (String ddl : DDL) {
      s.execute(ddl);
    }
  }
}
