package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.Snapshots;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.SnapshotApplyMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * snapshot.apply=per_table: a snapshot of three tables, six rows each, streamed in chunks of four
 * events (so tables straddle chunks), delivered one record per batch. Each table becomes visible
 * whole when the next begins; a sink that stops mid-snapshot resumes after the last table it
 * committed and never writes a committed table again.
 */
class SnapshotPerTableTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  private static final List<String> TABLES = List.of("a", "b", "c");
  private static final int ROWS = 6;

  @BeforeEach
  void reset() {
    pg.reset();
    for (String t : TABLES) {
      pg.exec("CREATE TABLE app." + t + " (id int PRIMARY KEY, note text)");
    }
  }

  private static TransactionApplier applier(SnapshotApplyMode mode) {
    return new TransactionApplier(
        pg.connections(),
        RelationMapper.builder().allow(List.of("app.*")).build(),
        ApplyOptions.builder("s1").snapshotApply(mode).build());
  }

  private static SinkEngine pipeline(TransactionApplier a) {
    return new SinkEngine(a, null, 1000, 64 << 20, 0);
  }

  private static Barriers snapshot(List<String> tableOrder) {
    Tx t = Tx.tx("pg-test", 0x500, Snapshots.TRANSACTION_ID);
    Map<String, Integer> next = new TreeMap<>();
    for (String table : tableOrder) {
      RelationId r = rel("app", table);
      int from = next.getOrDefault(table, 0);
      for (int i = from + 1; i <= from + ROWS; i++) {
        t.insert(r, key("id", "integer", Integer.toString(i)), val("note", "text", table + i));
      }
      next.put(table, from + ROWS);
    }
    TransactionEnvelope e = t.build();
    return Barriers.strictChunked(e, 4);
  }

  private static Map<String, Long> counts() {
    Map<String, Long> m = new TreeMap<>();
    for (String t : TABLES) {
      m.put(t, pg.count("app." + t));
    }
    return m;
  }

  @Test
  void eachTableBecomesVisibleWholeWhenTheNextBegins() {
    Barriers b = snapshot(TABLES);
    List<Map<String, Long>> seen = new ArrayList<>();
    try (TransactionApplier a = applier(SnapshotApplyMode.PER_TABLE);
        SinkEngine p = pipeline(a)) {
      Feed.oneByOne(p, new Feed().inputs(b.all()), delivered -> seen.add(counts()));
      assertThat(a.metrics().barriersApplied()).isEqualTo(1);
    }
    // 18 rows in 5 chunks of 4: table a ends in chunk 2, b in chunk 3; then the manifest and the
    // marker
    assertThat(seen)
        .containsExactly(
            Map.of("a", 0L, "b", 0L, "c", 0L),
            Map.of("a", 6L, "b", 0L, "c", 0L),
            Map.of("a", 6L, "b", 0L, "c", 0L),
            Map.of("a", 6L, "b", 6L, "c", 0L),
            Map.of("a", 6L, "b", 6L, "c", 0L),
            Map.of("a", 6L, "b", 6L, "c", 0L),
            Map.of("a", 6L, "b", 6L, "c", 6L));
    assertThat(pg.count("trellara_sink.snapshot_tables"))
        .as("rows of the finished snapshot")
        .isZero();
    assertThat(pg.one("SELECT change_count FROM trellara_sink.applied_transactions"))
        .isEqualTo("18");
  }

  @Test
  void aSinkStoppedMidSnapshotResumesAfterTheLastTableItCommitted() {
    Barriers b = snapshot(TABLES);
    try (TransactionApplier a = applier(SnapshotApplyMode.PER_TABLE);
        SinkEngine p = pipeline(a)) {
      Feed.oneByOne(
          p, new Feed().inputs(b.chunkMessages().subList(0, 4))); // a and b committed, c open
    } // closed mid-snapshot: c's open transaction rolls back
    assertThat(counts()).isEqualTo(Map.of("a", 6L, "b", 6L, "c", 0L));
    String committedRows = "SELECT string_agg(xmin::text, ',' ORDER BY id) FROM ";
    String a0 = pg.one(committedRows + "app.a");
    String b0 = pg.one(committedRows + "app.b");
    assertThat(pg.count("trellara_sink.snapshot_tables")).isEqualTo(2);

    try (TransactionApplier a = applier(SnapshotApplyMode.PER_TABLE);
        SinkEngine p = pipeline(a)) {
      Feed.oneByOne(p, new Feed().inputs(b.all())); // delivered again from its first chunk
      assertThat(a.metrics().rowsInserted())
          .as("rows written after the restart: table c only")
          .isEqualTo(6);
    }
    assertThat(counts()).isEqualTo(Map.of("a", 6L, "b", 6L, "c", 6L));
    assertThat(pg.one(committedRows + "app.a")).as("table a not written again").isEqualTo(a0);
    assertThat(pg.one(committedRows + "app.b")).as("table b not written again").isEqualTo(b0);
    assertThat(pg.count("trellara_sink.snapshot_tables")).isZero();
    assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(1);
  }

  @Test
  void atomicModeShowsNothingUntilTheCommitMarker() {
    Barriers b = snapshot(TABLES);
    List<Long> visible = new ArrayList<>();
    try (TransactionApplier a = applier(SnapshotApplyMode.ATOMIC);
        SinkEngine p = pipeline(a)) {
      Feed.oneByOne(
          p,
          new Feed().inputs(b.all()),
          delivered -> visible.add(counts().values().stream().mapToLong(Long::longValue).sum()));
    }
    assertThat(visible).containsExactly(0L, 0L, 0L, 0L, 0L, 0L, 18L);
  }

  @Test
  void aTableThatBeginsAgainAfterItWasCommittedIsRefused() {
    Barriers b = snapshot(List.of("a", "b", "a"));
    try (TransactionApplier a = applier(SnapshotApplyMode.PER_TABLE);
        SinkEngine p = pipeline(a)) {
      assertThatThrownBy(() -> Feed.oneByOne(p, new Feed().inputs(b.all())))
          .isInstanceOfSatisfying(
              ApplyException.class,
              e ->
                  assertThat(e.reason())
                      .isEqualTo(ApplyException.Reason.SNAPSHOT_TABLE_INTERLEAVED))
          .hasMessageContaining("app.a");
    }
    assertThat(counts())
        .as("a committed before b; b rolled back with the refusal")
        .isEqualTo(Map.of("a", 6L, "b", 0L, "c", 0L));
    assertThat(pg.count("trellara_sink.applied_transactions")).isZero();
  }
}
