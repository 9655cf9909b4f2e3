package io.trellara.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.source.capture.CaptureEventSink;
import io.trellara.source.capture.RelationSchema;
import io.trellara.source.pg.PgEndpoint;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot as the reader publishes it, with one connection and with snapshot.max.threads=3:
 * every table whole and contiguous (all its inserts together), the rows as of the exported snapshot
 * and none committed after it, the same rows either way, and no read-ahead file left behind.
 */
@EitherPlatform
class SnapshotReaderIT {
  static TestServers.Postgres pg;
  static PostgresDatabase db;

  /** Catalog order puts z_big last; largest-first reading (helpers present) puts it first. */
  static final Map<String, Integer> TABLES = new LinkedHashMap<>();

  static {
    TABLES.put("a1", 3_000);
    TABLES.put("a2", 2_000);
    TABLES.put("a3", 1);
    TABLES.put("a4", 4_000);
    TABLES.put("a5", 0);
    TABLES.put("z_big", 30_000);
  }

  @TempDir Path spill;

  @BeforeAll
  static void start() {
    pg = TestServers.current().postgres("snapshot-reader").start();
    db = pg.createDatabase("reader");
    List<String> sql = new ArrayList<>();
    for (Map.Entry<String, Integer> t : TABLES.entrySet()) {
      sql.add("CREATE TABLE " + t.getKey() + " (id int PRIMARY KEY, note text)");
      sql.add(
          "INSERT INTO "
              + t.getKey()
              + " SELECT g, 'tab\tand\\backslash ' || g FROM generate_series(1, "
              + t.getValue()
              + ") g");
      sql.add("ANALYZE " + t.getKey());
    }
    sql.add("CREATE PUBLICATION pub FOR ALL TABLES");
    db.execute(sql.toArray(new String[0]));
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  private PgEndpoint endpoint() {
    return new PgEndpoint(
        pg.host(), pg.port(), db.name(), pg.user(), pg.password(), "disable", "", "", "", "");
  }

  /**
   * Relation oids in the order published (each once if tables are contiguous), and the inserts of
   * each.
   */
  private record Published(List<Long> order, Map<Long, Integer> inserts, List<String> rows) {}

  private Published read(String slot, int threads) throws Exception {
    List<Long> order = new ArrayList<>();
    Map<Long, Integer> inserts = new LinkedHashMap<>();
    List<String> rows = new ArrayList<>();
    SnapshotProgress progress = new SnapshotProgress();
    try (ExportedSnapshot exported = ExportedSnapshot.create(endpoint(), slot, true)) {
      db.execute(
          "INSERT INTO z_big VALUES (-1, 'after the snapshot')", "DELETE FROM a1 WHERE id = 1");
      SnapshotEvents events =
          new SnapshotEvents(
              "src",
              exported.consistentPoint(),
              new CaptureEventSink() {
                @Override
                public void onChange(ChangeRecord change, RelationSchema relation) {
                  long oid = relation.oid();
                  if (order.isEmpty() || order.get(order.size() - 1) != oid) {
                    order.add(oid);
                  }
                  inserts.merge(oid, 1, Integer::sum);
                  StringBuilder row = new StringBuilder().append(oid);
                  change
                      .getAfter()
                      .getColumnsList()
                      .forEach(
                          v ->
                              row.append(':')
                                  .append(
                                      v.getState() == ColumnState.COLUMN_STATE_NULL
                                          ? "NULL"
                                          : v.getTextBytes().toStringUtf8()));
                  rows.add(row.toString());
                }

                @Override
                public void onDdl(DdlEvent ddl) {
                  throw new AssertionError("a snapshot has no DDL");
                }
              });
      new SnapshotReader(endpoint(), "pub", progress, () -> true, threads, 1_000, spill)
          .read(exported, events);
      assertThat(events.events()).isEqualTo(rows.size());
    } finally {
      db.execute(
          "DELETE FROM z_big WHERE id = -1",
          "INSERT INTO a1 VALUES (1, 'tab\tand\\backslash 1') ON CONFLICT DO NOTHING");
    }
    assertThat(progress.tablesDone()).isEqualTo(TABLES.size());
    assertThat(progress.rows())
        .isEqualTo(TABLES.values().stream().mapToLong(Integer::longValue).sum());
    return new Published(order, inserts, rows);
  }

  private static long oid(String table) {
    return db.queryLong("SELECT '" + table + "'::regclass::oid");
  }

  @Test
  void threeConnectionsPublishTheSameSnapshotAsOneEachTableWholeAndContiguous() throws Exception {
    Published one = read("reader_one", 1);
    Published three = read("reader_three", 3);
    long withRows =
        TABLES.values().stream().filter(n -> n > 0).count(); // an empty table publishes no event
    for (Published p : List.of(one, three)) {
      assertThat(p.order()).as("each table once").doesNotHaveDuplicates().hasSize((int) withRows);
      for (Map.Entry<String, Integer> t : TABLES.entrySet()) {
        assertThat(p.inserts().getOrDefault(oid(t.getKey()), 0))
            .as(t.getKey())
            .isEqualTo(t.getValue());
      }
    }
    assertThat(one.order().get((int) withRows - 1))
        .as("one connection: catalog order")
        .isEqualTo(oid("z_big"));
    assertThat(three.order().get(0))
        .as("helpers present: the largest table first")
        .isEqualTo(oid("z_big"));
    assertThat(new java.util.HashSet<>(three.rows()))
        .as("the same rows")
        .isEqualTo(new java.util.HashSet<>(one.rows()));
    try (Stream<Path> left = Files.list(spill)) {
      assertThat(left).as("read-ahead files left").isEmpty();
    }
  }

  @Test
  void aDatabaseWithShortTimeoutsIsSnapshottedByASlowPipeline() throws Exception {
    PostgresDatabase slow = pg.createDatabase("timeouts");
    slow.execute(
        "CREATE TABLE big (id int PRIMARY KEY, note text)",
        "INSERT INTO big SELECT g, repeat('x', 60) || g FROM generate_series(1, 300000) g",
        "CREATE PUBLICATION pub FOR ALL TABLES",
        "ALTER DATABASE " + slow.name() + " SET statement_timeout = '200ms'",
        "ALTER DATABASE " + slow.name() + " SET idle_in_transaction_session_timeout = '200ms'",
        "ALTER DATABASE " + slow.name() + " SET transaction_timeout = '400ms'"); // PostgreSQL 17
    PgEndpoint endpoint =
        new PgEndpoint(
            pg.host(), pg.port(), slow.name(), pg.user(), pg.password(), "disable", "", "", "", "");
    long[] rows = {0};
    SnapshotEvents events =
        new SnapshotEvents(
            "src",
            0,
            new CaptureEventSink() {
              @Override
              public void onChange(ChangeRecord change, RelationSchema relation) {
                if (++rows[0]
                    == 1) { // a slow pipeline: the COPY and its transaction outlast every timeout
                  await()
                      .atMost(Duration.ofSeconds(30))
                      .pollInterval(Duration.ofMillis(50))
                      .until(
                          () ->
                              "true"
                                  .equals(
                                      slow.queryString(
                                          "SELECT coalesce(bool_and(now() - query_start"
                                              + " > interval '500 ms' AND now() - xact_start > interval '600 ms'), false)::text"
                                              + " FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'"
                                              + " AND application_name LIKE 'trellara-snapshot:%'")));
                }
              }

              @Override
              public void onDdl(DdlEvent ddl) {
                throw new AssertionError("a snapshot has no DDL");
              }
            });
    try (ExportedSnapshot exported = ExportedSnapshot.create(endpoint, "reader_slow", true)) {
      new SnapshotReader(
              endpoint,
              "pub",
              new SnapshotProgress(),
              () -> true,
              1,
              SnapshotReads.DEFAULT_KEY_RANGE_ROWS,
              spill)
          .read(exported, events);
    }
    assertThat(rows[0]).isEqualTo(300_000);
  }

  /**
   * Key order in ranges: a composite key in another order than the columns, with quotes,
   * backslashes, tabs, newlines and non-ASCII in its text part (under standard_conforming_strings
   * off, where a plain literal would read a backslash as an escape), rows stored far from key
   * order, a row filter and a partition; and the tables that fall back to one COPY in storage
   * order: no key, and a key index with a non-default operator class.
   */
  @Test
  void tablesWithAUsableKeyAreReadInKeyOrderRangeByRangeOthersInStorageOrder() throws Exception {
    PostgresDatabase k = pg.createDatabase("keyorder");
    k.execute(
        "ALTER DATABASE " + k.name() + " SET standard_conforming_strings = off",
        "CREATE TABLE composite (a int, b text, note text, PRIMARY KEY (b, a))",
        "INSERT INTO composite SELECT g, (ARRAY[$$it's$$, $$back\\slash$$, E'tab\\there', E'new\\nline',"
            + " 'zürich', '', $$x'\\$$])[1 + g % 7], 'n' || g FROM generate_series(1, 500) g ORDER BY random()",
        "UPDATE composite SET note = note || '+' WHERE a % 3 = 0", // moves rows: storage order is
        // not key order
        "CREATE TABLE filtered (id bigint PRIMARY KEY, note text)",
        "INSERT INTO filtered SELECT g, 'f' || g FROM generate_series(1, 300) g ORDER BY random()",
        "CREATE TABLE no_key (id int, note text)",
        "INSERT INTO no_key SELECT g, 'h' || g FROM generate_series(1, 40) g",
        "CREATE TABLE pattern (code text NOT NULL, note text)",
        "CREATE UNIQUE INDEX pattern_code ON pattern (code text_pattern_ops)",
        "ALTER TABLE pattern REPLICA IDENTITY USING INDEX pattern_code",
        "INSERT INTO pattern SELECT 'c' || g, 'p' || g FROM generate_series(1, 30) g",
        "CREATE TABLE parts (id int PRIMARY KEY, note text) PARTITION BY RANGE (id)",
        "CREATE TABLE parts_low PARTITION OF parts FOR VALUES FROM (MINVALUE) TO (100)",
        "CREATE TABLE parts_high PARTITION OF parts FOR VALUES FROM (100) TO (MAXVALUE)",
        "INSERT INTO parts SELECT g, 'q' || g FROM generate_series(1, 200) g ORDER BY random()",
        "CREATE PUBLICATION pub FOR TABLE composite, filtered WHERE (id % 2 = 0), no_key, pattern, parts"
            + " WITH (publish_via_partition_root = true)");
    PgEndpoint endpoint =
        new PgEndpoint(
            pg.host(), pg.port(), k.name(), pg.user(), pg.password(), "disable", "", "", "", "");
    Map<String, List<String>> rows = new LinkedHashMap<>();
    SnapshotEvents events =
        new SnapshotEvents(
            "src",
            0,
            new CaptureEventSink() {
              @Override
              public void onChange(ChangeRecord change, RelationSchema relation) {
                StringBuilder row = new StringBuilder();
                change
                    .getAfter()
                    .getColumnsList()
                    .forEach(
                        v ->
                            row.append(row.isEmpty() ? "" : "|")
                                .append(v.getTextBytes().toStringUtf8()));
                rows.computeIfAbsent(
                        relation.qualifiedName().replace("public.", ""), t -> new ArrayList<>())
                    .add(row.toString());
              }

              @Override
              public void onDdl(DdlEvent ddl) {
                throw new AssertionError("a snapshot has no DDL");
              }
            });
    try (ExportedSnapshot exported = ExportedSnapshot.create(endpoint, "reader_keys", true)) {
      k.execute("INSERT INTO composite VALUES (0, 'after', 'the snapshot')"); // not in the snapshot
      new SnapshotReader(endpoint, "pub", new SnapshotProgress(), () -> true, 1, 7, spill)
          .read(exported, events);
    }
    k.execute("DELETE FROM composite WHERE a = 0");
    assertThat(rows.get("composite"))
        .as("key order (b, a), every row once")
        .containsExactlyElementsOf(
            k.queryStrings(
                "SELECT a || '|' || b || '|' || note FROM composite" + " ORDER BY b, a"));
    assertThat(rows.get("filtered"))
        .as("the row filter applies to every range")
        .containsExactlyElementsOf(
            k.queryStrings(
                "SELECT id || '|' || note FROM filtered" + " WHERE id % 2 = 0 ORDER BY id"));
    assertThat(rows.get("parts"))
        .as("a partitioned table through its root, in key order")
        .containsExactlyElementsOf(
            k.queryStrings("SELECT id || '|' || note FROM parts ORDER BY id"));
    assertThat(rows.get("no_key"))
        .as("no key: storage order")
        .containsExactlyElementsOf(k.queryStrings("SELECT id || '|' || note FROM no_key"));
    assertThat(rows.get("pattern"))
        .as("a text_pattern_ops key: storage order, every row")
        .containsExactlyInAnyOrderElementsOf(
            k.queryStrings("SELECT code || '|' || note FROM pattern"));
  }

  /**
   * A key range of a large table is an index scan that starts at the last key read, not a sort of
   * the table.
   */
  @Test
  void aKeyRangeIsAnIndexScanStartingAfterTheLastKey() throws Exception {
    try (java.sql.Connection c = db.connect()) {
      SnapshotTable big =
          new SnapshotReader(endpoint(), "pub", new SnapshotProgress(), () -> true, 1, 1_000, spill)
              .tables(c).stream().filter(t -> t.name().equals("z_big")).findFirst().orElseThrow();
      assertThat(big.orderKey()).containsExactly(new SnapshotTable.KeyColumn(0, "integer"));
      String copy =
          TableCopy.rangeSql(big, TableCopy.keyLiteral(big, "15000\tx".getBytes()), 1_000);
      String select = copy.substring("COPY (".length(), copy.length() - ") TO STDOUT".length());
      String plan = String.join("\n", db.queryStrings("EXPLAIN (COSTS OFF) " + select));
      assertThat(plan)
          .as(plan)
          .contains("Index Scan using z_big_pkey")
          .contains("Index Cond")
          .doesNotContain("Sort");
    }
  }
}
