package io.trellara.identity;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Against a real PostgreSQL 17: values ORDERed BY there (C collation for text) encode in the same
 * unsigned byte order, and values PostgreSQL calls equal encode identically. The session prints
 * with DateStyle=ISO and a TimeZone with historical odd offsets (Asia/Kathmandu: +05:41:16 LMT,
 * +05:30, +05:45).
 */
class RowIdentityOrderingIT {
  private static final int ROWS = 1500;
  private static EmbeddedPostgres pg;
  private static Connection conn;

  @BeforeAll
  static void start() throws Exception {
    pg = EmbeddedPostgres.builder().start();
    conn = pg.getPostgresDatabase().getConnection();
    try (Statement s = conn.createStatement()) {
      s.execute(
          "SET DateStyle = ISO; SET IntervalStyle = postgres; SET TimeZone = 'Asia/Kathmandu';"
              + " SET extra_float_digits = 3; SET bytea_output = hex; SELECT setseed(0.42)");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (conn != null) {
      conn.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  private static byte[] enc(String type, String text) {
    return RowIdentityText.encode(RowIdentityDomain.SCAN_KEY, List.of(type), Arrays.asList(text));
  }

  /**
   * Order {@code ROWS} random values plus the specials by PostgreSQL's default operator class and
   * check, pair by pair, that equal neighbours encode identically and others in strictly increasing
   * bytes.
   */
  private static void assertOrderAgrees(
      String type, String sqlType, String randomExpr, String... specials) throws Exception {
    StringBuilder values =
        new StringBuilder(
            "SELECT ("
                + randomExpr
                + ")::"
                + sqlType
                + " AS x FROM generate_series(1, "
                + ROWS
                + ")");
    for (String s : specials) {
      values.append(" UNION ALL SELECT (").append(s).append(")::").append(sqlType);
    }
    // ORDER BY v.x, not x: an unqualified name would pick the text output column and sort as text
    String sql =
        "WITH v AS ("
            + values
            + ") SELECT v.x::text AS t, coalesce(v.x = lag(v.x) OVER (ORDER BY v.x), false)"
            + " FROM v ORDER BY v.x";
    List<String> texts = new ArrayList<>();
    List<Boolean> equalToPrevious = new ArrayList<>();
    try (Statement s = conn.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        texts.add(rs.getString(1));
        equalToPrevious.add(rs.getBoolean(2));
      }
    }
    assertThat(texts).hasSize(ROWS + specials.length);
    byte[] previous = null;
    for (int i = 0; i < texts.size(); i++) {
      byte[] current = enc(type, texts.get(i));
      if (previous != null) {
        int cmp = Arrays.compareUnsigned(previous, current);
        String pair = type + ": " + texts.get(i - 1) + " then " + texts.get(i);
        if (equalToPrevious.get(i)) {
          assertThat(cmp).as("equal in PostgreSQL: " + pair).isZero();
        } else {
          assertThat(cmp).as("ordered in PostgreSQL: " + pair).isNegative();
        }
      }
      previous = current;
    }
  }

  @Test
  void integersAndBool() throws Exception {
    assertOrderAgrees("int2", "int2", "floor((random() - 0.5) * 65535)", "-32768", "32767", "0");
    assertOrderAgrees(
        "int4", "int4", "floor((random() - 0.5) * 4294967295)", "-2147483648", "2147483647", "0");
    assertOrderAgrees(
        "int8",
        "int8",
        "floor((random() - 0.5) * 1.8e19)::numeric",
        "-9223372036854775808",
        "9223372036854775807",
        "0",
        "-1");
    assertOrderAgrees("oid", "oid", "floor(random() * 4294967295)::bigint", "0", "4294967295");
    assertOrderAgrees("bool", "bool", "random() < 0.5", "true", "false");
  }

  @Test
  void floatsWithSignedZeroNaNAndInfinities() throws Exception {
    String[] specials = {
      "'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "'0'", "'1e-300'", "'-1e-300'"
    };
    assertOrderAgrees(
        "float8", "float8", "(random() - 0.5) * 10 ^ (floor(random() * 60) - 30)", specials);
    assertOrderAgrees(
        "float4",
        "float4",
        "(random() - 0.5) * 10 ^ (floor(random() * 60) - 30)",
        "'NaN'",
        "'Infinity'",
        "'-Infinity'",
        "'-0'",
        "'0'",
        "'1e-45'",
        "'3.4e38'");
  }

  @Test
  void numericWithScalesAndSpecials() throws Exception {
    assertOrderAgrees(
        "numeric",
        "numeric",
        "round(((random() - 0.5) * 10 ^ (floor(random() * 30) - 15))::numeric, floor(random() * 20)::int)",
        "'NaN'",
        "'Infinity'",
        "'-Infinity'",
        "0",
        "0.000",
        "0.35",
        "0.4",
        "-0.35",
        "-0.4",
        "1.0",
        "1.00",
        "'123456789012345678901234567890.5'",
        "'-1e-100'");
  }

  @Test
  void stringsAndBytesInCCollation() throws Exception {
    String random =
        "substr(md5(random()::text), 1, floor(random() * 6)::int) || chr(32 + floor(random() * 400)::int)"
            + " || repeat(' ', floor(random() * 3)::int)";
    assertOrderAgrees(
        "text", "text COLLATE \"C\"", random, "''", "'a'", "'a '", "'ab'", "'é'", "'€𝄞'");
    assertOrderAgrees("varchar", "varchar COLLATE \"C\"", random, "''", "'z'");
    assertOrderAgrees("bpchar", "char(6) COLLATE \"C\"", random, "''", "'a'", "'a   '");
    assertOrderAgrees(
        "bytea",
        "bytea",
        "substr(decode(md5(random()::text), 'hex'), 1, floor(random() * 4)::int)",
        "'\\x'",
        "'\\x00'",
        "'\\x0000'",
        "'\\x00ff'",
        "'\\xff'");
    assertOrderAgrees(
        "uuid", "uuid", "gen_random_uuid()", "'00000000-0000-0000-0000-000000000000'");
  }

  @Test
  void datesTimesAndTimestamps() throws Exception {
    assertOrderAgrees(
        "date",
        "date",
        "'2000-01-01'::date + floor((random() - 0.5) * 4000000)::int",
        "'infinity'",
        "'-infinity'",
        "'4714-11-24 BC'",
        "'0001-01-01 BC'",
        "'0001-01-01'");
    assertOrderAgrees(
        "time",
        "time",
        "'00:00'::time + random() * interval '24 hours'",
        "'24:00:00'",
        "'00:00:00'");
    assertOrderAgrees(
        "timestamp",
        "timestamp",
        "'2000-01-01'::timestamp + (random() - 0.5) * interval '4000000 days'",
        "'infinity'",
        "'-infinity'",
        "'4713-11-24 00:00:00 BC'",
        "'2000-01-01 00:00:00.000001'");
    assertOrderAgrees(
        "timestamptz",
        "timestamptz",
        "'2000-01-01 00:00:00+00'::timestamptz + (random() - 0.5) * interval '400000 days'",
        "'infinity'",
        "'-infinity'",
        "'1900-01-01 00:00:00+00'",
        "'1986-01-01 00:00:00+05:30'",
        "'1985-12-31 18:30:00+00'");
    assertOrderAgrees(
        "timetz",
        "timetz",
        "(('00:00'::time + random() * interval '24 hours')::text || (array['+05:45','-03:30','+00','+13:45','-12',"
            + "'+05:41:16'])[1 + floor(random() * 6)::int])",
        "'00:00:00+00'",
        "'05:45:00+05:45'",
        "'23:00:00-01'");
  }

  @Test
  void intervalsCompareByThirtyDayMonths() throws Exception {
    assertOrderAgrees(
        "interval",
        "interval",
        "make_interval(months => floor((random() - 0.5) * 40)::int, days => floor((random() - 0.5) * 100)::int,"
            + " secs => (random() - 0.5) * 1e7)",
        "'1 mon'",
        "'30 days'",
        "'720:00:00'",
        "'infinity'",
        "'-infinity'",
        "'1 year'",
        "'360 days'");
  }

  @Test
  void fixedLengthBitsAndMacAddresses() throws Exception {
    assertOrderAgrees("bit", "bit(12)", "floor(random() * 4096)::int::bit(12)", "B'000000000000'");
    assertOrderAgrees(
        "macaddr",
        "macaddr",
        "substr(regexp_replace(md5(random()::text), '(..)', '\\1:', 'g'), 1, 17)",
        "'00:00:00:00:00:00'");
    assertOrderAgrees(
        "macaddr8",
        "macaddr8",
        "substr(regexp_replace(md5(random()::text), '(..)', '\\1:', 'g'), 1, 23)",
        "'ff:ff:ff:ff:ff:ff:ff:ff'");
  }

  /**
   * Pairs PostgreSQL calls equal whose text differs (or comes from different sessions) encode
   * identically.
   */
  @ParameterizedTest(name = "{0}: {1} = {2}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "numeric | 1.0::numeric                      | 1.00::numeric",
        "numeric | 0.0::numeric                      | -0.000::numeric",
        "float8  | '-0'::float8                      | '0'::float8",
        "float4  | '-0'::float4                      | '0'::float4",
        "bpchar  | 'ab '::char(3)                    | 'ab'::char(5)",
        "interval| '1 month'::interval               | '30 days'::interval",
        "interval| '1 day'::interval                 | '24 hours'::interval",
        "jsonb   | '{\"a\":1,\"b\":2}'::jsonb        | '{\"b\":2,\"a\":1}'::jsonb",
        "jsonb   | '{\"a\":1.0}'::jsonb              | '{\"a\":1.00}'::jsonb",
        "jsonb   | '{\"a\":1,\"a\":2}'::jsonb        | '{\"a\":2}'::jsonb",
        "int4range | '[1,10]'::int4range             | '(0,11)'::int4range",
        "int4[]  | '{1,2}'::int4[]                   | ARRAY[1,2]",
        "timestamptz | '2024-01-02 03:04:05+05:45'::timestamptz | '2024-01-01 18:19:05-03:00'::timestamptz",
      })
  void equalValuesEncodeIdentically(String type, String left, String right) throws Exception {
    try (Statement s = conn.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT ("
                    + left
                    + ")::text, ("
                    + right
                    + ")::text, ("
                    + left
                    + ") = ("
                    + right
                    + ")")) {
      rs.next();
      assertThat(rs.getBoolean(3)).as("PostgreSQL equality").isTrue();
      assertThat(enc(type, rs.getString(1)))
          .as(rs.getString(1) + " vs " + rs.getString(2))
          .isEqualTo(enc(type, rs.getString(2)));
    }
  }

  @Test
  void sameTimestamptzPrintedInDifferentSessionZonesEncodesIdentically() throws Exception {
    List<byte[]> encodings = new ArrayList<>();
    for (String zone : List.of("Asia/Kathmandu", "Pacific/Chatham", "America/St_Johns", "UTC")) {
      try (Statement s = conn.createStatement()) {
        s.execute("SET TimeZone = '" + zone + "'");
        try (ResultSet rs =
            s.executeQuery("SELECT '2024-06-01 12:00:00.25+00'::timestamptz::text")) {
          rs.next();
          encodings.add(enc("timestamptz", rs.getString(1)));
        }
      }
    }
    try (Statement s = conn.createStatement()) {
      s.execute("SET TimeZone = 'Asia/Kathmandu'");
    }
    assertThat(encodings).allSatisfy(e -> assertThat(e).isEqualTo(encodings.get(0)));
  }

  @Test
  void nanPayloadsFromBinarySendEncodeAsOneNaN() throws Exception {
    KeyEncoder enc =
        RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(ColumnType.of(701)));
    try (Statement s = conn.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT float8send('NaN'::float8), float8send(-('NaN'::float8)),"
                    + " float8send('Infinity'::float8 - 'Infinity'::float8)")) {
      rs.next();
      byte[] b = {KeyEncoder.FORMAT_BINARY};
      byte[] first = enc.encode(new byte[][] {rs.getBytes(1)}, b);
      assertThat(enc.encode(new byte[][] {rs.getBytes(2)}, b)).isEqualTo(first);
      assertThat(enc.encode(new byte[][] {rs.getBytes(3)}, b))
          .isEqualTo(first)
          .isEqualTo(enc.encodeStrings("NaN"));
    }
  }

  @Test
  void binarySendFormatEncodesLikeText() throws Exception {
    String[][] cases = {
      {"int8", "int8send", "floor((random() - 0.5) * 1.8e19)::numeric::int8"},
      {"int4", "int4send", "floor((random() - 0.5) * 4e9)::int8::int4"},
      {"float8", "float8send", "(random() - 0.5) * 1e10"},
      {"uuid", "uuid_send", "gen_random_uuid()"},
      {"date", "date_send", "'2000-01-01'::date + floor((random() - 0.5) * 4000000)::int"},
      {
        "timestamptz",
        "timestamptz_send",
        "'2000-01-01 00:00:00+00'::timestamptz + (random() - 0.5) * interval '400000 days'"
      },
      {
        "interval",
        "interval_send",
        "make_interval(months => floor((random() - 0.5) * 40)::int, secs => random() * 1e6)"
      },
      {"time", "time_send", "'00:00'::time + random() * interval '24 hours'"},
      {"bytea", "byteasend", "decode(md5(random()::text), 'hex')"},
      {
        "timetz",
        "timetz_send",
        "(('00:00'::time + random() * interval '24 hours')::text || (array['+05:45','-03:30','+00'])[1 + floor(random() * 3)::int])::timetz"
      },
      {
        "inet",
        "inet_send",
        "(CASE WHEN random() < 0.5 THEN '10.1.2.3/8' ELSE '2001:db8::1/64' END)::inet"
      },
      {
        "cidr",
        "cidr_send",
        "(CASE WHEN random() < 0.5 THEN '10.0.0.0/8' ELSE '2001:db8::/32' END)::cidr"
      },
      {
        "varbit",
        "varbit_send",
        "substr(floor(random() * 1e9)::int::bit(32)::text, 1, floor(random() * 32)::int)::varbit"
      },
      {"macaddr", "macaddr_send", "'08:00:2b:01:02:03'::macaddr"},
    };
    for (String[] c : cases) {
      KeyEncoder enc =
          RowIdentityEncoder.forColumns(
              RowIdentityDomain.SCAN_KEY, List.of(RowIdentityText.columnType(c[0])));
      try (PreparedStatement ps =
              conn.prepareStatement(
                  "SELECT x::text, "
                      + c[1]
                      + "(x) FROM (SELECT ("
                      + c[2]
                      + ") AS x FROM generate_series(1, 50)) v");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          byte[] viaText = enc.encodeStrings(rs.getString(1));
          byte[] viaBinary =
              enc.encode(new byte[][] {rs.getBytes(2)}, new byte[] {KeyEncoder.FORMAT_BINARY});
          assertThat(viaBinary).as(c[0] + " " + rs.getString(1)).isEqualTo(viaText);
        }
      }
    }
  }

  /**
   * Structural values drawn from small pools (so equal values recur): for every pair, PostgreSQL's
   * equality and equality of the encodings agree.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "int4[]           | (array[[1, NULL], [3, 4]])[1:1 + floor(random() * 2)::int][1:1 + floor(random() * 2)::int]",
        "int4[]           | (CASE WHEN random() < 0.5 THEN '[0:1]={1,2}' ELSE '{1,2}' END)::int4[]",
        "text[]           | array[(array['a,b', '', 'NULL', NULL, 'q\"t', ' x ', '{}'])[1 + floor(random() * 7)::int], 'z']",
        "int4range        | int4range(floor(random() * 4)::int, 3 + floor(random() * 2)::int, (array['[)', '[]', '(]', '()'])[1 + floor(random() * 4)::int])",
        "numrange         | numrange(round(random()::numeric, 1), 1 + round(random()::numeric * 0.2, 1), (array['[)', '[]', '(]', '()'])[1 + floor(random() * 4)::int])",
        "tstzrange        | tstzrange('2024-01-01 00:00:00+00'::timestamptz + floor(random() * 3) * interval '1 hour', CASE WHEN random() < 0.3 THEN NULL ELSE '2024-01-02 00:00:00+05:45'::timestamptz END)",
        "daterange        | daterange('2024-01-01'::date + floor(random() * 3)::int, CASE WHEN random() < 0.3 THEN 'infinity'::date ELSE '2024-01-05'::date END, '[]')",
        "int4multirange   | int4multirange(int4range(floor(random() * 3)::int, 3), int4range(floor(random() * 3)::int + 4, 9))",
        "jsonb            | (array['{\"a\":1,\"b\":[1,2]}', '{\"b\":[1,2],\"a\":1.0}', '[1,2]', '\"x\"', '{\"a\":{\"c\":null}}', '{\"a\":{\"c\":false}}', '{}', '1e2', '100'])[1 + floor(random() * 9)::int]::jsonb",
        "record(int4,text) | row((array[1, NULL])[1 + floor(random() * 2)::int], (array['a b', '', NULL, '\"q\"', '(,)'])[1 + floor(random() * 5)::int])",
      })
  void structuralEqualityAgreesWithPostgres(String type, String expr) throws Exception {
    int n = 40;
    String sql =
        "WITH v AS (SELECT g AS i, ("
            + expr
            + ") AS x FROM generate_series(1, "
            + n
            + ") g)"
            + " SELECT a.i, a.x::text, b.i, (a.x = b.x) IS TRUE FROM v a CROSS JOIN v b ORDER BY a.i, b.i";
    String[] texts = new String[n + 1];
    boolean[][] equal = new boolean[n + 1][n + 1];
    try (Statement s = conn.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        texts[rs.getInt(1)] = rs.getString(2);
        equal[rs.getInt(1)][rs.getInt(3)] = rs.getBoolean(4);
      }
    }
    for (int i = 1; i <= n; i++) {
      for (int j = 1; j <= n; j++) {
        assertThat(Arrays.equals(enc(type, texts[i]), enc(type, texts[j])))
            .as(type + ": " + texts[i] + " vs " + texts[j])
            .isEqualTo(equal[i][j]);
      }
    }
  }

  @Test
  void registryOidsMatchPgType() throws Exception {
    try (Statement s = conn.createStatement();
        ResultSet rs = s.executeQuery("SELECT oid::int, typname FROM pg_type WHERE oid < 10000")) {
      int checked = 0;
      while (rs.next()) {
        String ours = RowIdentityTypes.typeName(rs.getInt(1));
        if (ours != null) {
          assertThat(ours).as("OID " + rs.getInt(1)).isEqualTo(rs.getString(2));
          checked++;
        }
      }
      assertThat(checked).isGreaterThan(80);
    }
  }
}
