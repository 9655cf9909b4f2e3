-- Trellara DDL capture: event triggers that describe every DDL statement in a transactional logical
-- decoding message (prefix 'trellara.ddl'), so the DDL arrives inside its transaction, in order with the
-- row changes, and the source connector turns it into a DdlEvent.
--
-- The triggers are database-wide and shared by every connector on the database: they describe every
-- statement and name the tables it concerns; each connector keeps only the DDL of the tables it captures.
--
-- Run it as a superuser (event triggers require one). Idempotent: run it again to upgrade.
-- Remove both triggers and their functions together with:
--   DROP EVENT TRIGGER IF EXISTS trellara_ddl_capture; DROP EVENT TRIGGER IF EXISTS trellara_ddl_capture_drop;
--   DROP FUNCTION IF EXISTS trellara.emit_ddl(); DROP FUNCTION IF EXISTS trellara.note_dropped();
--
-- One message per top-level statement (ddl_command_end fires once per statement), its content exactly:
--   {"command_tag" : "...", "object_type" : "...", "object_identity" : "...", "schema_name" : "...",
--    "statement" : "...", "search_path" : "...", "relations" : "...", "temporary" : "true"|"false",
--    "role" : "...", "session_user" : "...", "schemas" : "..."}
-- command_tag is TG_TAG; object_type, object_identity and schema_name describe one row of
-- pg_event_trigger_ddl_commands(): the first row whose command_tag is the statement's own (CREATE TABLE
-- with a serial column first reports its sequence), else the first row, else NULL (e.g. DROP, which that
-- function does not report); statement is current_query() (the whole query string the client sent);
-- search_path is the search_path in force.
--
-- relations lists the relations the affected objects belong to, comma-separated, each entry
--   "schema"."table":oid
-- with both names always double-quoted and embedded double quotes doubled (so commas, dots and quotes in
-- names are unambiguous), oid the relation's pg_class OID or 0 when no longer known. Owners: a relation
-- itself (table, view, ...); an index's table (pg_index.indrelid); the table of a constraint, trigger,
-- default, rule, policy or extended statistics object; the table a sequence is OWNED BY (or that owns its
-- identity); a TOAST table's table. Objects of the statement that were dropped come from the sql_drop
-- trigger (pg_event_trigger_dropped_objects(), rows that are original or normal, i.e. not internal/auto
-- dependents): a dropped relation or column with its OID, a dropped constraint, trigger, default, rule or
-- policy with its table's names and oid 0. A dropped index or sequence no longer names its table and is not
-- listed. Entries appear in the order the objects were reported and may repeat; "" when none (e.g. GRANT,
-- CREATE FUNCTION).
-- temporary is "true" when every object the statement reported is temporary (a temporary relation, or in a
-- pg_temp schema), else "false" (also when nothing was reported).
--
-- role is the role the statement ran as: the role of SET ROLE when one is in force, else the session's login
-- role; session_user is the login role. Both are read inside this SECURITY DEFINER function (where current_user
-- is the function's owner): session_user cannot be changed by the session (SET SESSION AUTHORIZATION needs a
-- superuser) and the role setting only takes roles the session user may SET ROLE to, so neither can be forged
-- by the DDL's author. The connector publishes a DDL message only when its role is one of ddl.message.roles.
--
-- Who can emit a message with this prefix at all: this script revokes EXECUTE on every
-- pg_catalog.pg_logical_emit_message from PUBLIC (the function takes 3 arguments before PostgreSQL 17, 4 from
-- 17 on). Afterwards only superusers, roles an administrator granted EXECUTE to, and the functions below (owned
-- by the superuser who ran this script) can write a logical message, so a role that can merely log in can no
-- longer write a DDL message, or any other, with a forged role. The connector's heartbeat
-- (heartbeat.interval.ms) needs EXECUTE for the connector's role when that role is not a superuser:
--   GRANT EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(boolean, text, text, boolean) TO <role>;
-- (PostgreSQL 17; (boolean, text, text) before 17). Every role with EXECUTE can forge DDL messages: grant it
-- only to roles as trusted as the tables' owners.
--
-- schemas describes, after the statement, each owning relation that is still an ordinary table (relkind 'r', not
-- a partition, in no publication with a column list: pgoutput would send fewer columns), as the next pgoutput
-- Relation message will describe it, comma-separated, each entry
--   "schema"."table":oid:replident|"column":typeoid:typmod:key:"typeschema"."typename"|...
-- names quoted as in relations; replident is pg_class.relreplident (d, n, f, i); one |column per column in
-- attnum order, dropped and generated columns left out (pgoutput leaves them out); key is 1 when pgoutput flags
-- the column as part of the replica identity (every column under FULL; the primary key's under DEFAULT; the
-- replica identity index's under INDEX), else 0; typeschema.typename is the column type's base type (a domain's
-- base type, as pgoutput's Type message names it). Read inside the DDL's transaction at ddl_command_end, so
-- it is exactly the catalog the statement left; the connector publishes it as the relation's schema version
-- in the DDL's own transaction (docs/protocol.md, "Schema versions from DDL").
--
-- trellara-ddl-capture version 4 (the connector re-runs this script when the installed emit_ddl is older)
--
-- The sql_drop trigger runs before ddl_command_end of the same statement; it leaves what it saw in
-- transaction-local settings (trellara.dropped_relations, trellara.dropped_temporary) that emit_ddl reads and
-- clears, so a statement still yields exactly one message.
--
-- SECURITY DEFINER so that users without the privilege to call pg_logical_emit_message still have their
-- DDL captured; every name is schema-qualified (functions, types, operators) because the functions run
-- with the caller's search_path, which they must not pin: emit_ddl reports that search_path.

DROP EVENT TRIGGER IF EXISTS trellara_ddl_capture;
DROP EVENT TRIGGER IF EXISTS trellara_ddl_capture_drop;

DO $trellara$
DECLARE
  v_function pg_catalog.regprocedure;
BEGIN
  FOR v_function IN SELECT p.oid::pg_catalog.regprocedure FROM pg_catalog.pg_proc p
       WHERE p.proname OPERATOR(pg_catalog.=) 'pg_logical_emit_message'
         AND p.pronamespace OPERATOR(pg_catalog.=) 'pg_catalog'::pg_catalog.regnamespace LOOP
    EXECUTE pg_catalog.format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', v_function);
  END LOOP;
END;
$trellara$;

CREATE SCHEMA IF NOT EXISTS trellara;

-- A schema trellara (or a function in it) created beforehand by a role that is not a superuser would stay that
-- role's: it could drop or replace the functions every DDL statement of the database runs. Refuse to install
-- into it; an administrator drops it (or changes its owner) first.
DO $trellara$
DECLARE
  v_owner pg_catalog.text;
BEGIN
  SELECT r.rolname INTO v_owner
    FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) n.nspowner
   WHERE n.nspname OPERATOR(pg_catalog.=) 'trellara' AND NOT r.rolsuper;
  IF v_owner IS NULL THEN
    SELECT r.rolname INTO v_owner
      FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) p.proowner
     WHERE p.pronamespace OPERATOR(pg_catalog.=) 'trellara'::pg_catalog.regnamespace AND NOT r.rolsuper
     LIMIT 1;
  END IF;
  IF v_owner IS NOT NULL THEN
    RAISE EXCEPTION 'schema trellara or a function in it is owned by %, which is not a superuser', v_owner
      USING HINT = 'Drop the schema trellara (or ALTER SCHEMA trellara OWNER TO a superuser and drop the functions'
        ' in it), then run trellara-ddl-capture.sql again.';
  END IF;
