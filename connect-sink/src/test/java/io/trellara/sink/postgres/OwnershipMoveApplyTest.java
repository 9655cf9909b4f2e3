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

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.MissingRowPolicy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sink's half of an ownership move whose row has unchanged-TOAST columns: the delete (old key)
 * and, right after it, the insert that lacks those columns and names the old row by its before. The
 * values are carried over from the row the delete removes, in the same target transaction; without
 * that row nothing is inserted (MOVED_ROW_NOT_FOUND) and nothing of the transaction is applied.
 */
class OwnershipMoveApplyTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId DOCS = rel("app", "docs");
  // 100 kB that does not compress: stored out of line (TOASTed)
  static final String BIG_SQL =
      "(SELECT string_agg(md5(g::text), '') FROM generate_series(1, 3200) g)";

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec("CREATE TABLE app.docs (id int PRIMARY KEY, title text, body text, note text)");
  }

  private static TransactionApplier applier(ApplyOptions.Builder o) {
    return new TransactionApplier(pg.connections(), RelationMapper.identity(), o.build());
  }

  /** The move of row {@code from} to key {@code to}, title changed, body and note not sent. */
  private static Tx move(Tx t, int from, int to) {
    return t.delete(DOCS, key("id", "integer", Integer.toString(from)))
        .movedInsert(
            DOCS,
            row(key("id", "integer", Integer.toString(from))),
            key("id", "integer", Integer.toString(to)),
            val("title", "text", "moved " + from),
            toast("body", "text"),
            toast("note", "text"));
  }

  @Test
  void carriesTheUnsentValuesOverFromTheRowTheDeleteHalfRemoves() {
    pg.exec(
        "INSERT INTO app.docs VALUES (1, 'one', " + BIG_SQL + ", NULL), (2, 'two', 'b2', 'n2')");
    String bodyMd5 = pg.one("SELECT md5(body) FROM app.docs WHERE id = 1");
    assertThat(
            pg.one(
                "SELECT pg_relation_size(reltoastrelid) > 0 FROM pg_class"
                    + " WHERE oid = 'app.docs'::regclass"))
        .as("stored TOASTed, out of line")
        .isEqualTo("t");
    try (TransactionApplier a = applier(ApplyOptions.builder("s"))) {
      Tx t =
          tx(0x10)
              .insert(
                  DOCS,
                  key("id", "integer", "5"),
                  val("title", "text", "five"),
                  val("body", "text", "b5"),
                  nul("note", "text"));
      move(t, 1, 10);
      move(t, 2, 20);
      t.delete(DOCS, key("id", "integer", "5"));
      a.apply(t.source());
      assertThat(a.metrics().rowsDeleted()).isEqualTo(3);
      assertThat(a.metrics().rowsInserted()).isEqualTo(3);
    }
    assertThat(pg.rows("SELECT id, title, md5(body), note FROM app.docs ORDER BY id"))
        .containsExactly(
            Arrays.asList("10", "moved 1", bodyMd5, null),
            List.of("20", "moved 2", pg.one("SELECT md5('b2')"), "n2"));
  }

  /**
   * Values of any type keep their bytes, also once the driver reads the statement's results in
   * binary (after its fifth execution): a bytea, a jsonb, an array, a timestamptz.
   */
  @Test
  void carriesValuesOfEveryKindOverUnchangedRepeatedly() {
    pg.exec(
        "CREATE TABLE app.blobs (id int PRIMARY KEY, b bytea, j jsonb, a text[], ts timestamptz)",
        "INSERT INTO app.blobs SELECT g, decode("
            + BIG_SQL.replace("t || '-' || i", "'x'")
            + ", 'hex'), jsonb_build_object('k', g, 'big', "
            + BIG_SQL.replace("t || '-' || i", "'y'")
            + "), ARRAY['x y', NULL, '\"q\"', g::text], '2026-12-04 19:45:03.123456+05:45' FROM generate_series(1, 8) g");
    String before =
        pg.one(
            "SELECT md5(string_agg(b::text || j::text || a::text || ts::text, ',' ORDER BY id)) FROM app.blobs");
    RelationId blobs = rel("app", "blobs");
    Tx t = tx(0x30);
    for (int id = 1; id <= 8; id++) {
      String from = Integer.toString(id);
      t.delete(blobs, key("id", "integer", from))
          .movedInsert(
              blobs,
              row(key("id", "integer", from)),
              key("id", "integer", Integer.toString(id + 100)),
              toast("b", "bytea"),
              toast("j", "jsonb"),
              toast("a", "text[]"),
              val(
                  "ts",
                  "timestamp with time zone",
                  pg.one("SELECT ts::text FROM app.blobs WHERE id = " + id)));
    }
    try (TransactionApplier a = applier(ApplyOptions.builder("s"))) {
      a.apply(t.source());
    }
    assertThat(pg.one("SELECT min(id) FROM app.blobs")).isEqualTo("101");
    assertThat(
            pg.one(
                "SELECT md5(string_agg(b::text || j::text || a::text || ts::text, ',' ORDER BY id)) FROM app.blobs"))
        .isEqualTo(before);
  }

  /**
   * As partitioned scale mode publishes it: the delete half in lane 0, the insert half in lane 1
   * (one change a chunk), merged back by total_order at the barrier and applied by a task that
   * staged both lanes.
   */
  @Test
  void carriesTheValuesOverAcrossLanesAtTheBarrier() {
    pg.exec("INSERT INTO app.docs VALUES (1, 'one', " + BIG_SQL + ", 'n1')");
    String bodyMd5 = pg.one("SELECT md5(body) FROM app.docs WHERE id = 1");
    TransactionEnvelope e = move(tx(0x20), 1, 10).build();
    Barriers b =
        Barriers.partitioned(
            e,
            2,
            1,
            event ->
                event instanceof ChangeRecord c && c.getOperation() == Operation.OPERATION_INSERT
                    ? 1
                    : 0);
    Feed feed = new Feed();
    try (TransactionApplier a = applier(ApplyOptions.builder("s1"));
        SinkEngine p =
            new SinkEngine(a, new SinkEngine.Listener() {}, 1000, 64 << 20, 0)
                .holdLanes(Duration.ZERO, 0)) {
      p.accept(feed.inputs(b.chunkMessages()));
      assertThat(pg.rows("SELECT id FROM app.docs")).containsExactly(List.of("1"));
      p.accept(feed.inputs(b.closing()));
      assertThat(p.waiting()).isFalse();
    }
    assertThat(pg.rows("SELECT id, title, md5(body), note FROM app.docs"))
        .containsExactly(List.of("10", "moved 1", bodyMd5, "n1"));
  }

  @Test
  void failsClosedWhenTheMovedRowIsNotOnTheTargetEvenWhenMissingRowsAreIgnored() {
    pg.exec("INSERT INTO app.docs VALUES (2, 'two', 'b2', 'n2')");
    SourceTransaction t = move(tx(0x10).delete(DOCS, key("id", "integer", "2")), 1, 10).source();
    for (MissingRowPolicy policy : MissingRowPolicy.values()) {
      try (TransactionApplier a = applier(ApplyOptions.builder("s").missingRow(policy))) {
        assertThatThrownBy(() -> a.apply(t))
            .isInstanceOfSatisfying(
                ApplyException.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(ApplyException.Reason.MOVED_ROW_NOT_FOUND);
                  assertThat(e.relation()).isEqualTo("\"app\".\"docs\"");
                  assertThat(e.eventKey()).isEqualTo("pg-test:0/10:16:3");
                })
            .hasMessageContaining("id=1");
      }
    }
    assertThat(pg.rows("SELECT id FROM app.docs")).containsExactly(List.of("2")); // rolled back
  }

  @Test
  void failsClosedWhenTheInsertHalfDoesNotFollowItsDeleteHalf() {
    pg.exec("INSERT INTO app.docs VALUES (1, 'one', 'b1', 'n1'), (2, 'two', 'b2', 'n2')");
    Tx lone =
        tx(0x10)
            .movedInsert(
                DOCS,
                row(key("id", "integer", "1")),
                key("id", "integer", "10"),
                val("title", "text", "t"),
                toast("body", "text"),
                toast("note", "text"));
    Tx otherRow =
        tx(0x10)
            .delete(DOCS, key("id", "integer", "2"))
            .movedInsert(
                DOCS,
                row(key("id", "integer", "1")),
                key("id", "integer", "10"),
                val("title", "text", "t"),
                toast("body", "text"),
                toast("note", "text"));
    for (Tx t : List.of(lone, otherRow)) {
      try (TransactionApplier a = applier(ApplyOptions.builder("s"))) {
        SourceTransaction s = t.source();
        assertThatThrownBy(() -> a.apply(s))
            .isInstanceOfSatisfying(
                ApplyException.class,
                e -> assertThat(e.reason()).isEqualTo(ApplyException.Reason.MOVED_ROW_NOT_FOUND))
            .hasMessageContaining("does not immediately precede it");
      }
    }
    assertThat(pg.rows("SELECT id, body FROM app.docs ORDER BY id"))
        .containsExactly(List.of("1", "b1"), List.of("2", "b2"));
  }

  @Test
  void anInsertThatLacksValuesWithoutAnOldImageIsStillRefused() {
    try (TransactionApplier a = applier(ApplyOptions.builder("s"))) {
      SourceTransaction t =
          tx(0x10)
              .insert(
                  DOCS,
                  key("id", "integer", "1"),
                  val("title", "text", "t"),
                  toast("body", "text"),
                  nul("note", "text"))
              .source();
      assertThatThrownBy(() -> a.apply(t))
          .isInstanceOfSatisfying(
              ApplyException.class,
              e -> assertThat(e.reason()).isEqualTo(ApplyException.Reason.UNSUPPORTED_CHANGE))
          .hasMessageContaining("unchanged-TOAST");
    }
    assertThat(pg.count("app.docs")).isZero();
  }
}
