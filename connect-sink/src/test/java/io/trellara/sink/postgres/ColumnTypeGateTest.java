package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.nul;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Forged schema versions that name a type the sink must not create columns of: a table's row type
 * (a table outside the allowlist, the sink's own bookkeeping) or a user type the operator did not
 * list. Refused with TYPE_REFUSED, by schema evolution and by table creation, nothing changed on
 * the target; built-ins, their arrays and listed types are created.
 */
class ColumnTypeGateTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId DOCS = rel("app", "docs");

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec(
        "CREATE TABLE app.docs (id int PRIMARY KEY, title text)",
        "CREATE TABLE app.secret (id int, pin text)",
        "DROP TABLE IF EXISTS public.secret",
        "CREATE TABLE public.secret (id int, pin text)",
        "INSERT INTO app.secret VALUES (1, '1234')",
        "CREATE TYPE app.mood AS ENUM ('ok', 'sad')");
  }

  private static TransactionApplier applier(ApplyOptions.Builder options) {
    return new TransactionApplier(
        pg.connections(),
        RelationMapper.builder().allow(List.of("app.docs", "app.fresh")).build(),
        options.build());
  }

  private static String columns(String table) {
    return pg.one(
        "SELECT string_agg(column_name || ' ' || udt_schema || '.' || udt_name, ', '"
            + " ORDER BY ordinal_position) FROM information_schema.columns"
            + " WHERE table_schema = 'app' AND table_name = '"
            + table
            + "'");
  }

  /** Columns anywhere on the target typed by a row type: none, so DROP TABLE needs no CASCADE. */
  private static String rowTypedColumns() {
    return pg.one(
        "SELECT count(*) FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
            + " WHERE t.typrelid IN ('app.secret'::regclass, 'public.secret'::regclass,"
            + " 'trellara_sink.partition_owners'::regclass) AND a.attnum > 0");
  }

  @ParameterizedTest
  @ValueSource(strings = {"secret", "app.secret", "trellara_sink.partition_owners", "app.mood"})
  void schemaEvolutionRefusesAColumnOfATypeNeitherBuiltInNorListed(String type) {
    try (TransactionApplier a = applier(ApplyOptions.builder("s"))) {
      a.apply(tx(0x10).insert(DOCS, key("id", "integer", "1"), val("title", "text", "a")).source());
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x20)
                          .insert(
                              DOCS,
                              key("id", "integer", "2"),
                              val("title", "text", "b"),
                              nul("extra", type))
                          .source()))
          .hasMessageContaining("TYPE_REFUSED")
          .hasMessageContaining("column \"extra\" has type '" + type + "'")
          .hasMessageContaining("[relation \"app\".\"docs\"]")
          .hasMessageContaining("pg-test:0/20:");
    }
    assertThat(columns("docs")).isEqualTo("id pg_catalog.int4, title pg_catalog.text");
    assertThat(pg.count("app.docs")).isEqualTo(1);
    assertThat(rowTypedColumns()).isEqualTo("0");
  }

  @Test
  void tableCreationRefusesARowTypedColumnAndCreatesNothing() {
    try (TransactionApplier a = applier(ApplyOptions.builder("s").createMissingTables(true))) {
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x10)
                          .insert(
                              rel("app", "fresh"),
                              key("id", "integer", "1"),
                              nul("leak", "app.secret"))
                          .source()))
          .hasMessageContaining("TYPE_REFUSED")
          .hasMessageContaining("\"app\".\"secret\"")
          .hasMessageContaining("\"leak\"")
          .hasMessageContaining("[relation \"app\".\"fresh\"]")
          .hasMessageContaining("pg-test:0/10:");
    }
    assertThat(pg.one("SELECT to_regclass('app.fresh') IS NULL")).isEqualTo("t");
    assertThat(rowTypedColumns()).isEqualTo("0");
    pg.exec("DROP TABLE app.secret", "DROP TABLE public.secret");
  }

  @Test
  void builtInsTheirArraysAndListedTypesAreCreated() {
    try (TransactionApplier a =
        applier(
            ApplyOptions.builder("s")
                .createMissingTables(true)
                .allowedTypes(List.of("app.mood")))) {
      a.apply(
          tx(0x10)
              .insert(
                  rel("app", "fresh"),
                  key("id", "integer", "1"),
                  val("tags", "text[]", "{a,b}"),
                  val("mood", "app.mood", "ok"),
                  val("moods", "app.mood[]", "{ok,sad}"))
              .source());
      a.apply(
          tx(0x20)
              .insert(
                  DOCS,
                  key("id", "integer", "1"),
                  val("title", "text", "a"),
                  val("mood", "app.mood", "sad"))
              .source());
    }
    assertThat(columns("fresh"))
        .isEqualTo("id pg_catalog.int4, tags pg_catalog._text, mood app.mood, moods app._mood");
    assertThat(columns("docs"))
        .isEqualTo("id pg_catalog.int4, title pg_catalog.text, mood app.mood");
    assertThat(pg.one("SELECT mood FROM app.docs")).isEqualTo("sad");
  }
}
