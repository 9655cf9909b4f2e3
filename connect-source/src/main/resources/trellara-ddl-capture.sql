-- Trellara DDL capture: an event trigger that describes every DDL statement in a transactional logical
-- decoding message (prefix 'trellara.ddl'), so the DDL arrives inside its transaction, in order with the
-- row changes, and the source connector turns it into a DdlEvent.
--
-- Run it as a superuser (event triggers require one). Idempotent: run it again to upgrade.
-- Remove with: DROP EVENT TRIGGER IF EXISTS trellara_ddl_capture; DROP FUNCTION IF EXISTS trellara.emit_ddl();
--
-- One message per top-level statement (ddl_command_end fires once per statement), its content exactly:
--   {"command_tag" : "...", "object_type" : "...", "object_identity" : "...", "schema_name" : "...",
--    "statement" : "...", "search_path" : "..."}
-- command_tag is TG_TAG; object_type, object_identity and schema_name describe one row of
-- pg_event_trigger_ddl_commands(): the first row whose command_tag is the statement's own (CREATE TABLE
-- with a serial column first reports its sequence), else the first row, else NULL (e.g. DROP, which that
-- function does not report); statement is current_query() (the whole query string the client sent);
-- search_path is the search_path in force.
--
-- SECURITY DEFINER so that users without the privilege to call pg_logical_emit_message still have their
-- DDL captured; every name is schema-qualified (functions, types, the operator) because the function runs
-- with the caller's search_path, which it must not pin: it reports that search_path.

DROP EVENT TRIGGER IF EXISTS trellara_ddl_capture;

CREATE SCHEMA IF NOT EXISTS trellara;

CREATE OR REPLACE FUNCTION trellara.emit_ddl() RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
AS $trellara$
DECLARE
  v_object_type pg_catalog.text;
  v_object_identity pg_catalog.text;
  v_schema_name pg_catalog.text;
BEGIN
  SELECT c.object_type, c.object_identity, c.schema_name
    INTO v_object_type, v_object_identity, v_schema_name
    FROM pg_catalog.pg_event_trigger_ddl_commands() WITH ORDINALITY AS c
   ORDER BY (c.command_tag OPERATOR(pg_catalog.=) TG_TAG) DESC, c.ordinality
   LIMIT 1;
  PERFORM pg_catalog.pg_logical_emit_message(
    true,
    'trellara.ddl',
    pg_catalog.json_build_object(
      'command_tag', TG_TAG,
      'object_type', v_object_type,
      'object_identity', v_object_identity,
      'schema_name', v_schema_name,
      'statement', pg_catalog.current_query(),
      'search_path', pg_catalog.current_setting('search_path'))::pg_catalog.text);
END;
$trellara$;

CREATE EVENT TRIGGER trellara_ddl_capture ON ddl_command_end EXECUTE FUNCTION trellara.emit_ddl();