END;
$trellara$;

CREATE OR REPLACE FUNCTION trellara.note_dropped() RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
AS $trellara$
DECLARE
  v_relations pg_catalog.text;
  v_temporary pg_catalog.bool;
  v_prior pg_catalog.text := pg_catalog.current_setting('trellara.dropped_relations', true);
  v_prior_temporary pg_catalog.text := pg_catalog.current_setting('trellara.dropped_temporary', true);
BEGIN
  SELECT pg_catalog.string_agg(pg_catalog.format('"%s"."%s":%s',
             pg_catalog.replace(d.address_names[1], '"', '""'), pg_catalog.replace(d.address_names[2], '"', '""'),
             CASE WHEN d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid
                  THEN d.objid ELSE 0::pg_catalog.oid END),
           ',' ORDER BY d.ordinality)
           FILTER (WHERE d.object_type OPERATOR(pg_catalog.=) ANY (ARRAY['table', 'table column', 'view',
               'materialized view', 'foreign table', 'table constraint', 'trigger', 'default value', 'rule',
               'policy']::pg_catalog.text[])
             AND pg_catalog.array_length(d.address_names, 1) OPERATOR(pg_catalog.>=) 2),
         pg_catalog.bool_and(d.is_temporary)
    INTO v_relations, v_temporary
    FROM pg_catalog.pg_event_trigger_dropped_objects() WITH ORDINALITY AS d
   WHERE d.original OR d.normal;
  IF v_temporary IS NULL THEN
    RETURN;
  END IF;
  IF v_prior IS NOT NULL AND v_prior OPERATOR(pg_catalog.<>) '' THEN
    v_relations := pg_catalog.concat_ws(',', v_prior, v_relations);
  END IF;
  IF v_prior_temporary OPERATOR(pg_catalog.=) 'false' THEN
    v_temporary := false;
  END IF;
  PERFORM pg_catalog.set_config('trellara.dropped_relations', COALESCE(v_relations, ''), true);
  PERFORM pg_catalog.set_config('trellara.dropped_temporary', CASE WHEN v_temporary THEN 'true' ELSE 'false' END,
      true);
