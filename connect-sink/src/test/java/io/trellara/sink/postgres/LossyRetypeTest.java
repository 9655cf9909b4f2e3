package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.DropColumnsPolicy;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Forged schema versions asking for retypes and drops: schema evolution applies only the widening
 * (lossless) ones by default; a change that would lose values already on the target, and a dropped
 * column even with schema.evolution.drop.columns=drop, needs the table in
 * schema.evolution.lossy.tables and is otherwise refused naming the column, both types and the
 * setting, with the rows as they were.
 */
class LossyRetypeTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId EVENTS = rel("app", "events");

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec(
        "CREATE TABLE app.events (id int PRIMARY KEY, at timestamptz, note text, n integer)",
        "INSERT INTO app.events VALUES (1, '2026-01-02 03:04:05+00', 'a long note', 7)");
  }

  private static TransactionApplier applier(ApplyOptions.Builder options) {
    return new TransactionApplier(
        pg.connections(),
        RelationMapper.builder().allow(List.of("app.*")).build(),
        options.build());
  }

  /** The relation's first version, as the target has it: recorded so the next one is a change. */
  private static void first(TransactionApplier a) {
    a.apply(
        tx(0x10)
            .insert(
                EVENTS,
                key("id", "integer", "2"),
                val("at", "timestamp with time zone", "2026-01-02 00:00:00+00"),
                val("note", "text", "b"),
                val("n", "integer", "1"))
            .source());
  }

  private static String state() {
    return pg.one(
            "SELECT string_agg(id || '|' || at || '|' || note || '|' || n, ',' ORDER BY id)"
                + " FROM app.events")
        + " / "
        + pg.one(
            "SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position)"
                + " FROM information_schema.columns WHERE table_schema = 'app'"
                + " AND table_name = 'events'");
  }

  private static Tx retyped(Tx.Col at, Tx.Col note) {
    return tx(0x20).insert(EVENTS, key("id", "integer", "3"), at, note, val("n", "integer", "3"));
  }

  @Test
  void timestamptzToDateIsRefusedAndTheRowsStay() {
    try (TransactionApplier a = applier(ApplyOptions.builder("s"))) {
      first(a);
      String before = state();
      assertThatThrownBy(
              () ->
                  a.apply(
                      retyped(val("at", "date", "2026-01-03"), val("note", "text", "c")).source()))
          .hasMessageContaining("SCHEMA_CHANGE_REFUSED")
          .hasMessageContaining("\"at\" from timestamp with time zone to date")
          .hasMessageContaining("schema.evolution.lossy.tables")
          .hasMessageContaining("pg-test:0/20:");
      assertThat(state()).isEqualTo(before);
    }
  }

  @Test
  void textToVarchar1IsRefusedAndTheRowsStay() {
    try (TransactionApplier a = applier(ApplyOptions.builder("s"))) {
      first(a);
      String before = state();
      assertThatThrownBy(
              () ->
                  a.apply(
                      retyped(
                              val("at", "timestamp with time zone", "2026-01-03 00:00:00+00"),
                              val("note", "character varying", "c").typeModifier(1 + 4))
                          .source()))
          .hasMessageContaining("SCHEMA_CHANGE_REFUSED")
          .hasMessageContaining("\"note\" from text to character varying(1)")
          .hasMessageContaining("schema.evolution.lossy.tables");
      assertThat(state()).isEqualTo(before);
    }
  }

  @Test
  void wideningRetypesAreApplied() {
    try (TransactionApplier a = applier(ApplyOptions.builder("s"))) {
      first(a);
      a.apply(
          tx(0x20)
              .insert(
                  EVENTS,
                  key("id", "integer", "3"),
                  val("at", "timestamp with time zone", "2026-01-03 00:00:00+00"),
                  val("note", "text", "c"),
                  val("n", "bigint", "9000000000"))
              .source());
    }
    assertThat(
            pg.one(
                "SELECT data_type FROM information_schema.columns WHERE table_name = 'events' AND column_name = 'n'"))
        .isEqualTo("bigint");
    assertThat(pg.one("SELECT string_agg(n::text, ',' ORDER BY id) FROM app.events"))
        .isEqualTo("7,1,9000000000");
  }

  @Test
  void aDropIsRefusedUnlessTheTableIsListed() {
    try (TransactionApplier a =
        applier(ApplyOptions.builder("s").dropColumns(DropColumnsPolicy.DROP))) {
      first(a);
      String before = state();
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x20)
                          .insert(
                              EVENTS,
                              key("id", "integer", "3"),
                              val("at", "timestamp with time zone", "2026-01-03 00:00:00+00"),
                              val("note", "text", "c"))
                          .source()))
          .hasMessageContaining("SCHEMA_CHANGE_REFUSED")
          .hasMessageContaining("[n]")
          .hasMessageContaining("schema.evolution.lossy.tables");
      assertThat(state()).isEqualTo(before);
    }
    try (TransactionApplier a =
        applier(
            ApplyOptions.builder("s")
                .dropColumns(DropColumnsPolicy.DROP)
                .lossyTables(List.of("app.events")))) {
      a.apply(
          tx(0x20)
              .insert(
                  EVENTS,
                  key("id", "integer", "3"),
                  val("at", "timestamp with time zone", "2026-01-03 00:00:00+00"),
                  val("note", "text", "c"))
              .source());
    }
    assertThat(
            pg.one(
                "SELECT count(*) FROM information_schema.columns WHERE table_name = 'events' AND column_name = 'n'"))
        .isEqualTo("0");
  }

  @Test
  void aLossyRetypeIsAppliedWhenTheTableIsListed() {
    try (TransactionApplier a =
        applier(ApplyOptions.builder("s").lossyTables(List.of("app.events")))) {
      first(a);
      a.apply(retyped(val("at", "date", "2026-01-03"), val("note", "text", "c")).source());
    }
    assertThat(
            pg.one(
                "SELECT data_type FROM information_schema.columns WHERE table_name = 'events' AND column_name = 'at'"))
        .isEqualTo("date");
    assertThat(pg.one("SELECT string_agg(at::text, ',' ORDER BY id) FROM app.events"))
        .isEqualTo("2026-01-02,2026-01-02,2026-01-03");
  }
}
