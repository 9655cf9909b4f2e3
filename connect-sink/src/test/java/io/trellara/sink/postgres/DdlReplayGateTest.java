package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.DdlPolicy;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Even with replay switched on (trusting the topic's writers), a DDL event's text runs only if it
 * is one transactional statement on allowlisted tables: each refused text stops apply naming the
 * refusal and the event, and nothing of its transaction (the insert before it) is applied.
 */
class DdlReplayGateTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec(
        "CREATE TABLE app.docs (id int PRIMARY KEY, title text)",
        "CREATE TABLE app.secret (id int)");
  }

  @ParameterizedTest(name = "{1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "ALTER TABLE app.docs ADD COLUMN a int; DROP TABLE app.secret | MULTIPLE_STATEMENTS",
        "BEGIN; ALTER TABLE app.docs ADD COLUMN a int; COMMIT; | MULTIPLE_STATEMENTS",
        "COMMIT | TRANSACTION_CONTROL",
        "SET search_path = evil | SESSION_SETTING",
        "DO $$ BEGIN EXECUTE 'DROP TABLE app.secret'; END $$ | DO_BLOCK",
        "COPY app.docs TO PROGRAM 'id' | COPY",
        "CREATE INDEX CONCURRENTLY i ON app.docs (title) | NOT_TRANSACTIONAL",
        "DROP TABLE app.secret | OBJECT_NOT_ALLOWED",
        "ALTER TABLE app.docs ADD COLUMN a text DEFAULT pg_read_file('/etc/passwd') | OBJECT_NOT_ALLOWED",
        "VACUUM app.docs | NOT_TRANSACTIONAL",
        "ALTER TABLE app.docs ADD COLUMN a text DEFAULT 'x /* | UNPARSABLE",
        // issue 29: forms replay never runs, even on an allowlisted table
        "ALTER TABLE app.docs DROP CONSTRAINT docs_pkey CASCADE | OBJECT_NOT_ALLOWED",
        "ALTER TABLE app.docs DROP COLUMN title CASCADE | OBJECT_NOT_ALLOWED",
        "DROP TABLE app.docs CASCADE | OBJECT_NOT_ALLOWED",
        "ALTER TABLE app.docs DISABLE TRIGGER ALL | UNSUPPORTED_COMMAND",
        "ALTER TABLE app.docs ENABLE TRIGGER ALL | UNSUPPORTED_COMMAND",
        "ALTER TABLE app.docs DISABLE RULE r | UNSUPPORTED_COMMAND",
        "ALTER TABLE app.docs ENABLE REPLICA TRIGGER t | UNSUPPORTED_COMMAND",
        "ALTER TABLE app.docs ENABLE ALWAYS RULE r | UNSUPPORTED_COMMAND",
        "CREATE RULE r AS ON INSERT TO app.docs DO INSTEAD NOTHING | UNSUPPORTED_COMMAND",
        "CREATE TRIGGER t BEFORE INSERT ON app.docs FOR EACH ROW EXECUTE FUNCTION f() | UNSUPPORTED_COMMAND",
        "ALTER TABLE app.docs OWNER TO CURRENT_USER | UNSUPPORTED_COMMAND",
        "ALTER TABLE app.docs SET SCHEMA public | UNSUPPORTED_COMMAND",
        "ALTER TABLE app.docs INHERIT app.secret | UNSUPPORTED_COMMAND",
        "ALTER TABLE app.docs NO INHERIT app.secret | UNSUPPORTED_COMMAND",
        "ALTER TABLE app.docs ATTACH PARTITION app.secret DEFAULT | UNSUPPORTED_COMMAND",
        "ALTER TABLE app.docs DETACH PARTITION app.secret | UNSUPPORTED_COMMAND",
        "CREATE TABLE app.docs2 (a int) INHERITS (app.docs) | UNSUPPORTED_COMMAND",
        "CREATE TABLE app.docs2 PARTITION OF app.docs DEFAULT | UNSUPPORTED_COMMAND",
        "CREATE TABLE app.docs2 (LIKE app.secret) | UNSUPPORTED_COMMAND",
        "ALTER TABLE app.docs ADD COLUMN s int REFERENCES app.secret (id) | OBJECT_NOT_ALLOWED",
        "ALTER TABLE app.docs ENABLE ROW LEVEL SECURITY | UNSUPPORTED_COMMAND",
        "ALTER TABLE app.docs NO FORCE ROW LEVEL SECURITY | UNSUPPORTED_COMMAND",
        "SECURITY LABEL ON TABLE app.docs IS 'x' | UNSUPPORTED_COMMAND",
        "GRANT ALL ON app.docs TO PUBLIC | UNSUPPORTED_COMMAND",
        "REVOKE ALL ON app.docs FROM PUBLIC | UNSUPPORTED_COMMAND",
      })
  void refusesWhatIsNotOneTransactionalStatementOnAllowedTables(String statement, String reason) {
    RelationMapper mapper = RelationMapper.builder().allow(List.of("app.docs")).build();
    try (TransactionApplier a =
        new TransactionApplier(
            pg.connections(),
            mapper,
            ApplyOptions.builder("s").ddlPolicy(DdlPolicy.REPLAY).build())) {
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x10)
                          .insert(
                              rel("app", "docs"),
                              key("id", "integer", "1"),
                              val("title", "text", "x"))
                          .ddl(statement, "app.docs")
                          .source()))
          .hasMessageContaining("DDL_REFUSED")
          .hasMessageContaining(reason)
          .hasMessageContaining("pg-test:0/10:16:2");
    }
    assertThat(pg.count("app.docs")).isZero();
    assertThat(pg.one("SELECT to_regclass('app.secret') IS NOT NULL")).isEqualTo("t");
    assertThat(pg.one("SELECT to_regclass('app.docs2') IS NULL")).isEqualTo("t");
    assertThat(pg.one("SELECT relrowsecurity FROM pg_class WHERE oid = 'app.docs'::regclass"))
        .isEqualTo("f");
    assertThat(pg.one("SELECT count(*) FROM information_schema.columns WHERE table_name = 'docs'"))
        .isEqualTo("2");
  }

  /**
   * A table outside the allowlist holds a foreign key to an allowlisted one: {@code DROP CONSTRAINT
   * ... CASCADE} on the allowlisted table would drop the outside table's constraint with it.
   * Refused, and the outside table keeps its constraint and its rows.
   */
  @org.junit.jupiter.api.Test
  void aCascadeThatWouldReachAnOutsideTableIsRefusedAndTheOutsideTableKeepsItsConstraint() {
    pg.exec(
        "INSERT INTO app.docs VALUES (7, 'seven')",
        "CREATE TABLE app.audit (doc int CONSTRAINT audit_doc_fk REFERENCES app.docs (id), note text)",
        "INSERT INTO app.audit VALUES (7, 'kept')");
    RelationMapper mapper = RelationMapper.builder().allow(List.of("app.docs")).build();
    try (TransactionApplier a =
        new TransactionApplier(
            pg.connections(),
            mapper,
            ApplyOptions.builder("s").ddlPolicy(DdlPolicy.REPLAY).build())) {
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x10)
                          .ddl("ALTER TABLE app.docs DROP CONSTRAINT docs_pkey CASCADE", "app.docs")
                          .source()))
          .hasMessageContaining("DDL_REFUSED")
          .hasMessageContaining("OBJECT_NOT_ALLOWED")
          .hasMessageContaining("CASCADE")
          .hasMessageContaining("pg-test:0/10:16:1");
    }
    assertThat(
            pg.one(
                "SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint"
                    + " WHERE conrelid IN ('app.audit'::regclass, 'app.docs'::regclass)"))
        .isEqualTo("audit_doc_fk,docs_pkey");
    assertThat(pg.one("SELECT doc || ':' || note FROM app.audit")).isEqualTo("7:kept");
  }

  /**
   * Replayed text is judged by its form; the type it names is judged after it ran, inside the same
   * transaction: a column of a table's row type is refused (TYPE_REFUSED) and rolled back, a
   * built-in one is kept.
   */
  @org.junit.jupiter.api.Test
  void aReplayedColumnOfARowTypeIsRefusedAndABuiltInOneRuns() {
    RelationMapper mapper = RelationMapper.builder().allow(List.of("app.docs")).build();
    try (TransactionApplier a =
        new TransactionApplier(
            pg.connections(),
            mapper,
            ApplyOptions.builder("s").ddlPolicy(DdlPolicy.REPLAY).build())) {
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x10)
                          .ddl("ALTER TABLE app.docs ADD COLUMN leak app.secret", "app.docs")
                          .source()))
          .hasMessageContaining("TYPE_REFUSED")
          .hasMessageContaining("\"leak\" type app.secret")
          .hasMessageContaining("pg-test:0/10:16:1");
      assertThat(
              pg.one(
                  "SELECT string_agg(column_name, ',' ORDER BY ordinal_position)"
                      + " FROM information_schema.columns WHERE table_name = 'docs'"))
          .isEqualTo("id,title");
      a.apply(tx(0x20).ddl("ALTER TABLE app.docs ADD COLUMN n int[]", "app.docs").source());
    }
    assertThat(
            pg.one(
                "SELECT string_agg(column_name, ',' ORDER BY ordinal_position)"
                    + " FROM information_schema.columns WHERE table_name = 'docs'"))
        .isEqualTo("id,title,n");
  }
}