END;
$trellara$;

CREATE OR REPLACE FUNCTION trellara.emit_ddl() RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
AS $trellara$
DECLARE
  v_object_type pg_catalog.text;
  v_object_identity pg_catalog.text;
  v_schema_name pg_catalog.text;
  v_relations pg_catalog.text;
  v_temporary pg_catalog.bool;
  v_schemas pg_catalog.text;
  v_dropped pg_catalog.text := pg_catalog.current_setting('trellara.dropped_relations', true);
  v_dropped_temporary pg_catalog.text := pg_catalog.current_setting('trellara.dropped_temporary', true);
BEGIN
  SELECT c.object_type, c.object_identity, c.schema_name
    INTO v_object_type, v_object_identity, v_schema_name
    FROM pg_catalog.pg_event_trigger_ddl_commands() WITH ORDINALITY AS c
   ORDER BY (c.command_tag OPERATOR(pg_catalog.=) TG_TAG) DESC, c.ordinality
   LIMIT 1;

  -- the relation each reported object belongs to (owner), then its quoted entry; ordered by first report
  WITH cmd AS (
    SELECT c.ordinality, c.schema_name, c.classid, c.objid,
           CASE WHEN c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid
                THEN COALESCE(
                  (SELECT i.indrelid FROM pg_catalog.pg_index i WHERE i.indexrelid OPERATOR(pg_catalog.=) c.objid),
                  (SELECT d.refobjid FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class s
                       ON s.oid OPERATOR(pg_catalog.=) d.objid AND s.relkind OPERATOR(pg_catalog.=) 'S'
                    WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid
                      AND d.objid OPERATOR(pg_catalog.=) c.objid
                      AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid
                      AND (d.deptype OPERATOR(pg_catalog.=) 'a' OR d.deptype OPERATOR(pg_catalog.=) 'i')
                    LIMIT 1),
                  (SELECT t.oid FROM pg_catalog.pg_class t WHERE t.reltoastrelid OPERATOR(pg_catalog.=) c.objid),
                  c.objid)
                WHEN c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_constraint'::pg_catalog.regclass::pg_catalog.oid
                THEN (SELECT k.conrelid FROM pg_catalog.pg_constraint k WHERE k.oid OPERATOR(pg_catalog.=) c.objid)
                WHEN c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_trigger'::pg_catalog.regclass::pg_catalog.oid
                THEN (SELECT g.tgrelid FROM pg_catalog.pg_trigger g WHERE g.oid OPERATOR(pg_catalog.=) c.objid)
                WHEN c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_attrdef'::pg_catalog.regclass::pg_catalog.oid
                THEN (SELECT a.adrelid FROM pg_catalog.pg_attrdef a WHERE a.oid OPERATOR(pg_catalog.=) c.objid)
                WHEN c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass::pg_catalog.oid
                THEN (SELECT w.ev_class FROM pg_catalog.pg_rewrite w WHERE w.oid OPERATOR(pg_catalog.=) c.objid)
                WHEN c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_policy'::pg_catalog.regclass::pg_catalog.oid
                THEN (SELECT p.polrelid FROM pg_catalog.pg_policy p WHERE p.oid OPERATOR(pg_catalog.=) c.objid)
                WHEN c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass::pg_catalog.oid
                THEN (SELECT x.stxrelid FROM pg_catalog.pg_statistic_ext x WHERE x.oid OPERATOR(pg_catalog.=) c.objid)
           END AS owner
      FROM pg_catalog.pg_event_trigger_ddl_commands() WITH ORDINALITY AS c
  ), owned AS (
    SELECT cmd.ordinality,
           CASE WHEN r.oid IS NOT NULL THEN pg_catalog.format('"%s"."%s":%s',
               pg_catalog.replace(n.nspname::pg_catalog.text, '"', '""'),
               pg_catalog.replace(r.relname::pg_catalog.text, '"', '""'), r.oid) END AS entry,
           COALESCE(r.relpersistence OPERATOR(pg_catalog.=) 't',
                    pg_catalog.starts_with(cmd.schema_name, 'pg_temp'), false) AS temporary
      FROM cmd
      LEFT JOIN pg_catalog.pg_class r ON r.oid OPERATOR(pg_catalog.=) cmd.owner
      LEFT JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) r.relnamespace
  )
  SELECT pg_catalog.string_agg(o.entry, ',' ORDER BY o.ordinality) FILTER (WHERE o.entry IS NOT NULL),
         pg_catalog.bool_and(o.temporary),
         (SELECT pg_catalog.string_agg(pg_catalog.format('"%s"."%s":%s:%s',
                     pg_catalog.replace(n.nspname::pg_catalog.text, '"', '""'),
                     pg_catalog.replace(r.relname::pg_catalog.text, '"', '""'), r.oid, r.relreplident)
                   OPERATOR(pg_catalog.||) COALESCE((
                     SELECT pg_catalog.string_agg(pg_catalog.format('|"%s":%s:%s:%s:"%s"."%s"',
                              pg_catalog.replace(a.attname::pg_catalog.text, '"', '""'), a.atttypid, a.atttypmod,
                              CASE WHEN r.relreplident OPERATOR(pg_catalog.=) 'f' OR EXISTS (
                                     SELECT FROM pg_catalog.pg_index i
                                      WHERE i.indrelid OPERATOR(pg_catalog.=) r.oid
                                        AND a.attnum OPERATOR(pg_catalog.=) ANY (i.indkey::pg_catalog.int2[])
                                        AND CASE r.relreplident WHEN 'd' THEN i.indisprimary
                                                                WHEN 'i' THEN i.indisreplident
                                                                ELSE false END)
                                   THEN 1 ELSE 0 END,
                              pg_catalog.replace(bn.nspname::pg_catalog.text, '"', '""'),
                              pg_catalog.replace(bt.typname::pg_catalog.text, '"', '""')),
                            '' ORDER BY a.attnum)
                       FROM pg_catalog.pg_attribute a
                       JOIN pg_catalog.pg_type bt ON bt.oid OPERATOR(pg_catalog.=) (
                              WITH RECURSIVE d(t) AS (
                                SELECT a.atttypid
                                UNION ALL
                                SELECT y.typbasetype FROM pg_catalog.pg_type y JOIN d ON y.oid OPERATOR(pg_catalog.=) d.t
                                 WHERE y.typtype OPERATOR(pg_catalog.=) 'd')
                              SELECT d.t FROM d JOIN pg_catalog.pg_type z ON z.oid OPERATOR(pg_catalog.=) d.t
                               WHERE z.typtype OPERATOR(pg_catalog.<>) 'd' LIMIT 1)
                       JOIN pg_catalog.pg_namespace bn ON bn.oid OPERATOR(pg_catalog.=) bt.typnamespace
                      WHERE a.attrelid OPERATOR(pg_catalog.=) r.oid AND a.attnum OPERATOR(pg_catalog.>) 0
                        AND NOT a.attisdropped AND a.attgenerated OPERATOR(pg_catalog.=) ''), ''),
                   ',' ORDER BY w.first)
            FROM (SELECT c.owner, pg_catalog.min(c.ordinality) AS first FROM cmd c WHERE c.owner IS NOT NULL
                   GROUP BY c.owner) w
            JOIN pg_catalog.pg_class r ON r.oid OPERATOR(pg_catalog.=) w.owner
            JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) r.relnamespace
           WHERE r.relkind OPERATOR(pg_catalog.=) 'r' AND NOT r.relispartition
             AND NOT EXISTS (SELECT FROM pg_catalog.pg_publication_rel p
                              WHERE p.prrelid OPERATOR(pg_catalog.=) r.oid AND p.prattrs IS NOT NULL))
    INTO v_relations, v_temporary, v_schemas
    FROM owned o;

  IF v_dropped IS NOT NULL AND v_dropped OPERATOR(pg_catalog.<>) '' THEN
    v_relations := pg_catalog.concat_ws(',', v_relations, v_dropped);
  END IF;
  IF v_dropped_temporary OPERATOR(pg_catalog.=) 'true' OR v_dropped_temporary OPERATOR(pg_catalog.=) 'false' THEN
    v_temporary := COALESCE(v_temporary, true) AND v_dropped_temporary OPERATOR(pg_catalog.=) 'true';
    PERFORM pg_catalog.set_config('trellara.dropped_relations', '', true);
    PERFORM pg_catalog.set_config('trellara.dropped_temporary', '', true);
  END IF;

  PERFORM pg_catalog.pg_logical_emit_message(
    true,
    'trellara.ddl',
    pg_catalog.json_build_object(
      'command_tag', TG_TAG,
      'object_type', v_object_type,
      'object_identity', v_object_identity,
      'schema_name', v_schema_name,
      'statement', pg_catalog.current_query(),
      'search_path', pg_catalog.current_setting('search_path'),
      'relations', COALESCE(v_relations, ''),
      'temporary', CASE WHEN v_temporary THEN 'true' ELSE 'false' END,
      'role', CASE WHEN pg_catalog.current_setting('role') OPERATOR(pg_catalog.=) 'none'
                   THEN session_user::pg_catalog.text
                   ELSE pg_catalog.current_setting('role') END,
      'session_user', session_user::pg_catalog.text,
      'schemas', COALESCE(v_schemas, ''))::pg_catalog.text);
  -- trellara-ddl-capture version 4
END;
$trellara$;

CREATE EVENT TRIGGER trellara_ddl_capture_drop ON sql_drop EXECUTE FUNCTION trellara.note_dropped();
CREATE EVENT TRIGGER trellara_ddl_capture ON ddl_command_end EXECUTE FUNCTION trellara.emit_ddl();
