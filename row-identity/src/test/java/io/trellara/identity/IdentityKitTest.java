package io.trellara.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The conformance kit's row identity V2 vectors ({@code conformance/identity/}): an input row
 * (domain, types, values) and the exact identity it encodes to, or a refusal. The kit's runner
 * scores any encoder against them ({@code trellara conformance run --suite identity}). Each
 * deliberate misreading of docs/row-identity-v2.md below changes the bytes of at least one vector,
 * so an encoder reading the layout or the ordering rules otherwise fails the kit. Regenerate with
 * {@code ./mvnw -pl row-identity test -Dtest=IdentityKitTest -Didentity.write=true}.
 */
class IdentityKitTest {
  static final Path KIT = Path.of(System.getProperty("identity.dir", "../conformance/identity"));

  /** One vector: name, domain, then alternating type and value (null: SQL NULL). */
  record Case(String name, String domain, String... typesAndValues) {
    List<String> types() {
      List<String> t = new ArrayList<>();
      for (int i = 0; i < typesAndValues.length; i += 2) {
        t.add(typesAndValues[i]);
      }
      return t;
    }

    List<String> values() {
      List<String> v = new ArrayList<>();
      for (int i = 1; i < typesAndValues.length; i += 2) {
        v.add(typesAndValues[i]);
      }
      return v;
    }

    String value() {
      return typesAndValues[1];
    }

    String type() {
      return typesAndValues[0];
    }

    /** The encoding, or null when the encoder refuses the input. */
    byte[] encode() {
      return encode(domain, types(), values());
    }

    static byte[] encode(String domain, List<String> types, List<String> values) {
      try {
        return RowIdentityText.encode(RowIdentityText.domain(domain), types, values);
      } catch (RowIdentityException e) {
        return null;
      }
    }

    /** This input with one value replaced: the misreading encodes another value. */
    byte[] encodeAs(String value) {
      return encode(domain, types(), List.of(value));
    }
  }

  private static final String S = "scan_key";

