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
    assertThat(pg.one("SELECT count(*) FROM information_schema.columns WHERE table_name = 'docs'"))
        .isEqualTo("2");
  }
}
