package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.DdlPolicy;
import io.trellara.sink.postgres.settings.DropColumnsPolicy;
import io.trellara.sink.postgres.settings.SchemaEvolutionMode;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Structured schema evolution: the ALTER TABLE derived from schema versions, never from statement
 * text.
 */
class SchemaEvolutionTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId DOCS = rel("app", "docs");

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec("CREATE TABLE app.docs (id int PRIMARY KEY, title text, hits integer)");
  }

  private static TransactionApplier applier(ApplyOptions.Builder options) {
    return new TransactionApplier(
        pg.connections(),
        RelationMapper.builder().allow(List.of("app.*")).build(),
        options.build());
  }

  private static TransactionApplier applier() {
    return applier(ApplyOptions.builder("s"));
  }

  private static Tx v1(long lsn, int id) {
    return tx(lsn)
        .insert(
            DOCS,
            key("id", "integer", Integer.toString(id)),
            val("title", "text", "t" + id),
            val("hits", "integer", "1"));
  }

  private static String columns() {
    return pg.one(
        "SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position)"
            + " FROM information_schema.columns WHERE table_schema = 'app' AND table_name = 'docs'");
  }

  @Test
  void aGroupWhoseSchemaChangeMeetsPendingDeferredTriggersIsAppliedOneTransactionAtATime() {
    pg.exec(
        "CREATE TABLE app.customer (id int PRIMARY KEY)",
        "CREATE TABLE app.orders (id int PRIMARY KEY, customer_id int REFERENCES app.customer"
            + " DEFERRABLE INITIALLY DEFERRED)");
    RelationId customer = rel("app", "customer");
    RelationId orders = rel("app", "orders");
    // the first leaves a deferred FK check pending on orders; the second adds a column to orders
    // (no DDL
    // event: the new column is only in its schema version), which ALTER TABLE refuses inside the
    // same target
    // transaction with SQLSTATE 55006
    List<io.trellara.sink.port.SourceTransaction> txs =
        List.of(
            tx(0x10)
                .insert(customer, key("id", "integer", "1"))
                .insert(orders, key("id", "integer", "1"), val("customer_id", "integer", "1"))
                .at("t", 0, 1),
            tx(0x20)
                .insert(
                    orders,
                    key("id", "integer", "2"),
                    val("customer_id", "integer", "1"),
                    val("channel", "text", "web"))
                .at("t", 0, 2));
    try (TransactionApplier a = applier()) {
      var result = a.apply(txs);
      assertThat(result.applied()).hasSize(2);
      assertThat(a.metrics().groupsSplit()).isEqualTo(1);
      assertThat(a.metrics().targetCommits()).isEqualTo(2);
    }
    assertThat(pg.rows("SELECT id, channel FROM app.orders ORDER BY id"))
        .containsExactly(java.util.Arrays.asList("1", null), List.of("2", "web"));
  }

  @Test
  void addsAColumnTheSourceAddedBeforeItsFirstRow() {
    try (TransactionApplier a = applier()) {
      a.apply(v1(0x10, 1).source());
      a.apply(
          tx(0x20)
              .insert(
                  DOCS,
                  key("id", "integer", "2"),
                  val("title", "text", "t2"),
                  val("hits", "integer", "2"),
                  val("tags", "text[]", "{a,b}"))
              .source());
      assertThat(a.metrics().schemaChanges()).isEqualTo(1);
    }
    assertThat(columns()).isEqualTo("id integer, title text, hits integer, tags ARRAY");
    assertThat(pg.rows("SELECT id, tags FROM app.docs ORDER BY id"))
        .containsExactly(java.util.Arrays.asList("1", null), List.of("2", "{a,b}"));
    assertThat(pg.count("trellara_sink.relation_schemas")).isEqualTo(1);
  }

  /**
   * A DDL-only transaction as the source sends it since trigger version 4 (docs/protocol.md,
   * "Schema versions from DDL"): the DDL event names its table and the message carries the table's
   * new schema version, which no change follows.
   */
  private static io.trellara.sink.port.SourceTransaction ddlOnly(
      long lsn, RelationId table, io.trellara.protocol.v1.SchemaVersion shape) {
    TransactionEnvelope e = tx(lsn).ddl("ALTER TABLE t ADD COLUMN c", "x").unvalidated();
    TransactionEnvelope.Builder b = e.toBuilder();
    b.getDdlEventsBuilder(0).setRelation(table);
    b.addSchemaVersions(shape);
    return io.trellara.sink.port.SourceTransaction.withoutPosition(
        TrellaraCodec.decodeEnvelope(TrellaraCodec.encode(b.build()).bytes()));
  }

  private static io.trellara.protocol.v1.SchemaVersion version(
      RelationId table, String... nameAndType) {
    io.trellara.protocol.v1.SchemaVersion.Builder v =
        io.trellara.protocol.v1.SchemaVersion.newBuilder().setRelation(table);
    for (int i = 0; i < nameAndType.length; i += 2) {
      v.addColumns(
          io.trellara.protocol.v1.ColumnDefinition.newBuilder()
              .setName(nameAndType[i])
              .setTypeName(nameAndType[i + 1])
              .setTypeOid(nameAndType[i + 1].equals("integer") ? 23 : 25)
              .setTypeModifier(-1)
              .setKey(i == 0));
    }
    return v.setFingerprint(io.trellara.protocol.SchemaFingerprint.of(v)).build();
  }

  @Test
  void aDdlEventsSchemaVersionEvolvesItsTableInTheDdlsTransactionAndTheNextRowEvolvesNothing() {
    try (TransactionApplier a = applier()) {
      a.apply(v1(0x10, 1).source());
      a.apply(
          ddlOnly(
              0x20,
              DOCS,
              version(DOCS, "id", "integer", "title", "text", "hits", "integer", "note", "text")));
      assertThat(columns()).isEqualTo("id integer, title text, hits integer, note text");
      assertThat(a.metrics().schemaChanges()).isEqualTo(1);
      a.apply(
          tx(0x30)
              .insert(
                  DOCS,
                  key("id", "integer", "2"),
                  val("title", "text", "t2"),
                  val("hits", "integer", "2"),
                  val("note", "text", "n"))
              .source());
      assertThat(a.metrics().schemaChanges()).as("the row's version is the DDL's").isEqualTo(1);
    }
    assertThat(pg.rows("SELECT id, note FROM app.docs ORDER BY id"))
        .containsExactly(java.util.Arrays.asList("1", null), List.of("2", "n"));
  }

  @Test
  void aSchemaVersionNoChangeFollowsAltersNothingWithoutADdlEventOrOutsideTheAllowlist() {
    RelationId elsewhere = rel("other", "docs");
    pg.exec("CREATE SCHEMA other", "CREATE TABLE other.docs (id int PRIMARY KEY)");
    try (TransactionApplier a = applier()) {
      a.apply(v1(0x10, 1).source());
      // a crafted DDL event of a table the sink does not write: passed over, as the event is
      a.apply(ddlOnly(0x20, elsewhere, version(elsewhere, "id", "integer", "evil", "text")));
      // a DDL event of an allowed table the target does not have: left to its first row
      a.apply(ddlOnly(0x28, rel("app", "fresh"), version(rel("app", "fresh"), "id", "integer")));
      // a version of an allowed table that no change follows and no DDL event names
      TransactionEnvelope.Builder b = v1(0x30, 2).unvalidated().toBuilder();
      b.addSchemaVersions(version(rel("app", "spare"), "id", "integer"));
      a.apply(
          io.trellara.sink.port.SourceTransaction.withoutPosition(
              TrellaraCodec.decodeEnvelope(TrellaraCodec.encode(b.build()).bytes())));
      assertThat(a.metrics().schemaChanges()).isZero();
    }
    assertThat(columns()).isEqualTo("id integer, title text, hits integer");
    assertThat(
            pg.one(
                "SELECT string_agg(column_name, ',') FROM information_schema.columns"
                    + " WHERE table_schema = 'other' AND table_name = 'docs'"))
        .isEqualTo("id");
    assertThat(pg.one("SELECT count(*) FROM pg_class WHERE relname IN ('spare', 'fresh')"))
        .isEqualTo("0");
    assertThat(pg.count("app.docs")).isEqualTo(2);
  }

  @Test
  void changesAColumnTypeTheSourceChanged() {
    try (TransactionApplier a = applier()) {
      a.apply(v1(0x10, 1).source());
      a.apply(
          tx(0x20)
              .insert(
                  DOCS,
                  key("id", "integer", "2"),
                  val("title", "text", "t2"),
                  val("hits", "bigint", "9000000000"))
              .source());
    }
    assertThat(columns()).isEqualTo("id integer, title text, hits bigint");
    assertThat(pg.one("SELECT hits FROM app.docs WHERE id = 2")).isEqualTo("9000000000");
  }

  @Test
  void keepsAColumnTheSourceDroppedUnlessToldToDropIt() {
    try (TransactionApplier a = applier()) {
      a.apply(v1(0x10, 1).source());
      a.apply(
          tx(0x20).insert(DOCS, key("id", "integer", "2"), val("title", "text", "t2")).source());
    }
    assertThat(columns()).isEqualTo("id integer, title text, hits integer");
    assertThat(pg.one("SELECT hits FROM app.docs WHERE id = 1")).isEqualTo("1");
    pg.reset();
    pg.exec("CREATE TABLE app.docs (id int PRIMARY KEY, title text, hits integer)");
    try (TransactionApplier a =
        applier(
            ApplyOptions.builder("s")
                .dropColumns(DropColumnsPolicy.DROP)
                .lossyTables(List.of("app.docs")))) {
      a.apply(v1(0x10, 1).source());
      a.apply(
          tx(0x20).insert(DOCS, key("id", "integer", "2"), val("title", "text", "t2")).source());
    }
    assertThat(columns()).isEqualTo("id integer, title text");
  }

  @Test
  void refusesADropAndAnAddInOneStepWhenDroppingBecauseItMayBeARename() {
    try (TransactionApplier a =
        applier(ApplyOptions.builder("s").dropColumns(DropColumnsPolicy.DROP))) {
      a.apply(v1(0x10, 1).source());
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x20)
                          .insert(
                              DOCS,
                              key("id", "integer", "2"),
                              val("heading", "text", "t2"),
                              val("hits", "integer", "2"))
                          .source()))
          .hasMessageContaining("SCHEMA_CHANGE_REFUSED")
          .hasMessageContaining("[title]")
          .hasMessageContaining("[heading]")
          .hasMessageContaining("rename")
          .hasMessageContaining("\"app\".\"docs\"");
    }
    assertThat(columns()).isEqualTo("id integer, title text, hits integer");
    assertThat(pg.count("app.docs")).isEqualTo(1);
  }

  @Test
  void refusesAKeyChangeAndATypeTheTargetLacks() {
    try (TransactionApplier a = applier()) {
      a.apply(v1(0x10, 1).source());
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x20)
                          .insert(
                              DOCS,
                              key("id", "integer", "2"),
                              key("title", "text", "t2"),
                              val("hits", "integer", "2"))
                          .source()))
          .hasMessageContaining("SCHEMA_CHANGE_REFUSED")
          .hasMessageContaining("key");
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x30)
                          .insert(
                              DOCS,
                              key("id", "integer", "3"),
                              val("title", "text", "t3"),
                              val("hits", "integer", "3"),
                              val("mood", "app.mood", "ok"))
                          .source()))
          .hasMessageContaining("SCHEMA_CHANGE_REFUSED")
          .hasMessageContaining("app.mood");
    }
    assertThat(columns()).isEqualTo("id integer, title text, hits integer");
    assertThat(pg.count("app.docs")).isEqualTo(1);
  }

  @Test
  void leavesTheTargetAloneWhenEvolutionIsOffAndSaysWhatItNeeds() {
    try (TransactionApplier a =
        applier(ApplyOptions.builder("s").schemaEvolution(SchemaEvolutionMode.NONE))) {
      a.apply(v1(0x10, 1).source());
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x20)
                          .insert(
                              DOCS,
                              key("id", "integer", "2"),
                              val("title", "text", "t2"),
                              val("hits", "integer", "2"),
                              val("extra", "integer", "1"))
                          .source()))
          .hasMessageContaining("SCHEMA_CHANGE_REFUSED")
          .hasMessageContaining("ADD COLUMN");
    }
    assertThat(columns()).isEqualTo("id integer, title text, hits integer");
  }

  @Test
  void runsNoStatementTextFromADdlEventByDefault() {
    try (TransactionApplier a = applier()) {
      a.apply(
          v1(0x10, 1)
              .ddl("CREATE TABLE app.pwned (x int); DROP TABLE app.docs", "app.docs")
              .source());
      assertThat(a.metrics().ddlSkipped()).isEqualTo(1);
    }
    assertThat(pg.one("SELECT to_regclass('app.pwned') IS NULL")).isEqualTo("t");
    assertThat(pg.count("app.docs")).isEqualTo(1);
  }

  @Test
  void stopsAtARenameOfAnAllowlistedTableOrColumn() {
    try (TransactionApplier a = applier()) {
      a.apply(v1(0x10, 1).source());
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x20)
                          .ddl("ALTER TABLE app.docs RENAME COLUMN title TO heading", "app.docs")
                          .source()))
          .hasMessageContaining("SCHEMA_CHANGE_REFUSED")
          .hasMessageContaining("rename")
          .hasMessageContaining("ddl.apply=skip");
      // the operator renamed it on the target and lets the event pass once
      pg.exec("ALTER TABLE app.docs RENAME COLUMN title TO heading");
    }
    try (TransactionApplier a = applier(ApplyOptions.builder("s").ddlPolicy(DdlPolicy.SKIP))) {
      a.apply(
          tx(0x20).ddl("ALTER TABLE app.docs RENAME COLUMN title TO heading", "app.docs").source());
    }
    try (TransactionApplier a = applier()) {
      a.apply(
          tx(0x30)
              .insert(
                  DOCS,
                  key("id", "integer", "3"),
                  val("heading", "text", "t3"),
                  val("hits", "integer", "3"))
              .source());
    }
    assertThat(columns()).isEqualTo("id integer, heading text, hits integer");
    assertThat(pg.rows("SELECT id, heading FROM app.docs ORDER BY id"))
        .containsExactly(List.of("1", "t1"), List.of("3", "t3"));
  }
}