  static final List<Case> CASES =
      List.of(
          new Case("identity-int4-42", S, "int4", "42"),
          new Case("identity-int8-minus-one", S, "int8", "-1"),
          new Case("identity-int2-min", S, "int2", "-32768"),
          new Case("identity-int4-null", S, "int4", null),
          new Case("identity-oid-max", S, "oid", "4294967295"),
          new Case("identity-bool-true", S, "bool", "t"),
          new Case("identity-text-ab", S, "text", "ab"),
          new Case("identity-bytea-with-zero-byte", S, "bytea", "\\x00ff"),
          new Case("identity-bpchar-trailing-spaces", S, "bpchar", "ab  "),
          new Case("identity-float8-negative-zero", S, "float8", "-0"),
          new Case("identity-float4-negative", S, "float4", "-1.5"),
          new Case("identity-float8-nan", S, "float8", "NaN"),
          new Case("identity-numeric-0.35", S, "numeric", "0.35"),
          new Case("identity-numeric-0.4", S, "numeric", "0.4"),
          new Case("identity-numeric-1.0", S, "numeric", "1.0"),
          new Case("identity-numeric-minus-0.35", S, "numeric", "-0.35"),
          new Case("identity-uuid", S, "uuid", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
          new Case("identity-date-2000-01-02", S, "date", "2000-01-02"),
          new Case(
              "identity-timestamptz-with-offset",
              S,
              "timestamptz",
              "2024-01-02 03:04:05.123456+05:45"),
          new Case("identity-timetz-east-of-utc", S, "timetz", "12:00:00+02"),
          new Case("identity-interval-one-month", S, "interval", "1 mon"),
          new Case("identity-int4-array-lower-bound", S, "int4[]", "[0:1]={1,2}"),
          new Case("identity-jsonb-keys", S, "jsonb", "{\"bb\": 1, \"a\": 2}"),
          new Case("identity-composite-nulls", S, "record(int4,text)", "(,)"),
          new Case("identity-group-key-two-fields", "group_key", "text", null, "int4", "7"),
          new Case("identity-reject-json", S, "json", "{}"),
          new Case("identity-reject-bytea-escape-format", S, "bytea", "\\000"),
          new Case("identity-reject-float-hex", S, "float8", "0x1p3"));

  /** A deliberate misreading: the bytes it encodes a case to, or null where it changes nothing. */
  enum Misreading {
    INTEGER_SIGN_NOT_FLIPPED(
        (c, r) -> c.type().startsWith("int") && c.value() != null ? flip(r, 8) : null),
    OID_AS_SIGNED((c, r) -> c.type().equals("oid") ? flip(r, 8) : null),
    FIELD_COUNT_AS_U16(
        (c, r) ->
            r == null
                ? null
                : concat(Arrays.copyOfRange(r, 0, 2), Arrays.copyOfRange(r, 4, r.length))),
    NULL_AND_VALUE_STATES_SWAPPED(
        (c, r) -> {
          if (r == null || c.types().size() != 1) {
            return null;
          }
          byte[] m = r.clone();
          m[7] ^= 1;
          return m;
        }),
    ZERO_ESCAPED_AS_00_01(
        (c, r) ->
            c.type().equals("bytea") && r != null
                ? replace(r, new byte[] {0, (byte) 0xFF}, new byte[] {0, 1})
                : null),
    TERMINATOR_AS_LENGTH_PREFIX(
        (c, r) -> {
          if (!c.type().equals("text") || r == null || c.types().size() != 1) {
            return null;
          }
          byte[] v = c.value().getBytes(StandardCharsets.UTF_8);
          return concat(
              Arrays.copyOfRange(r, 0, 8),
              new byte[] {0, 0, 0, (byte) v.length},
              v,
              new byte[] {(byte) 0xFF});
        }),
    BPCHAR_KEEPS_TRAILING_SPACES(
        (c, r) ->
            c.type().equals("bpchar")
                ? retag(Case.encode(c.domain(), List.of("varchar"), c.values()), 0x0B)
                : null),
    FLOAT_NEGATIVE_ZERO_KEPT(
        (c, r) -> c.type().startsWith("float") && "-0".equals(c.value()) ? negativeZero(r) : null),
    FLOAT_NEGATIVE_SIGN_ONLY_FLIPPED(
        (c, r) -> c.type().equals("float4") && c.value().startsWith("-") ? signOnly(r) : null),
    NUMERIC_WITH_DIGIT_COUNT(
        (c, r) ->
            c.type().equals("numeric") && r != null
                ? insert(r, 12, new byte[] {0, 0, 0, 2})
                : null),
    NUMERIC_KEEPS_SCALE(
        (c, r) -> "1.0".equals(c.value()) ? insert(r, r.length - 3, new byte[] {'0'}) : null),
    TIMESTAMPTZ_OFFSET_IGNORED(
        (c, r) ->
            c.type().equals("timestamptz") ? c.encodeAs(c.value().substring(0, 26) + "+00") : null),
    DATE_EPOCH_1970(
        (c, r) ->
            c.type().equals("date")
                ? c.encodeAs(LocalDate.parse(c.value()).plusDays(10957).toString())
                : null),
    INTERVAL_MONTH_31_DAYS((c, r) -> "1 mon".equals(c.value()) ? c.encodeAs("31 days") : null),
    TIMETZ_ZONE_EAST_POSITIVE((c, r) -> c.type().equals("timetz") ? negateZone(r) : null),
    ARRAY_LOWER_BOUND_IGNORED(
        (c, r) ->
            c.type().endsWith("[]")
                ? c.encodeAs(c.value().substring(c.value().indexOf('=') + 1))
                : null),
    JSONB_KEYS_BY_BYTES_ONLY((c, r) -> c.type().equals("jsonb") ? c.encodeAs("{\"a\": 2}") : null),
    UUID_AS_TEXT(
        (c, r) ->
            c.type().equals("uuid")
                ? retag(Case.encode(c.domain(), List.of("text"), c.values()), 0x0D)
                : null),
    DOMAIN_ALWAYS_SCAN_KEY(
        (c, r) -> c.domain().equals(S) ? null : Case.encode(S, c.types(), c.values())),
    JSON_ACCEPTED_AS_JSONB(
        (c, r) ->
            c.type().equals("json") ? Case.encode(c.domain(), List.of("jsonb"), c.values()) : null);

    final BiFunction<Case, byte[], byte[]> misread;

    Misreading(BiFunction<Case, byte[], byte[]> misread) {
      this.misread = misread;
    }
  }

  @TestFactory
  Stream<DynamicTest> everyIdentityMisreadingChangesAVector() {
    return Stream.of(Misreading.values())
        .map(
            m ->
                DynamicTest.dynamicTest(
                    m.name(),
                    () -> {
                      List<String> caught = new ArrayList<>();
                      for (Case c : CASES) {
                        byte[] right = c.encode();
                        byte[] wrong = m.misread.apply(c, right);
                        if (wrong != null && !Arrays.equals(wrong, right)) {
                          caught.add(c.name());
                        }
                      }
                      assertThat(caught).as(m.name()).isNotEmpty();
                    }));
  }

  /** The kit's ordering vectors sort as PostgreSQL does: 0.35 < 0.4, -0.35 < 0, NULL first. */
  @Test
  void theOrderingVectorsSortAsDocumented() {
    assertThat(compare("identity-numeric-0.35", "identity-numeric-0.4")).isNegative();
    assertThat(compare("identity-numeric-minus-0.35", "identity-numeric-0.35")).isNegative();
    assertThat(compare("identity-int4-null", "identity-int4-42")).isNegative();
  }

  private static int compare(String a, String b) {
    return Arrays.compareUnsigned(byName(a).encode(), byName(b).encode());
  }

  private static Case byName(String name) {
    return CASES.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void committedIdentityVectorsAreTheEncoders() throws IOException {
    if (Boolean.getBoolean("identity.write")) {
      write();
    }
    List<String> names = CASES.stream().map(Case::name).sorted().toList();
    assertThat(Files.readAllLines(KIT.resolve("index.txt"))).isEqualTo(names);
    for (Case c : CASES) {
      assertThat(Files.readString(KIT.resolve(c.name()).resolve("vector.json")))
          .as(c.name())
          .isEqualTo(json(c));
      assertThat(Files.readString(KIT.resolve(c.name()).resolve("00-identity.tsv")))
          .isEqualTo(input(c));
    }
  }

  private static void write() throws IOException {
    if (Files.exists(KIT)) {
      try (Stream<Path> walk = Files.walk(KIT)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    for (Case c : CASES) {
      Path dir = Files.createDirectories(KIT.resolve(c.name()));
      Files.writeString(dir.resolve("vector.json"), json(c));
      Files.writeString(dir.resolve("00-identity.tsv"), input(c));
    }
    Files.write(KIT.resolve("index.txt"), CASES.stream().map(Case::name).sorted().toList());
  }

  /** The input row: domain, then type and value pairs, tab-separated (GoldenVectors' escapes). */
  static String input(Case c) {
    StringBuilder line = new StringBuilder(c.domain().toUpperCase(java.util.Locale.ROOT));
    for (int i = 0; i < c.types().size(); i++) {
      line.append('\t')
          .append(c.types().get(i))
          .append('\t')
          .append(GoldenVectors.escape(c.values().get(i)));
    }
    return line.append('\n').toString();
  }

  static String json(Case c) {
    byte[] bytes = c.encode();
    return "{\n  \"name\": \""
        + c.name()
        + "\",\n  \"expect\": \""
        + (bytes == null ? "reject" : "accept")
        + "\",\n  \"identity\": "
        + (bytes == null ? "null" : "\"" + RowIdentityText.toHex(bytes) + "\"")
        + ",\n  \"rules\": [],\n  \"first_rule\": null,\n  \"messages\": [\n"
        + "    {\"file\": \"00-identity.tsv\", \"kind\": \"identity\"}\n  ]\n}\n";
  }

  // ---- byte helpers for the misreadings

  private static byte[] flip(byte[] r, int at) {
    byte[] m = r.clone();
    m[at] ^= (byte) 0x80;
    return m;
  }

  private static byte[] retag(byte[] r, int tag) {
    if (r == null) {
      return null;
    }
    byte[] m = r.clone();
    m[6] = (byte) tag;
    return m;
  }

  private static byte[] negativeZero(byte[] r) {
    byte[] m = r.clone();
    for (int i = 8; i < m.length - 1; i++) {
      m[i] = (byte) (i == 8 ? 0x7F : 0xFF);
    }
    return m;
  }

  private static byte[] signOnly(byte[] r) {
    byte[] m = r.clone();
    for (int i = 8; i < m.length - 1; i++) {
      m[i] = (byte) ~m[i]; // back to the IEEE bits
    }
    m[8] ^= (byte) 0x80; // only the sign flipped
    return m;
  }

  private static byte[] negateZone(byte[] r) {
    byte[] m = r.clone();
    int at = m.length - 5;
    int zone = 0;
    for (int i = 0; i < 4; i++) {
      zone = zone << 8 | (m[at + i] & 0xFF);
    }
    int negated = -(zone ^ 0x80000000) ^ 0x80000000;
    for (int i = 0; i < 4; i++) {
      m[at + i] = (byte) (negated >>> (24 - 8 * i));
    }
    return m;
  }

  private static byte[] insert(byte[] r, int at, byte[] bytes) {
    return concat(Arrays.copyOfRange(r, 0, at), bytes, Arrays.copyOfRange(r, at, r.length));
  }

  private static byte[] replace(byte[] r, byte[] from, byte[] to) {
    String hex = RowIdentityText.toHex(r);
    return RowIdentityText.fromHex(
        hex.replace(RowIdentityText.toHex(from), RowIdentityText.toHex(to)));
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }
}
