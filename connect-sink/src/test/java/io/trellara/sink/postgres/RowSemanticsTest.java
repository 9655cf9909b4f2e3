package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.nul;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.row;
import static io.trellara.sink.postgres.Tx.toast;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.InsertConflictPolicy;
import io.trellara.sink.postgres.settings.MissingRowPolicy;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RowSemanticsTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId DOCS = rel("app", "docs");

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec("CREATE TABLE app.docs (id int PRIMARY KEY, title text, body text, hits int)");
  }

  private static TransactionApplier applier(ApplyOptions.Builder o) {
    return new TransactionApplier(pg.connections(), RelationMapper.identity(), o.build());
  }

  private static TransactionApplier applier() {
    return applier(ApplyOptions.builder("s"));
  }

  @Test
  void leavesAnUnchangedToastColumnAsItIs() {
    String big = "x".repeat(200_000);
    pg.exec("INSERT INTO app.docs VALUES (1, 'old', repeat('x', 200000), 0)");
    try (TransactionApplier a = applier()) {
      a.apply(
          tx(0x10)
              .update(
                  DOCS,
                  null,
                  key("id", "integer", "1"),
                  val("title", "text", "new"),
                  toast("body", "text"),
                  val("hits", "integer", "5"))
              .source());
    }
    assertThat(
            pg.rows("SELECT title, body = repeat('x', 200000), length(body), hits FROM app.docs"))
        .containsExactly(List.of("new", "t", Integer.toString(big.length()), "5"));
  }

  @Test
  void setsNullColumnsToNullOnUpdate() {
    pg.exec("INSERT INTO app.docs VALUES (1, 'old', 'b', 1)");
    try (TransactionApplier a = applier()) {
      a.apply(
          tx(0x10)
              .update(
                  DOCS,
                  null,
                  key("id", "integer", "1"),
                  nul("title", "text"),
                  toast("body", "text"),
                  val("hits", "integer", "2"))
              .source());
    }
    assertThat(pg.rows("SELECT title, body, hits FROM app.docs"))
        .containsExactly(Arrays.asList(null, "b", "2"));
  }

  @Test
  void updatesByTheOldKeyWhenTheKeyChanges() {
    pg.exec("INSERT INTO app.docs VALUES (1, 'one', 'body', 1), (2, 'two', 'b2', 2)");
    try (TransactionApplier a = applier()) {
      a.apply(
          tx(0x10)
              .update(
                  DOCS,
                  row(key("id", "integer", "1")),
                  key("id", "integer", "10"),
                  val("title", "text", "ten"),
                  toast("body", "text"),
                  val("hits", "integer", "1"))
              .source());
    }
    assertThat(pg.rows("SELECT id, title, body FROM app.docs ORDER BY id"))
        .containsExactly(List.of("2", "two", "b2"), List.of("10", "ten", "body"));
  }

  @Test
  void appliesMixedOperationsInSourceOrder() {
    try (TransactionApplier a = applier()) {
      Tx t = tx(0x10);
      for (int i = 1; i <= 100; i++) {
        t.insert(
            DOCS,
            key("id", "integer", Integer.toString(i)),
            val("title", "text", "t" + i),
            val("body", "text", "b"),
            val("hits", "integer", "0"));
      }
      t.update(
          DOCS,
          null,
          key("id", "integer", "5"),
          val("title", "text", "five"),
          toast("body", "text"),
          val("hits", "integer", "1"));
      t.delete(DOCS, key("id", "integer", "5"));
      t.insert(
          DOCS,
          key("id", "integer", "5"),
          val("title", "text", "again"),
          nul("body", "text"),
          val("hits", "integer", "9"));
      for (int i = 10; i < 20; i++) {
        t.delete(DOCS, key("id", "integer", Integer.toString(i)));
      }
      a.apply(t.source());
      assertThat(a.metrics().rowsInserted()).isEqualTo(101);
      assertThat(a.metrics().rowsDeleted()).isEqualTo(11);
    }
    assertThat(pg.count("app.docs")).isEqualTo(90);
    assertThat(pg.rows("SELECT title, body, hits FROM app.docs WHERE id = 5"))
        .containsExactly(Arrays.asList("again", null, "9"));
  }

  @Test
  void truncatesAllRelationsOfTheStatementTogether() {
    pg.exec(
        "CREATE TABLE app.parent (id serial PRIMARY KEY)",
        "CREATE TABLE app.child (id int PRIMARY KEY, parent_id int REFERENCES app.parent)",
        "INSERT INTO app.parent DEFAULT VALUES",
        "INSERT INTO app.child VALUES (1, 1)",
        "INSERT INTO app.docs VALUES (1, 'keep', 'b', 1)");
    try (TransactionApplier a = applier()) {
      a.apply(tx(0x10).truncate(false, true, rel("app", "parent"), rel("app", "child")).source());
      assertThat(a.metrics().truncates()).isEqualTo(1);
    }
    assertThat(pg.count("app.parent")).isZero();
    assertThat(pg.count("app.child")).isZero();
    assertThat(pg.count("app.docs")).isEqualTo(1);
    pg.exec("INSERT INTO app.parent DEFAULT VALUES");
    assertThat(pg.one("SELECT id FROM app.parent")).isEqualTo("1"); // RESTART IDENTITY
  }

  @Test
  void truncateWithCascadeReachesReferencingTables() {
    pg.exec(
        "CREATE TABLE app.parent (id int PRIMARY KEY)",
        "CREATE TABLE app.child (id int PRIMARY KEY, parent_id int REFERENCES app.parent)",
        "INSERT INTO app.parent VALUES (1)",
        "INSERT INTO app.child VALUES (1, 1)");
    try (TransactionApplier a = applier()) {
      assertThatThrownBy(
              () -> a.apply(tx(0x10).truncate(false, false, rel("app", "parent")).source()))
          .isInstanceOf(ApplyException.class)
          .hasMessageContaining("0A000");
      a.apply(tx(0x20).truncate(true, false, rel("app", "parent")).source());
    }
    assertThat(pg.count("app.child")).isZero();
  }

  @Test
  void failsClosedWhenAnUpdateMatchesNoRow() {
    pg.exec("INSERT INTO app.docs VALUES (1, 'one', 'b', 1)");
    try (TransactionApplier a = applier()) {
      SourceTransaction t =
          tx(0x10)
              .update(
                  DOCS,
                  null,
                  key("id", "integer", "1"),
                  val("title", "text", "x"),
                  toast("body", "text"),
                  val("hits", "integer", "1"))
              .update(
                  DOCS,
                  null,
                  key("id", "integer", "42"),
                  val("title", "text", "x"),
                  toast("body", "text"),
                  val("hits", "integer", "1"))
              .source();
      assertThatThrownBy(() -> a.apply(t))
          .isInstanceOf(ApplyException.class)
          .satisfies(
              e -> {
                ApplyException ae = (ApplyException) e;
                assertThat(ae.reason()).isEqualTo(ApplyException.Reason.ROW_NOT_FOUND);
                assertThat(ae.relation()).isEqualTo("\"app\".\"docs\"");
                assertThat(ae.eventKey()).isEqualTo("pg-test:0/10:16:2");
              })
          .hasMessageContaining("id=42");
    }
    assertThat(pg.one("SELECT title FROM app.docs")).isEqualTo("one");
  }

  @Test
  void failsClosedWhenADeleteMatchesNoRowUnlessIgnored() {
    SourceTransaction t = tx(0x10).delete(DOCS, key("id", "integer", "7")).source();
    try (TransactionApplier a = applier()) {
      assertThatThrownBy(() -> a.apply(t))
          .isInstanceOf(ApplyException.class)
          .hasMessageContaining("ROW_NOT_FOUND")
          .hasMessageContaining("pg-test:0/10:16:1");
    }
    try (TransactionApplier a =
        applier(ApplyOptions.builder("s").missingRow(MissingRowPolicy.IGNORE))) {
      assertThat(a.apply(t).applied()).hasSize(1);
      assertThat(a.metrics().missingRowsIgnored()).isEqualTo(1);
    }
  }

  @Test
  void failsClosedOnAMissingKeyColumn() {
    pg.exec("INSERT INTO app.docs VALUES (1, 'one', 'b', 1)");
    var noKey =
        Tx.tx(0x10)
            .update(DOCS, null, val("id", "integer", "1"), val("title", "text", "x"))
            .unvalidated();
    try (TransactionApplier a = applier()) {
      assertThatThrownBy(() -> a.apply(SourceTransaction.withoutPosition(noKey)))
          .isInstanceOf(ApplyException.class)
          .hasMessageContaining("KEY_COLUMNS_MISMATCH")
          .hasMessageContaining("\"id\"")
          .hasMessageContaining("\"app\".\"docs\"")
          .hasMessageContaining("pg-test:0/10:16:1");
    }
    assertThat(pg.one("SELECT title FROM app.docs")).isEqualTo("one");
  }

  @Test
  void upsertOverwritesAnExistingRowWhileFailRefusesIt() {
    pg.exec("INSERT INTO app.docs VALUES (1, 'old', 'b', 1)");
    Tx t =
        tx(0x10)
            .insert(
                DOCS,
                key("id", "integer", "1"),
                val("title", "text", "new"),
                val("body", "text", "nb"),
                val("hits", "integer", "2"))
            .insert(
                DOCS,
                key("id", "integer", "2"),
                val("title", "text", "two"),
                nul("body", "text"),
                val("hits", "integer", "3"));
    try (TransactionApplier a = applier()) {
      assertThatThrownBy(() -> a.apply(t.source()))
          .isInstanceOf(ApplyException.class)
          .hasMessageContaining("23505");
    }
    try (TransactionApplier a =
        applier(ApplyOptions.builder("s").insertConflict(InsertConflictPolicy.UPSERT))) {
      a.apply(t.source());
    }
    assertThat(pg.rows("SELECT id, title, body, hits FROM app.docs ORDER BY id"))
        .containsExactly(List.of("1", "new", "nb", "2"), Arrays.asList("2", "two", null, "3"));
  }

  @Test
  void upsertsLargeRunsThroughMultiRowStatements() {
    pg.exec("INSERT INTO app.docs SELECT g, 'old', 'b', 0 FROM generate_series(1, 500) g");
    Tx t = tx(0x10);
    for (int i = 1; i <= 1000; i++) {
      t.insert(
          DOCS,
          key("id", "integer", Integer.toString(i)),
          val("title", "text", "t" + i),
          val("body", "text", "b"),
          val("hits", "integer", Integer.toString(i)));
    }
    try (TransactionApplier a =
        applier(ApplyOptions.builder("s").insertConflict(InsertConflictPolicy.UPSERT))) {
      a.apply(t.source());
    }
    assertThat(
            pg.one("SELECT count(*) FILTER (WHERE title = 't' || id AND hits = id) FROM app.docs"))
        .isEqualTo("1000");
  }

  @Test
  void deletesAndUpdatesOneRowByTheFullOldRowWithoutKey() {
    pg.exec(
        "CREATE TABLE app.nokey (a int, b text)",
        "ALTER TABLE app.nokey REPLICA IDENTITY FULL",
        "INSERT INTO app.nokey VALUES (1, 'x'), (1, 'x'), (2, NULL)");
    RelationId nokey = rel("app", "nokey");
    try (TransactionApplier a = applier()) {
      a.apply(
          tx(0x10)
              .identity(ReplicaIdentity.REPLICA_IDENTITY_FULL)
              .delete(nokey, val("a", "integer", "1"), val("b", "text", "x"))
              .update(
                  nokey,
                  row(val("a", "integer", "2"), nul("b", "text")),
                  val("a", "integer", "3"),
                  val("b", "text", "y"))
              .source());
    }
    assertThat(pg.rows("SELECT a, b FROM app.nokey ORDER BY a"))
        .containsExactly(List.of("1", "x"), List.of("3", "y"));
  }

  @Test
  void batchesManySmallUpdatesAndDeletesWithTheSameResult() {
    pg.exec("INSERT INTO app.docs SELECT g, 't', 'b', 0 FROM generate_series(1, 2000) g");
    Tx t = tx(0x10);
    for (int i = 1; i <= 1000; i++) {
      t.update(
          DOCS,
          null,
          key("id", "integer", Integer.toString(i)),
          toast("title", "text"),
          toast("body", "text"),
          val("hits", "integer", Integer.toString(i * 2)));
    }
    for (int i = 1001; i <= 2000; i++) {
      t.delete(DOCS, key("id", "integer", Integer.toString(i)));
    }
    try (TransactionApplier a = applier()) {
      a.apply(t.source());
      assertThat(a.metrics().rowsUpdated()).isEqualTo(1000);
      assertThat(a.metrics().rowsDeleted()).isEqualTo(1000);
    }
    assertThat(pg.one("SELECT count(*) FILTER (WHERE hits = id * 2 AND title = 't') FROM app.docs"))
        .isEqualTo("1000");
    assertThat(pg.count("app.docs")).isEqualTo(1000);
  }
}
