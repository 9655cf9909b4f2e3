package io.trellara.identity;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The golden vector file (src/test/resources/golden-vectors-v2.tsv): one identity per line, {@code
 * domain TAB hex TAB type1 TAB value1 [TAB type2 TAB value2 ...]}; {@code \N} is SQL NULL and
 * {@code \t \n \\} are escapes. {@link #main} regenerates it from {@link #CASES} with the current
 * encoder: run it only for new vectors; an existing line must never change within V2.
 */
final class GoldenVectors {
  static final String RESOURCE = "/golden-vectors-v2.tsv";

  record Vector(RowIdentityDomain domain, String hex, List<String> types, List<String> values) {}

  private static final String N = null;

  /** domain name, then alternating type and value. */
  static final String[][] CASES = {
    {"SCAN_KEY", "bool", "f"},
    {"SCAN_KEY", "bool", "t"},
    {"SCAN_KEY", "bool", N},
    {"SCAN_KEY", "int2", "-32768"},
    {"SCAN_KEY", "int2", "0"},
    {"SCAN_KEY", "int2", "32767"},
    {"SCAN_KEY", "int2", N},
    {"SCAN_KEY", "int4", "-2147483648"},
    {"SCAN_KEY", "int4", "-1"},
    {"SCAN_KEY", "int4", "0"},
    {"SCAN_KEY", "int4", "2147483647"},
    {"SCAN_KEY", "int4", N},
    {"SCAN_KEY", "int8", "-9223372036854775808"},
    {"SCAN_KEY", "int8", "0"},
    {"SCAN_KEY", "int8", "9223372036854775807"},
    {"SCAN_KEY", "int8", N},
    {"SCAN_KEY", "oid", "0"},
    {"SCAN_KEY", "oid", "4294967295"},
    {"SCAN_KEY", "oid", N},
    {"SCAN_KEY", "float4", "-Infinity"},
    {"SCAN_KEY", "float4", "-3.4028235e+38"},
    {"SCAN_KEY", "float4", "-0"},
    {"SCAN_KEY", "float4", "0"},
    {"SCAN_KEY", "float4", "1.4e-45"},
    {"SCAN_KEY", "float4", "3.4028235e+38"},
    {"SCAN_KEY", "float4", "Infinity"},
    {"SCAN_KEY", "float4", "NaN"},
    {"SCAN_KEY", "float4", N},
    {"SCAN_KEY", "float8", "-Infinity"},
    {"SCAN_KEY", "float8", "-1.7976931348623157e+308"},
    {"SCAN_KEY", "float8", "-0"},
    {"SCAN_KEY", "float8", "0"},
    {"SCAN_KEY", "float8", "5e-324"},
    {"SCAN_KEY", "float8", "0.1"},
    {"SCAN_KEY", "float8", "1.7976931348623157e+308"},
    {"SCAN_KEY", "float8", "Infinity"},
    {"SCAN_KEY", "float8", "NaN"},
    {"SCAN_KEY", "float8", N},
    {"SCAN_KEY", "numeric", "-Infinity"},
    {"SCAN_KEY", "numeric", "-123.4500"},
    {"SCAN_KEY", "numeric", "-0.35"},
    {"SCAN_KEY", "numeric", "-0.4"},
    {"SCAN_KEY", "numeric", "0"},
    {"SCAN_KEY", "numeric", "0.00"},
    {"SCAN_KEY", "numeric", "0.35"},
    {"SCAN_KEY", "numeric", "0.4"},
    {"SCAN_KEY", "numeric", "1"},
    {"SCAN_KEY", "numeric", "1.0"},
    {"SCAN_KEY", "numeric", "10"},
    {"SCAN_KEY", "numeric", "123456789012345678901234567890.000000000000000000001"},
    {"SCAN_KEY", "numeric", "Infinity"},
    {"SCAN_KEY", "numeric", "NaN"},
    {"SCAN_KEY", "numeric", N},
    {"SCAN_KEY", "text", ""},
    {"SCAN_KEY", "text", "a"},
    {"SCAN_KEY", "text", "ab"},
    {"SCAN_KEY", "text", "é€𝄞"},
    {"SCAN_KEY", "text", N},
    {"SCAN_KEY", "varchar", "Straße"},
    {"SCAN_KEY", "varchar", N},
    {"SCAN_KEY", "bpchar", "a   "},
    {"SCAN_KEY", "bpchar", "a"},
    {"SCAN_KEY", "bpchar", "   "},
    {"SCAN_KEY", "bpchar", N},
    {"SCAN_KEY", "bytea", "\\x"},
    {"SCAN_KEY", "bytea", "\\x00"},
    {"SCAN_KEY", "bytea", "\\x0000ff01"},
    {"SCAN_KEY", "bytea", N},
    {"SCAN_KEY", "uuid", "00000000-0000-0000-0000-000000000000"},
    {"SCAN_KEY", "uuid", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
    {"SCAN_KEY", "uuid", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
    {"SCAN_KEY", "uuid", N},
    {"SCAN_KEY", "date", "-infinity"},
    {"SCAN_KEY", "date", "4714-11-24 BC"},
    {"SCAN_KEY", "date", "0001-01-01 BC"},
    {"SCAN_KEY", "date", "0001-01-01"},
    {"SCAN_KEY", "date", "2000-01-01"},
    {"SCAN_KEY", "date", "2024-02-29"},
    {"SCAN_KEY", "date", "5874897-12-31"},
    {"SCAN_KEY", "date", "infinity"},
    {"SCAN_KEY", "date", N},
    {"SCAN_KEY", "time", "00:00:00"},
    {"SCAN_KEY", "time", "12:34:56.789"},
    {"SCAN_KEY", "time", "23:59:59.999999"},
    {"SCAN_KEY", "time", "24:00:00"},
    {"SCAN_KEY", "time", N},
    {"SCAN_KEY", "timestamp", "-infinity"},
    {"SCAN_KEY", "timestamp", "4713-11-24 00:00:00 BC"},
    {"SCAN_KEY", "timestamp", "1970-01-01 00:00:00"},
    {"SCAN_KEY", "timestamp", "2024-01-02 03:04:05.123456"},
    {"SCAN_KEY", "timestamp", "294276-12-31 23:59:59.999999"},
    {"SCAN_KEY", "timestamp", "infinity"},
    {"SCAN_KEY", "timestamp", N},
    {"SCAN_KEY", "timestamptz", "-infinity"},
    {"SCAN_KEY", "timestamptz", "2024-01-02 03:04:05.123456+05:45"},
    {"SCAN_KEY", "timestamptz", "2024-01-01 21:19:05.123456+00"},
    {"SCAN_KEY", "timestamptz", "2024-01-02 03:04:05+13:45"},
    {"SCAN_KEY", "timestamptz", "2024-01-02 03:04:05-03:30"},
    {"SCAN_KEY", "timestamptz", "1883-11-18 12:00:00-04:56:02"},
    {"SCAN_KEY", "timestamptz", "0044-03-15 10:00:00+00 BC"},
    {"SCAN_KEY", "timestamptz", "infinity"},
    {"SCAN_KEY", "timestamptz", N},
    {"SCAN_KEY", "timetz", "00:00:00+00"},
    {"SCAN_KEY", "timetz", "12:00:00+05:45"},
    {"SCAN_KEY", "timetz", "06:15:00+00"},
    {"SCAN_KEY", "timetz", "23:59:59.999999-15:59"},
    {"SCAN_KEY", "timetz", N},
    {"SCAN_KEY", "interval", "-infinity"},
    {"SCAN_KEY", "interval", "-178000000 years"},
    {"SCAN_KEY", "interval", "-1 days +02:03:04.5"},
    {"SCAN_KEY", "interval", "00:00:00"},
    {"SCAN_KEY", "interval", "1 mon"},
    {"SCAN_KEY", "interval", "30 days"},
    {"SCAN_KEY", "interval", "1 year 2 mons 3 days 04:05:06.789"},
    {"SCAN_KEY", "interval", "178000000 years"},
    {"SCAN_KEY", "interval", "infinity"},
    {"SCAN_KEY", "interval", N},
    {"SCAN_KEY", "inet", "0.0.0.0/0"},
    {"SCAN_KEY", "inet", "192.168.1.5/24"},
    {"SCAN_KEY", "inet", "192.168.1.5"},
    {"SCAN_KEY", "inet", "2001:db8::1/64"},
    {"SCAN_KEY", "inet", "::ffff:1.2.3.4"},
    {"SCAN_KEY", "inet", N},
    {"SCAN_KEY", "cidr", "192.168.1.0/24"},
    {"SCAN_KEY", "cidr", "2001:db8::/32"},
    {"SCAN_KEY", "cidr", N},
    {"SCAN_KEY", "macaddr", "00:00:00:00:00:00"},
    {"SCAN_KEY", "macaddr", "ff:ff:ff:ff:ff:ff"},
    {"SCAN_KEY", "macaddr", N},
    {"SCAN_KEY", "macaddr8", "08:00:2b:01:02:03:04:05"},
    {"SCAN_KEY", "macaddr8", N},
    {"SCAN_KEY", "bit", "10100101"},
    {"SCAN_KEY", "bit", "0"},
    {"SCAN_KEY", "bit", N},
    {"SCAN_KEY", "varbit", ""},
    {"SCAN_KEY", "varbit", "1"},
    {"SCAN_KEY", "varbit", "000000000"},
    {"SCAN_KEY", "varbit", N},
    {"SCAN_KEY", "enum", "sad"},
    {"SCAN_KEY", "enum", "very happy"},
    {"SCAN_KEY", "enum", N},
    {"SCAN_KEY", "int4[]", "{}"},
    {"SCAN_KEY", "int4[]", "{1,2,3}"},
    {"SCAN_KEY", "int4[]", "{{1,NULL},{3,4}}"},
    {"SCAN_KEY", "int4[]", "[0:1]={7,8}"},
    {"SCAN_KEY", "text[]", "{\"a,b\",\"\",\"NULL\",NULL,\"q\\\"t\"}"},
    {"SCAN_KEY", "int4[]", N},
    {"SCAN_KEY", "int4range", "empty"},
    {"SCAN_KEY", "int4range", "[1,10)"},
    {"SCAN_KEY", "int4range", "(,5)"},
    {"SCAN_KEY", "int8range", "[-9223372036854775808,)"},
    {"SCAN_KEY", "numrange", "(1.5,2.50]"},
    {"SCAN_KEY", "daterange", "[2024-01-01,infinity)"},
    {"SCAN_KEY", "tsrange", "[\"2024-01-01 00:00:00\",\"2024-01-02 00:00:00\")"},
    {"SCAN_KEY", "tstzrange", "[\"2024-01-01 00:00:00+00\",)"},
    {"SCAN_KEY", "int4range", N},
    {"SCAN_KEY", "int4multirange", "{}"},
    {"SCAN_KEY", "int4multirange", "{[1,3),[5,7)}"},
    {"SCAN_KEY", "int4multirange", N},
    {"SCAN_KEY", "jsonb", "null"},
    {"SCAN_KEY", "jsonb", "{}"},
    {"SCAN_KEY", "jsonb", "[]"},
    {"SCAN_KEY", "jsonb", "{\"a\": 1.0, \"b\": [true, false, \"x\"], \"aa\": {\"z\": null}}"},
    {"SCAN_KEY", "jsonb", "\"\\u00e9\\ud834\\udd1e\""},
    {"SCAN_KEY", "jsonb", "-1.5e3"},
    {"SCAN_KEY", "jsonb", N},
    {"SCAN_KEY", "record(int4,text,numeric[])", "(1,\"a b\",\"{1.5,NULL}\")"},
    {"SCAN_KEY", "record(int4,text)", "(,)"},
    {"SCAN_KEY", "record(int4,text)", "(7,\"\")"},
    {"SCAN_KEY", "record(int4,text)", N},
    {
      "KEYLESS_ROW",
      "int8",
      "1",
      "text",
      "hello",
      "numeric",
      N,
      "timestamptz",
      "2024-01-02 03:04:05+00"
    },
    {"GROUP_KEY", "text", N, "int4", "7"},
    {
      "JOIN_KEY",
      "identity",
      "\\x0201000000010301800000ffff",
      "identity",
      "\\x02010000000109016100 00ff".replace(" ", "")
    },
    {"SET_KEY", "bool", "t", "uuid", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
    {"WINDOW_KEY", "date", "2024-01-01", "int2", "3"},
    {"SYNTHETIC", "text", "scalar_aggregate_singleton"},
  };

  private GoldenVectors() {}

  static List<Vector> load() throws IOException {
    try (InputStream in = GoldenVectors.class.getResourceAsStream(RESOURCE)) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      List<Vector> out = new ArrayList<>();
      for (String line : text.split("\n")) {
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        String[] cols = line.split("\t", -1);
        List<String> types = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int i = 2; i < cols.length; i += 2) {
          types.add(cols[i]);
          values.add(unescape(cols[i + 1]));
        }
        out.add(new Vector(RowIdentityDomain.valueOf(cols[0]), cols[1], types, values));
      }
      return out;
    }
  }

  static String escape(String v) {
    return v == null ? "\\N" : v.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
  }

  static String unescape(String v) {
    if (v.equals("\\N")) {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '\\' && i + 1 < v.length()) {
        char n = v.charAt(++i);
        sb.append(n == 't' ? '\t' : n == 'n' ? '\n' : n);
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  /** Regenerate: {@code java ... GoldenVectors src/test/resources/golden-vectors-v2.tsv}. */
  public static void main(String[] args) throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append(
        "# Row identity V2 golden vectors. domain<TAB>identity hex<TAB>type<TAB>value[<TAB>type<TAB>value...]\n");
    sb.append(
        "# \\N = SQL NULL; \\\\, \\t, \\n escape. Frozen: lines may be added, never changed.\n");
    for (String[] c : CASES) {
      List<String> types = new ArrayList<>();
      List<String> values = new ArrayList<>();
      for (int i = 1; i < c.length; i += 2) {
        types.add(c[i]);
        values.add(c[i + 1]);
      }
      RowIdentityDomain d = RowIdentityDomain.valueOf(c[0]);
      sb.append(d).append('\t').append(Hex.of(RowIdentityText.encode(d, types, values)));
      for (int i = 0; i < types.size(); i++) {
        sb.append('\t').append(types.get(i)).append('\t').append(escape(values.get(i)));
      }
      sb.append('\n');
    }
    Files.writeString(Path.of(args[0]), sb.toString(), StandardCharsets.UTF_8);
    System.out.println("wrote " + CASES.length + " vectors; " + Arrays.toString(args));
  }
}
