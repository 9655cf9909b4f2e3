package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.toast;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.names.Identifiers;
import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.DdlPolicy;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class IdentifierSafetyTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final String EVIL_TABLE = "we\"ird.t; DROP TABLE app.victim; --";
  static final String EVIL_COLUMN = "c\"); DROP TABLE app.victim; --";
  static final String UNICODE_COLUMN = "Ünï 名前 ✓";

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec(
        "DROP SCHEMA IF EXISTS \"my.schema\" CASCADE",
        "CREATE SCHEMA \"my.schema\"",
        "CREATE TABLE app.victim (id int)",
        "CREATE TABLE \"my.schema\".\"we\"\"ird.t; DROP TABLE app.victim; --\" (id int PRIMARY KEY,"
            + " \"c\"\"); DROP TABLE app.victim; --\" text, \"Ünï 名前 ✓\" text)",
        "CREATE TABLE app.src (id int PRIMARY KEY, v text)",
        "CREATE TABLE app.dst (id int PRIMARY KEY, v text)");
  }

  private static TransactionApplier applier(RelationMapper mapper) {
    return new TransactionApplier(pg.connections(), mapper, ApplyOptions.defaults("s"));
  }

  @Test
  void quotesRelationAndColumnNamesSoTheyNeitherBreakNorInjectSql() {
    RelationId evil = rel("my.schema", EVIL_TABLE);
    try (TransactionApplier a = applier(RelationMapper.identity())) {
      a.apply(
          tx(0x10)
              .insert(
                  evil,
                  key("id", "integer", "1"),
                  val(EVIL_COLUMN, "text", "a'b\"c"),
                  val(UNICODE_COLUMN, "text", "ü"))
              .insert(
                  evil,
                  key("id", "integer", "2"),
                  val(EVIL_COLUMN, "text", "x"),
                  val(UNICODE_COLUMN, "text", "y"))
              .update(
                  evil,
                  null,
                  key("id", "integer", "1"),
                  toast(EVIL_COLUMN, "text"),
                  val(UNICODE_COLUMN, "text", "✓"))
              .delete(evil, key("id", "integer", "2"))
              .source());
    }
    assertThat(
            pg.rows(
                "SELECT id, \"c\"\"); DROP TABLE app.victim; --\", \"Ünï 名前 ✓\" FROM \"my.schema\"."
                    + "\"we\"\"ird.t; DROP TABLE app.victim; --\""))
        .containsExactly(List.of("1", "a'b\"c", "✓"));
    assertThat(pg.one("SELECT to_regclass('app.victim') IS NOT NULL")).isEqualTo("t");
  }

  @Test
  void truncatesOddlyNamedRelationsSafely() {
    pg.exec("INSERT INTO \"my.schema\".\"we\"\"ird.t; DROP TABLE app.victim; --\" (id) VALUES (1)");
    try (TransactionApplier a = applier(RelationMapper.identity())) {
      a.apply(tx(0x10).truncate(false, false, rel("my.schema", EVIL_TABLE)).source());
    }
    assertThat(pg.count("\"my.schema\".\"we\"\"ird.t; DROP TABLE app.victim; --\"")).isZero();
    assertThat(pg.one("SELECT to_regclass('app.victim') IS NOT NULL")).isEqualTo("t");
  }

  @Test
  void refusesARelationOffTheAllowlistNamingIt() {
    RelationMapper mapper = RelationMapper.builder().allow(List.of("app.dst")).build();
    try (TransactionApplier a = applier(mapper)) {
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x10)
                          .insert(rel("app", "dst"), key("id", "integer", "1"))
                          .insert(rel("app", "src"), key("id", "integer", "1"))
                          .source()))
          .isInstanceOf(ApplyException.class)
          .satisfies(
              e ->
                  assertThat(((ApplyException) e).reason())
                      .isEqualTo(ApplyException.Reason.RELATION_REFUSED))
          .hasMessageContaining("\"app\".\"src\"")
          .hasMessageContaining("allowlist")
          .hasMessageContaining("pg-test:0/10:16:2");
    }
    assertThat(pg.count("app.dst")).isZero();
  }

  @Test
  void mapsASourceRelationToAnotherTargetAndChecksTheTargetAgainstTheAllowlist() {
    RelationMapper mapper =
        RelationMapper.builder().map("app.src", "app.dst").allow(List.of("app.dst")).build();
    try (TransactionApplier a = applier(mapper)) {
      a.apply(
          tx(0x10)
              .insert(rel("app", "src"), key("id", "integer", "1"), val("v", "text", "mapped"))
              .source());
    }
    assertThat(pg.rows("SELECT id, v FROM app.dst")).containsExactly(List.of("1", "mapped"));
    assertThat(pg.count("app.src")).isZero();
  }

  @Test
  void allowsAWholeSchemaWithAWildcard() {
    RelationMapper mapper = RelationMapper.builder().allow(List.of("app.*")).build();
    try (TransactionApplier a = applier(mapper)) {
      a.apply(tx(0x10).insert(rel("app", "src"), key("id", "integer", "1")).source());
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x20)
                          .insert(rel("my.schema", EVIL_TABLE), key("id", "integer", "1"))
                          .source()))
          .hasMessageContaining("RELATION_REFUSED");
    }
    assertThat(pg.count("app.src")).isEqualTo(1);
  }

  @Test
  void refusesDdlReplayOnAMappedOrDisallowedRelation() {
    RelationMapper mapper = RelationMapper.builder().map("app.src", "app.dst").build();
    try (TransactionApplier a =
        new TransactionApplier(
            pg.connections(),
            mapper,
            ApplyOptions.builder("s").ddlPolicy(DdlPolicy.REPLAY).build())) {
      assertThatThrownBy(
              () ->
                  a.apply(tx(0x10).ddl("ALTER TABLE app.src ADD COLUMN w int", "app.src").source()))
          .hasMessageContaining("DDL_REFUSED")
          .hasMessageContaining("OBJECT_NOT_ALLOWED")
          .hasMessageContaining("\"app\".\"src\"");
    }
    assertThat(pg.one("SELECT count(*) FROM information_schema.columns WHERE table_name = 'src'"))
        .isEqualTo("2");
  }

  @Test
  void refusesNamesPostgresqlWouldTruncate() {
    String longName = "é".repeat(40);
    try (TransactionApplier a = applier(RelationMapper.identity())) {
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x10).insert(rel("app", longName), key("id", "integer", "1")).source()))
          .hasMessageContaining("RELATION_REFUSED")
          .hasMessageContaining("63 bytes");
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x20)
                          .insert(
                              rel("app", "src"),
                              key("id", "integer", "1"),
                              val(longName, "text", "v"))
                          .source()))
          .hasMessageContaining("63 bytes");
    }
  }

  @Test
  void failsClosedOnAMissingTargetTableUnlessCreationIsEnabled() {
    RelationId fresh = rel("newschema", "fresh");
    Tx t =
        tx(0x10)
            .insert(
                fresh,
                key("id", "bigint", "1"),
                val("amount", "numeric(12,2)", "3.50").typeModifier((12 << 16 | 2) + 4),
                val("tags", "text[]", "{a,b}"),
                val("at", "timestamp with time zone", "2026-01-01 00:00:00+00"));
    try (TransactionApplier a = applier(RelationMapper.identity())) {
      assertThatThrownBy(() -> a.apply(t.source()))
          .hasMessageContaining("MISSING_TARGET_TABLE")
          .hasMessageContaining("\"newschema\".\"fresh\"");
    }
    try (TransactionApplier a =
        new TransactionApplier(
            pg.connections(),
            RelationMapper.identity(),
            ApplyOptions.builder("s").createMissingTables(true).build())) {
      a.apply(t.source());
    }
    assertThat(pg.rows("SELECT id, amount, tags, at FROM newschema.fresh"))
        .containsExactly(List.of("1", "3.50", "{a,b}", "2026-01-01 00:00:00+00"));
    assertThat(
            pg.one(
                "SELECT string_agg(format_type(atttypid, atttypmod), ',' ORDER BY attnum) FROM pg_attribute"
                    + " WHERE attrelid = 'newschema.fresh'::regclass AND attnum > 0"))
        .isEqualTo("bigint,numeric(12,2),text[],timestamp with time zone");
    assertThat(
            pg.one(
                "SELECT count(*) FROM pg_index WHERE indrelid = 'newschema.fresh'::regclass"
                    + " AND indisprimary"))
        .isEqualTo("1");
    pg.exec("DROP SCHEMA newschema CASCADE");
  }

  @Test
  void recreatesAMissingTableWhoseCreationWasRolledBack() {
    RelationId fresh = rel("app", "fresh");
    try (TransactionApplier a =
        new TransactionApplier(
            pg.connections(),
            RelationMapper.identity(),
            ApplyOptions.builder("s").createMissingTables(true).build())) {
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x10)
                          .insert(fresh, key("id", "integer", "1"))
                          .insert(fresh, key("id", "integer", "1"))
                          .source()))
          .hasMessageContaining("23505");
      assertThat(pg.one("SELECT to_regclass('app.fresh') IS NULL")).isEqualTo("t");
      a.apply(tx(0x20).insert(fresh, key("id", "integer", "2")).source());
    }
    assertThat(pg.rows("SELECT id FROM app.fresh")).containsExactly(List.of("2"));
  }

  @Test
  void parsesQualifiedNamesWithQuotedParts() {
    assertThat(QualifiedName.parse("app.orders")).isEqualTo(new QualifiedName("app", "orders"));
    assertThat(QualifiedName.parse("\"my.schema\".\"we\"\"ird\""))
        .isEqualTo(new QualifiedName("my.schema", "we\"ird"));
    assertThat(new QualifiedName("my.schema", "we\"ird").quoted())
        .isEqualTo("\"my.schema\".\"we\"\"ird\"");
    assertThatThrownBy(() -> QualifiedName.parse("noschema"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> QualifiedName.parse("a.b.c"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Identifiers.quote("nul\0byte"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
