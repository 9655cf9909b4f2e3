package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.nul;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Values travel as PostgreSQL text and are parsed by the target column's input function: exact
 * round trip.
 */
class TypedValuesTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId TYPED = rel("app", "typed");
  static final String[][] COLUMNS = {
    {"n", "numeric"},
    {"ts", "timestamp with time zone"},
    {"tsl", "timestamp without time zone"},
    {"d", "date"},
    {"b", "bytea"},
    {"j", "jsonb"},
    {"ia", "integer[]"},
    {"ta", "text[]"},
    {"u", "uuid"},
    {"t", "text"},
    {"f8", "double precision"},
    {"f4", "real"},
    {"iv", "interval"},
    {"bo", "boolean"},
  };
  static final String[][] VALUES = {
    {
      "12345678901234567890.123456789",
      "2026-11-29 10:15:30.123456+00",
      "2026-02-28 23:59:59.999999",
      "2026-11-29",
      "\\x00ff10",
      "{\"a\": [1, 2, {\"b\": \"q\\\"uote\"}], \"c\": null}",
      "{1,2,NULL,-3}",
      "{\"a b\",\"q\\\"x\",NULL,\"\",plain}",
      "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
      "it's \"quoted\"\nnew line\ttab \\ backslash \r ünïcødé 😀 \\N",
      "NaN",
      "Infinity",
      "1 year 2 mons 3 days 04:05:06.789",
      "t"
    },
    {
      "NaN",
      "infinity",
      "1999-12-31 23:59:59",
      "0044-03-15 BC",
      "\\x",
      "[]",
      "{}",
      "{}",
      "00000000-0000-0000-0000-000000000000",
      "",
      "-Infinity",
      "3.4028235e+38",
      "-00:00:01",
      "f"
    },
    {
      "-0.000001",
      "1970-01-01 00:00:00+00",
      "-infinity",
      "infinity",
      "\\x5c0a09",
      "\"é\\n\"",
      "{{1,2},{3,4}}",
      "{NULL}",
      "ffffffff-ffff-ffff-ffff-ffffffffffff",
      "\\.",
      "0.1",
      "1e-45",
      "00:00:00",
      "t"
    },
  };

  @BeforeEach
  void reset() {
    pg.reset();
    StringBuilder ddl = new StringBuilder("CREATE TABLE app.typed (id int PRIMARY KEY");
    for (String[] c : COLUMNS) {
      ddl.append(", ").append(c[0]).append(' ').append(c[1]);
    }
    pg.exec(ddl.append(')').toString());
  }

  private static Tx.Col[] row(int id, String[] values) {
    List<Tx.Col> cols = new ArrayList<>();
    cols.add(key("id", "integer", Integer.toString(id)));
    for (int i = 0; i < COLUMNS.length; i++) {
      cols.add(
          values == null
              ? nul(COLUMNS[i][0], COLUMNS[i][1])
              : val(COLUMNS[i][0], COLUMNS[i][1], values[i]));
    }
    return cols.toArray(Tx.Col[]::new);
  }

  private static void apply(Tx t, int copyThreshold) {
    try (TransactionApplier a =
        new TransactionApplier(
            pg.connections(),
            RelationMapper.identity(),
            ApplyOptions.builder("s").copyThreshold(copyThreshold).build())) {
      a.apply(t.source());
    }
  }

  private static void assertRoundTrip() {
    StringBuilder select = new StringBuilder("SELECT id");
    for (String[] c : COLUMNS) {
      select.append(", ").append(c[0]);
    }
    List<List<String>> rows = pg.rows(select.append(" FROM app.typed ORDER BY id").toString());
    assertThat(rows).hasSize(VALUES.length + 1);
    for (int r = 0; r < VALUES.length; r++) {
      assertThat(rows.get(r).subList(1, rows.get(r).size()))
          .as("row %d", r + 1)
          .containsExactly(VALUES[r]);
    }
    List<String> nulls = rows.get(VALUES.length).subList(1, COLUMNS.length + 1);
    assertThat(nulls).containsOnlyNulls();
  }

  private static Tx inserts(long lsn) {
    Tx t = tx(lsn);
    for (int r = 0; r < VALUES.length; r++) {
      t.insert(TYPED, row(r + 1, VALUES[r]));
    }
    return t.insert(TYPED, row(VALUES.length + 1, null));
  }

  @Test
  void roundTripsEveryCommonTypeThroughCopy() {
    apply(inserts(0x10), 1);
    assertRoundTrip();
  }

  @Test
  void roundTripsEveryCommonTypeThroughInsertStatements() {
    apply(inserts(0x10), 1_000);
    assertRoundTrip();
  }

  @Test
  void roundTripsEveryCommonTypeThroughUpdates() {
    Tx t = tx(0x10);
    for (int r = 0; r <= VALUES.length; r++) {
      t.insert(TYPED, row(r + 1, r == VALUES.length ? VALUES[0] : null));
    }
    apply(t, 1_000);
    Tx u = tx(0x20);
    for (int r = 0; r <= VALUES.length; r++) {
      u.update(TYPED, null, row(r + 1, r == VALUES.length ? null : VALUES[r]));
    }
    apply(u, 1_000);
    assertRoundTrip();
  }

  @Test
  void timestampsWithoutOffsetAreReadAsUtcWhateverTheTargetServerZone() {
    pg.exec("CREATE TABLE app.tz (id int PRIMARY KEY, ts timestamptz)");
    try (TransactionApplier a =
        new TransactionApplier(
            pg.connections(), RelationMapper.identity(), ApplyOptions.defaults("s"))) {
      a.apply(
          tx(0x10)
              .insert(
                  rel("app", "tz"),
                  key("id", "integer", "1"),
                  val("ts", "timestamp with time zone", "2026-06-01 12:00:00"))
              .source());
    }
    assertThat(pg.one("SELECT extract(epoch FROM ts)::bigint FROM app.tz")).isEqualTo("1780315200");
    // the same text in a session of the server's zone is another instant: the session zone matters
    pg.exec(
        "SET TimeZone = 'Asia/Kathmandu'", "INSERT INTO app.tz VALUES (2, '2026-06-01 12:00:00')");
    assertThat(pg.one("SELECT extract(epoch FROM ts)::bigint FROM app.tz WHERE id = 2"))
        .isNotEqualTo("1780315200");
  }
}
