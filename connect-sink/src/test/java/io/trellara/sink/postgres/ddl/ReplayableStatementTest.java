package io.trellara.sink.postgres.ddl;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.sink.postgres.names.QualifiedName;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ReplayableStatementTest {
  private static final Set<QualifiedName> TABLES =
      Set.of(
          new QualifiedName("public", "t"),
          new QualifiedName("public", "u"),
          new QualifiedName("public", "parent"),
          new QualifiedName("shop", "orders"),
          new QualifiedName("shop", "customers"),
          new QualifiedName("public", "My.\"Table\";"),
          new QualifiedName("public", "data"),
          new QualifiedName("archive", "t"));

  /** Tables listed, plus every table of schema "open" (as an allowlist wildcard would). */
  private static final Predicate<QualifiedName> ALLOWED =
      n -> TABLES.contains(n) || n.schema().equals("open");

  private static ReplayableStatement check(String sql) {
    return ReplayableStatement.check(sql, "public", ALLOWED);
  }

  private static void assertRefused(String sql, RefusalReason reason) {
    ReplayableStatement s = check(sql);
    assertThat(s.accepted()).as(sql).isFalse();
    assertThat(s.refusal()).as(s.message()).isEqualTo(reason);
    assertThat(s.command()).isNull();
    assertThat(s.message()).isNotBlank();
  }

  private static ReplayableStatement assertAccepted(String sql, ReplayCommand command) {
    ReplayableStatement s = check(sql);
    assertThat(s.refusal()).as(sql + " -> " + s.message()).isNull();
    assertThat(s.accepted()).isTrue();
    assertThat(s.command()).isEqualTo(command);
    return s;
  }

  // ---- accepted
  // ---------------------------------------------------------------------------------------

  @Test
  void alterTableResolvesAnUnqualifiedNameAgainstTheDefaultSchema() {
    assertThat(
            assertAccepted("ALTER TABLE t ADD COLUMN c int;", ReplayCommand.ALTER_TABLE).objects())
        .containsExactly(new QualifiedName("public", "t"));
    assertThat(
            assertAccepted(
                    "alter table if exists only shop.orders * add c text default 'x' -- why\n",
                    ReplayCommand.ALTER_TABLE)
                .objects())
        .containsExactly(new QualifiedName("shop", "orders"));
  }

  @Test
  void semicolonsAndCommentsInsideQuotesAreNotSeparators() {
    assertAccepted("ALTER TABLE t ADD c text DEFAULT $$;$$", ReplayCommand.ALTER_TABLE);
    assertAccepted("ALTER TABLE t ADD c text DEFAULT $a$ $b$ ; $b$ $a$", ReplayCommand.ALTER_TABLE);
    assertAccepted(
        "ALTER TABLE t ADD c text DEFAULT E'\\';DROP TABLE x;--'", ReplayCommand.ALTER_TABLE);
    assertAccepted("ALTER TABLE t ADD c text DEFAULT '--;/*'", ReplayCommand.ALTER_TABLE);
    assertAccepted("/* nested /* */ ; */ ALTER TABLE t ADD c int", ReplayCommand.ALTER_TABLE);
  }

  @Test
  void quotedIdentifiersWithDotsQuotesAndSemicolonsAreOneName() {
    assertThat(
            assertAccepted("ALTER TABLE \"My.\"\"Table\"\";\" ADD c int", ReplayCommand.ALTER_TABLE)
                .objects())
        .containsExactly(new QualifiedName("public", "My.\"Table\";"));
    assertThat(
            assertAccepted(
                    "ALTER TABLE U&\"d\\0061t\\+000061\" ADD c int", ReplayCommand.ALTER_TABLE)
                .objects())
        .containsExactly(new QualifiedName("public", "data"));
  }

  @Test
  void uppercaseAndMixedCaseKeywordsAreKeywords() {
    assertAccepted("CrEaTe UnIqUe InDeX i ON t (c)", ReplayCommand.CREATE_INDEX);
  }

  @Test
  void renamesAndSchemaMovesCheckTheNewNameToo() {
    assertThat(assertAccepted("ALTER TABLE t RENAME TO u", ReplayCommand.ALTER_TABLE).objects())
        .containsExactly(new QualifiedName("public", "t"), new QualifiedName("public", "u"));
    assertAccepted("ALTER TABLE t RENAME COLUMN a TO b", ReplayCommand.ALTER_TABLE);
    assertRefused("ALTER TABLE t RENAME TO secret", RefusalReason.OBJECT_NOT_ALLOWED);
    // a schema move is no action replay runs, even into an allowed schema
    assertRefused("ALTER TABLE t SET SCHEMA archive", RefusalReason.UNSUPPORTED_COMMAND);
  }

  @Test
  void referencedTablesMustBeAllowed() {
    assertThat(
            assertAccepted(
                    "ALTER TABLE shop.orders ADD CONSTRAINT fk FOREIGN KEY (cid) REFERENCES"
                        + " shop.customers (id)",
                    ReplayCommand.ALTER_TABLE)
                .objects())
        .containsExactly(
            new QualifiedName("shop", "orders"), new QualifiedName("shop", "customers"));
    assertRefused(
        "ALTER TABLE t ADD c int REFERENCES secret(id)", RefusalReason.OBJECT_NOT_ALLOWED);
    assertRefused(
        "CREATE TABLE open.u (a int REFERENCES secret (id))", RefusalReason.OBJECT_NOT_ALLOWED);
  }

  /**
   * Replay runs an allowlist of statement forms: these are refused as forms, whatever tables they
   * name (here all allowed), because each ties a table to another object, switches off what guards
   * the target, or reaches what the statement does not name.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "ALTER TABLE t ATTACH PARTITION open.p FOR VALUES IN (1)",
        "ALTER TABLE t DETACH PARTITION open.p",
        "ALTER TABLE t INHERIT open.p",
        "ALTER TABLE t NO INHERIT open.p",
        "ALTER TABLE t DISABLE TRIGGER ALL",
        "ALTER TABLE t ENABLE TRIGGER audit",
        "ALTER TABLE t ENABLE REPLICA TRIGGER audit",
        "ALTER TABLE t ENABLE ALWAYS TRIGGER audit",
        "ALTER TABLE t DISABLE RULE r",
        "ALTER TABLE t ENABLE REPLICA RULE r",
        "ALTER TABLE t DISABLE ROW LEVEL SECURITY",
        "ALTER TABLE t NO FORCE ROW LEVEL SECURITY",
        "ALTER TABLE t OWNER TO mallory",
        "ALTER TABLE t SET SCHEMA open",
        "ALTER TABLE t SET TABLESPACE pg_default",
        "ALTER TABLE t ADD COLUMN c int, DISABLE TRIGGER ALL",
        "ALTER TABLE t ALTER COLUMN c SET STATISTICS 0",
        "ALTER TABLE t ALTER c ADD GENERATED ALWAYS AS IDENTITY",
        "ALTER TABLE t OF some_type",
        "CREATE TABLE open.u (LIKE t INCLUDING ALL)",
        "CREATE TABLE open.u (a int, LIKE t)",
        "CREATE TABLE open.u (a int) INHERITS (t)",
        "CREATE TABLE open.u PARTITION OF t FOR VALUES IN (1)",
        "CREATE TABLE open.u OF some_type",
        "CREATE TABLE open.u (a int) TABLESPACE pg_default",
        "CREATE TABLE open.u (a int) USING heap",
        "CREATE RULE r AS ON INSERT TO t DO INSTEAD NOTHING",
        "CREATE TRIGGER g BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION f()",
        "SECURITY LABEL ON TABLE t IS 'x'",
        "GRANT SELECT ON t TO PUBLIC",
        "REVOKE SELECT ON t FROM PUBLIC",
        "ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO PUBLIC",
        "CREATE POLICY p ON t USING (true)",
      })
  void refusesFormsReplayNeverRuns(String sql) {
    assertRefused(sql, RefusalReason.UNSUPPORTED_COMMAND);
  }

  /** CASCADE anywhere reaches objects the statement does not name. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "ALTER TABLE t DROP CONSTRAINT t_pkey CASCADE",
        "ALTER TABLE t DROP COLUMN c CASCADE",
        "ALTER TABLE t DROP c CASCADE",
        "DROP TABLE t CASCADE",
        "DROP INDEX open.i CASCADE",
        "ALTER TABLE t ADD c int REFERENCES open.p ON DELETE CASCADE",
      })
  void refusesCascadeAnywhere(String sql) {
    assertRefused(sql, RefusalReason.OBJECT_NOT_ALLOWED);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "ALTER TABLE t ADD COLUMN c int",
        "ALTER TABLE t ADD CONSTRAINT k UNIQUE (c)",
        "ALTER TABLE t DROP COLUMN c",
        "ALTER TABLE t DROP CONSTRAINT k RESTRICT",
        "ALTER TABLE t ALTER COLUMN c TYPE bigint",
        "ALTER TABLE t ALTER c SET DATA TYPE bigint",
        "ALTER TABLE t ALTER COLUMN c SET DEFAULT 0, ALTER COLUMN c SET NOT NULL",
        "ALTER TABLE t ALTER COLUMN c DROP DEFAULT, ALTER c DROP NOT NULL",
        "ALTER TABLE t ALTER CONSTRAINT k DEFERRABLE",
        "ALTER TABLE t VALIDATE CONSTRAINT k",
        "ALTER TABLE t RENAME CONSTRAINT k TO k2",
        "ALTER TABLE t REPLICA IDENTITY FULL",
        "CREATE TABLE open.u (a int PRIMARY KEY) PARTITION BY RANGE (a)",
        "CREATE TABLE open.u (a int) WITH (fillfactor = 70)",
      })
  void acceptsTheFormsReplayRuns(String sql) {
    assertThat(check(sql).refusal()).as(check(sql).message()).isNull();
  }

  @Test
  void createTableWithConstraintsTypmodsAndSafeDefaults() {
    ReplayableStatement s =
        assertAccepted(
            "CREATE TABLE IF NOT EXISTS shop.orders (id bigint GENERATED ALWAYS"
                + " AS IDENTITY PRIMARY KEY, cid int REFERENCES shop.customers (id), amount numeric(12,2) CHECK"
                + " (amount > 0 AND (amount < 1e9)), note character varying(200) DEFAULT lower('X'),"
                + " at timestamptz(3) DEFAULT now(), UNIQUE NULLS NOT DISTINCT (cid, at)) PARTITION BY RANGE (at)",
            ReplayCommand.CREATE_TABLE);
    assertThat(s.objects())
        .containsExactly(
            new QualifiedName("shop", "orders"), new QualifiedName("shop", "customers"));
    assertAccepted("CREATE UNLOGGED TABLE u (a int)", ReplayCommand.CREATE_TABLE);
  }

  @Test
  void dropTableChecksEveryName() {
    assertThat(
            assertAccepted(
                    "DROP TABLE IF EXISTS t, shop.orders RESTRICT;", ReplayCommand.DROP_TABLE)
                .objects())
        .containsExactly(new QualifiedName("public", "t"), new QualifiedName("shop", "orders"));
    assertRefused("DROP TABLE t, secret", RefusalReason.OBJECT_NOT_ALLOWED);
  }

  @Test
  void indexesOnAllowedTables() {
    assertThat(
            assertAccepted(
                    "CREATE INDEX IF NOT EXISTS orders_note ON ONLY shop.orders USING btree"
                        + " (lower(note)) INCLUDE (id) WITH (fillfactor = 70) WHERE note IS NOT NULL",
                    ReplayCommand.CREATE_INDEX)
                .objects())
        .containsExactly(new QualifiedName("shop", "orders"));
    assertAccepted("CREATE INDEX ON t (c)", ReplayCommand.CREATE_INDEX);
    assertRefused("CREATE INDEX i ON secret (c)", RefusalReason.OBJECT_NOT_ALLOWED);
  }

  @Test
  void dropIndexIsCheckedAsEveryTableOfItsSchema() {
    assertThat(assertAccepted("DROP INDEX open.some_index", ReplayCommand.DROP_INDEX).objects())
        .containsExactly(new QualifiedName("open", "*"));
    assertRefused("DROP INDEX public.t_idx", RefusalReason.OBJECT_NOT_ALLOWED);
    assertRefused("DROP INDEX open.i CASCADE", RefusalReason.OBJECT_NOT_ALLOWED);
  }

  @Test
  void commentsOnTablesAndColumns() {
    assertAccepted(
        "COMMENT ON TABLE shop.orders IS 'orders; all of them'", ReplayCommand.COMMENT_ON_TABLE);
    assertThat(
            assertAccepted("COMMENT ON COLUMN t.c IS NULL", ReplayCommand.COMMENT_ON_COLUMN)
                .objects())
        .containsExactly(new QualifiedName("public", "t"));
    assertThat(
            assertAccepted(
                    "COMMENT ON COLUMN shop.orders.note IS $$x$$", ReplayCommand.COMMENT_ON_COLUMN)
                .objects())
        .containsExactly(new QualifiedName("shop", "orders"));
    assertRefused("COMMENT ON COLUMN secret.c IS 'x'", RefusalReason.OBJECT_NOT_ALLOWED);
    assertRefused("COMMENT ON TABLE t IS 'x' 'y'", RefusalReason.UNPARSABLE);
    assertRefused("COMMENT ON FUNCTION f() IS 'x'", RefusalReason.UNSUPPORTED_COMMAND);
  }

  // ---- refused: one case per reason, and the hostile inputs
  // ------------------------------------------

  @ParameterizedTest
  @ValueSource(
      strings = {
        "ALTER TABLE t ADD c int; DROP TABLE x",
        "ALTER TABLE t ADD c int; DROP TABLE t",
        "BEGIN; ALTER TABLE t ADD c int; COMMIT;",
        "ALTER TABLE t ADD c int /* ; */; -- x\n DROP TABLE t",
        "ALTER TABLE t ADD c text DEFAULT E'\\\\';DROP TABLE x;--'",
        "ALTER TABLE t ADD c int;;DROP TABLE t",
        "ALTER TABLE t ADD c text DEFAULT E'x'\n'\\''; DROP TABLE t; --'",
        "ALTER TABLE a$$ ; DROP TABLE t --$$"
      })
  void moreThanOneStatement(String sql) {
    assertRefused(sql, RefusalReason.MULTIPLE_STATEMENTS);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "BEGIN",
        "begin transaction",
        "START TRANSACTION",
        "COMMIT",
        "END",
        "ROLLBACK",
        "ABORT",
        "SAVEPOINT s",
        "RELEASE SAVEPOINT s",
        "ROLLBACK TO SAVEPOINT s",
        "PREPARE TRANSACTION 'x'",
        "COMMIT PREPARED 'x'",
        "ROLLBACK PREPARED 'x'"
      })
  void transactionControl(String sql) {
    assertRefused(sql, RefusalReason.TRANSACTION_CONTROL);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SET search_path = x",
        "SET LOCAL search_path = x",
        "SET SESSION AUTHORIZATION bob",
        "SET ROLE admin",
        "RESET ROLE",
        "RESET ALL",
        "set statement_timeout to 0",
        "DISCARD ALL"
      })
  void sessionSettings(String sql) {
    assertRefused(sql, RefusalReason.SESSION_SETTING);
  }

  @Test
  void doBlocksCopyAndCall() {
    assertRefused("DO $$ BEGIN EXECUTE 'DROP TABLE t'; END $$", RefusalReason.DO_BLOCK);
    assertRefused("DO LANGUAGE plpgsql $x$ BEGIN END $x$;", RefusalReason.DO_BLOCK);
    assertRefused("COPY t TO PROGRAM 'id'", RefusalReason.COPY);
    assertRefused("copy t from '/etc/passwd'", RefusalReason.COPY);
    assertRefused("CALL p()", RefusalReason.UNSUPPORTED_COMMAND);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "CREATE INDEX CONCURRENTLY i ON t (c)",
        "CREATE UNIQUE INDEX CONCURRENTLY ON t (c)",
        "REINDEX INDEX CONCURRENTLY i",
        "REINDEX DATABASE d",
        "DROP INDEX CONCURRENTLY open.i",
        "VACUUM t",
        "VACUUM FULL",
        "CREATE DATABASE d",
        "DROP DATABASE d",
        "ALTER SYSTEM SET x = 1",
        "CREATE TABLESPACE s LOCATION '/tmp'",
        "ALTER TABLE t DETACH PARTITION p CONCURRENTLY",
        "CLUSTER"
      })
  void notTransactional(String sql) {
    assertRefused(sql, RefusalReason.NOT_TRANSACTIONAL);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SELECT 1",
        "SELECT * INTO u FROM t",
        "CREATE TABLE u AS SELECT * FROM t",
        "CREATE TABLE u (a, b) AS VALUES (1, 2)",
        "ALTER TABLE ALL IN TABLESPACE a SET TABLESPACE b",
        "CREATE TEMP TABLE u (a int)",
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$",
        "GRANT ALL ON t TO bob",
        "ALTER ROLE bob SUPERUSER",
        "TRUNCATE t",
        "INSERT INTO t VALUES (1)",
        "PREPARE p AS SELECT 1",
        "EXPLAIN ALTER TABLE t ADD c int",
        "ALTER INDEX i RENAME TO j",
        "(SELECT 1)"
      })
  void unsupportedCommands(String sql) {
    assertRefused(sql, RefusalReason.UNSUPPORTED_COMMAND);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "ALTER TABLE secret ADD c int",
        "ALTER TABLE pg_catalog.pg_class ADD c int",
        "ALTER TABLE \"pg_catalog\".t ADD c int",
        "ALTER TABLE t ADD c int DEFAULT trellara_sink.f",
        "CREATE TABLE information_schema.x (a int)",
        "ALTER TABLE t ADD c pg_toast.x",
        "ALTER TABLE t ADD c int DEFAULT pg_temp.f",
        "DROP TABLE t CASCADE",
        "ALTER TABLE t ADD c text DEFAULT set_config('role', 'admin', false)",
        "ALTER TABLE t ADD c text DEFAULT public.now()",
        "ALTER TABLE t ALTER c TYPE int USING evil(c)",
        "CREATE INDEX ON t (evil(c))",
        "ALTER TABLE t ADD CHECK (\"lower\"(c) > '')",
        "ALTER TABLE t ADD c int DEFAULT 1 OPERATOR(pg_catalog.+) 2",
        "CREATE TABLE u (a int DEFAULT nextval('s'))"
      })
  void objectsOutsideTheAllowlist(String sql) {
    assertRefused(sql, RefusalReason.OBJECT_NOT_ALLOWED);
  }

  @Test
  void aDefaultSchemaThatIsReservedIsRefused() {
    ReplayableStatement s =
        ReplayableStatement.check("ALTER TABLE t ADD c int", "pg_catalog", n -> true);
    assertThat(s.refusal()).isEqualTo(RefusalReason.OBJECT_NOT_ALLOWED);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "ALTER TABLE t ADD c text DEFAULT 'x",
        "ALTER TABLE \"t ADD c int",
        "ALTER TABLE t ADD c text DEFAULT $a$ x $b$",
        "ALTER TABLE t /* ADD c int",
        "ALTER TABLE t ADD c int DEFAULT $1",
        "ALTER TABLE t ADD c text DEFAULT 'a\\'",
        "ALTER TABLE t",
        "ALTER TABLE db.public.t ADD c int",
        "DROP TABLE t u",
        "ALTER TABLE t ADD c text DEFAULT U&'\\D800'",
        "ALTER TABLE t ADD c \\gexec",
        "CREATE INDEX i.j ON t (c)",
        "ALTER TABLE aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa ADD c int"
      })
  void unparsable(String sql) {
    assertRefused(sql, RefusalReason.UNPARSABLE);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "   ",
        ";",
        "-- only a comment",
        "/* c */ ; ;",
        "; ALTER TABLE t ADD c int",
        "ALTER TABLE t ADD c int;;"
      })
  void emptyStatements(String sql) {
    assertRefused(sql, RefusalReason.EMPTY);
  }

  @CsvSource(
      delimiter = '|',
      value = {
        "ALTER TABLE t ADD c int; DROP TABLE x|DROP",
        "SET search_path = x|SET SEARCH_PATH",
        "COPY t TO PROGRAM 'id'|COPY",
        "ALTER TABLE secret ADD c int|\"public\".\"secret\"",
        "ALTER TABLE t ADD c int DEFAULT evil()|evil()"
      })
  @ParameterizedTest
  void theMessageNamesWhatWasFound(String sql, String named) {
    assertThat(check(sql).message()).containsIgnoringCase(named);
  }
}
