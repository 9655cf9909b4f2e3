package io.trellara.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Byte order of encodings agrees with each type's comparator, modelled here on PostgreSQL's
 * semantics (or on the documented V2 comparator where a layout cannot follow PostgreSQL's order).
 */
class OrderingPropertiesTest {
  private static final int TRIES = 300;

  private static byte[] enc(String type, String value) {
    return RowIdentityText.encode(RowIdentityDomain.SCAN_KEY, List.of(type), Arrays.asList(value));
  }

  private static void assertAgrees(String type, String a, String b, int expected) {
    int actual = Arrays.compareUnsigned(enc(type, a), enc(type, b));
    assertThat(Integer.signum(actual))
        .as("%s: %s vs %s", type, a, b)
        .isEqualTo(Integer.signum(expected));
  }

  @Property(tries = TRIES)
  void int8OrderAgrees(@ForAll long a, @ForAll long b) {
    assertAgrees("int8", Long.toString(a), Long.toString(b), Long.compare(a, b));
  }

  @Property(tries = TRIES)
  void int4OrderAgrees(@ForAll int a, @ForAll int b) {
    assertAgrees("int4", Integer.toString(a), Integer.toString(b), Integer.compare(a, b));
  }

  @Property(tries = TRIES)
  void int2OrderAgrees(@ForAll short a, @ForAll short b) {
    assertAgrees("int2", Short.toString(a), Short.toString(b), Short.compare(a, b));
  }

  @Property(tries = TRIES)
  void oidOrderIsUnsigned(@ForAll int a, @ForAll int b) {
    assertAgrees(
        "oid",
        Integer.toUnsignedString(a),
        Integer.toUnsignedString(b),
        Integer.compareUnsigned(a, b));
  }

  @Provide
  Arbitrary<Double> doubles() {
    return Arbitraries.oneOf(
        Arbitraries.doubles(),
        Arbitraries.of(
            0.0,
            -0.0,
            Double.NaN,
            Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY,
            Double.MIN_VALUE,
            -Double.MIN_VALUE,
            Double.MAX_VALUE,
            -Double.MAX_VALUE,
            1.0,
            -1.0),
        Arbitraries.longs().map(Double::longBitsToDouble));
  }

  /** PostgreSQL float8_cmp: NaN equals NaN and sorts above everything; -0 equals 0. */
  static int pgFloatCompare(double a, double b) {
    if (Double.isNaN(a)) {
      return Double.isNaN(b) ? 0 : 1;
    }
    if (Double.isNaN(b)) {
      return -1;
    }
    return a < b ? -1 : a > b ? 1 : 0;
  }

  @Property(tries = TRIES)
  void float8OrderAgrees(@ForAll("doubles") double a, @ForAll("doubles") double b) {
    assertAgrees("float8", Double.toString(a), Double.toString(b), pgFloatCompare(a, b));
  }

  @Property(tries = TRIES)
  void float4OrderAgrees(@ForAll("doubles") double x, @ForAll("doubles") double y) {
    float a = (float) x;
    float b = (float) y;
    String ta = Float.isInfinite(a) ? (a > 0 ? "Infinity" : "-Infinity") : Float.toString(a);
    String tb = Float.isInfinite(b) ? (b > 0 ? "Infinity" : "-Infinity") : Float.toString(b);
    assertAgrees("float4", ta, tb, pgFloatCompare(a, b));
  }

  @Provide
  Arbitrary<String> numerics() {
    Arbitrary<String> finite =
        Combinators.combine(
                Arbitraries.bigIntegers()
                    .between(BigInteger.TEN.pow(30).negate(), BigInteger.TEN.pow(30)),
                Arbitraries.integers().between(-40, 40))
            .as((unscaled, scale) -> new BigDecimal(unscaled, scale).toPlainString());
    Arbitrary<String> small =
        Combinators.combine(
                Arbitraries.integers().between(-1000, 1000), Arbitraries.integers().between(0, 4))
            .as((u, s) -> new BigDecimal(BigInteger.valueOf(u), s).toPlainString());
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, finite),
        net.jqwik.api.Tuple.of(6, small),
        net.jqwik.api.Tuple.of(
            1,
            Arbitraries.of("NaN", "Infinity", "-Infinity", "0", "0.35", "0.4", "-0.35", "-0.4")));
  }

  /**
   * PostgreSQL numeric order: -Infinity, finite values, +Infinity, NaN; scale is not part of
   * equality.
   */
  static int pgNumericCompare(String a, String b) {
    int ca = numericClass(a);
    int cb = numericClass(b);
    if (ca != cb || ca != 1) {
      return Integer.compare(ca, cb);
    }
    return new BigDecimal(a).compareTo(new BigDecimal(b));
  }

  private static int numericClass(String s) {
    return switch (s) {
      case "-Infinity" -> 0;
      case "Infinity" -> 2;
      case "NaN" -> 3;
      default -> 1;
    };
  }

  @Property(tries = 500)
  void numericOrderAgrees(@ForAll("numerics") String a, @ForAll("numerics") String b) {
    assertAgrees("numeric", a, b, pgNumericCompare(a, b));
  }

  @Provide
  Arbitrary<String> texts() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(12),
        Arbitraries.strings().withChars("ab\u00e9 ").ofMaxLength(5),
        Arbitraries.strings()
            .all()
            .ofMaxLength(6)
            .filter(s -> s.indexOf('\0') < 0 && isWellFormed(s)));
  }

  private static boolean isWellFormed(String s) {
    return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(s);
  }

  private static int bytesCompare(String a, String b) {
    return Arrays.compareUnsigned(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  @Property(tries = TRIES)
  void textOrderIsCCollationOrder(@ForAll("texts") String a, @ForAll("texts") String b) {
    assertAgrees("text", a, b, bytesCompare(a, b));
  }

  @Property(tries = TRIES)
  void bpcharIgnoresTrailingSpaces(@ForAll("texts") String a, @ForAll("texts") String b) {
    assertAgrees("bpchar", a, b, bytesCompare(a.replaceAll(" +$", ""), b.replaceAll(" +$", "")));
  }

  @Property(tries = TRIES)
  void byteaOrderIsMemcmpThenLength(@ForAll byte[] a, @ForAll byte[] b) {
    assertAgrees("bytea", "\\x" + Hex.of(a), "\\x" + Hex.of(b), Arrays.compareUnsigned(a, b));
  }

  @Property(tries = TRIES)
  void uuidOrderIsUnsignedBytes(@ForAll("uuids") UUID a, @ForAll("uuids") UUID b) {
    int cmp = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
    if (cmp == 0) {
      cmp = Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }
    assertAgrees("uuid", a.toString(), b.toString(), cmp);
  }

  @Provide
  Arbitrary<UUID> uuids() {
    return Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(UUID::new);
  }

  @Provide
  Arbitrary<Long> pgDays() {
    // 4713 BC to 9999 AD (java.time formats the oracle text), plus edges
    return Arbitraries.oneOf(
        Arbitraries.longs().between(-2_451_545, 2_930_000),
        Arbitraries.of(-1L, 0L, 1L, -730_120L, -730_119L));
  }

  @Property(tries = TRIES)
  void dateOrderAgrees(@ForAll("pgDays") long a, @ForAll("pgDays") long b) {
    assertAgrees("date", PgText.date(a), PgText.date(b), Long.compare(a, b));
  }

  @Provide
  Arbitrary<Long> pgMicros() {
    long min = -2_451_545L * PgText.USECS_PER_DAY;
    long max = 2_930_000L * PgText.USECS_PER_DAY;
    return Arbitraries.oneOf(
        Arbitraries.longs().between(min, max),
        Arbitraries.longs().between(-5_000_000, 5_000_000),
        Arbitraries.of(0L, -1L, 1L));
  }

  @Property(tries = TRIES)
  void timestampOrderAgrees(@ForAll("pgMicros") long a, @ForAll("pgMicros") long b) {
    assertAgrees("timestamp", PgText.timestamp(a), PgText.timestamp(b), Long.compare(a, b));
  }

  @Provide
  Arbitrary<Integer> offsets() {
    return Arbitraries.of(
        0, 20_700, 49_500, -12_600, -17_762, 3_600, -36_000, 50_400, -43_200, 19_800);
  }

  @Property(tries = TRIES)
  void timestamptzOrdersByInstantWhateverTheOffset(
      @ForAll("pgMicros") long a,
      @ForAll("offsets") int oa,
      @ForAll("pgMicros") long b,
      @ForAll("offsets") int ob) {
    assertAgrees(
        "timestamptz", PgText.timestamptz(a, oa), PgText.timestamptz(b, ob), Long.compare(a, b));
  }

  @Property(tries = TRIES)
  void sameInstantInAnyOffsetEncodesIdentically(
      @ForAll("pgMicros") long a, @ForAll("offsets") int oa, @ForAll("offsets") int ob) {
    assertThat(enc("timestamptz", PgText.timestamptz(a, oa)))
        .isEqualTo(enc("timestamptz", PgText.timestamptz(a, ob)));
  }

  @Property(tries = TRIES)
  void timeOrderAgrees(@ForAll("dayMicros") long a, @ForAll("dayMicros") long b) {
    assertAgrees("time", PgText.time(a), PgText.time(b), Long.compare(a, b));
  }

  @Provide
  Arbitrary<Long> dayMicros() {
    return Arbitraries.longs().between(0, PgText.USECS_PER_DAY);
  }

  /** PostgreSQL timetz_cmp: GMT-equivalent time first, then zone (seconds west). */
  @Property(tries = TRIES)
  void timetzOrderAgrees(
      @ForAll("dayMicros") long a,
      @ForAll("offsets") int oa,
      @ForAll("dayMicros") long b,
      @ForAll("offsets") int ob) {
    long ga = a - oa * 1_000_000L;
    long gb = b - ob * 1_000_000L;
    int cmp = ga != gb ? Long.compare(ga, gb) : Integer.compare(-oa, -ob);
    assertAgrees(
        "timetz", PgText.time(a) + PgText.offset(oa), PgText.time(b) + PgText.offset(ob), cmp);
  }

  @Property(tries = TRIES)
  void intervalOrderIsIntervalCmpValue(
      @ForAll("months") int ma,
      @ForAll("months") int da,
      @ForAll("micros") long ta,
      @ForAll("months") int mb,
      @ForAll("months") int db,
      @ForAll("micros") long tb) {
    assertAgrees(
        "interval",
        PgText.interval(ma, da, ta),
        PgText.interval(mb, db, tb),
        PgText.intervalCmpValue(ma, da, ta).compareTo(PgText.intervalCmpValue(mb, db, tb)));
  }

  @Provide
  Arbitrary<Integer> months() {
    return Arbitraries.oneOf(Arbitraries.integers().between(-3, 3), Arbitraries.integers());
  }

  @Provide
  Arbitrary<Long> micros() {
    return Arbitraries.oneOf(
        Arbitraries.longs().between(-200_000_000_000L, 200_000_000_000L),
        Arbitraries.longs().between(-Long.MAX_VALUE, Long.MAX_VALUE));
  }

  /** Documented comparator for inet: family, then prefix length, then address bytes. */
  @Property(tries = TRIES)
  void inetOrderIsFamilyPrefixAddress(
      @ForAll("ipv4") int a,
      @ForAll("bits") int ba,
      @ForAll("ipv4") int b,
      @ForAll("bits") int bb) {
    int cmp = ba != bb ? Integer.compare(ba, bb) : Integer.compareUnsigned(a, b);
    assertAgrees("inet", ipv4(a) + "/" + ba, ipv4(b) + "/" + bb, cmp);
  }

  @Provide
  Arbitrary<Integer> ipv4() {
    return Arbitraries.integers();
  }

  @Provide
  Arbitrary<Integer> bits() {
    return Arbitraries.integers().between(0, 32);
  }

  private static String ipv4(int a) {
    return (a >>> 24) + "." + (a >>> 16 & 255) + "." + (a >>> 8 & 255) + "." + (a & 255);
  }

  /** Documented comparator for varbit: bit length first, then the bits. */
  @Property(tries = TRIES)
  void varbitOrderIsLengthThenBits(@ForAll("bitStrings") String a, @ForAll("bitStrings") String b) {
    int cmp = a.length() != b.length() ? Integer.compare(a.length(), b.length()) : a.compareTo(b);
    assertAgrees("varbit", a, b, cmp);
  }

  @Provide
  Arbitrary<String> bitStrings() {
    return Arbitraries.strings().withChars('0', '1').ofMaxLength(20);
  }

  @Property(tries = TRIES)
  void compositeKeysOrderFieldByField(
      @ForAll int a1, @ForAll("texts") String a2, @ForAll int b1, @ForAll("texts") String b2) {
    int cmp = a1 != b1 ? Integer.compare(a1, b1) : bytesCompare(a2, b2);
    byte[] ea =
        RowIdentityText.encode(
            RowIdentityDomain.SCAN_KEY, List.of("int4", "text"), List.of(Integer.toString(a1), a2));
    byte[] eb =
        RowIdentityText.encode(
            RowIdentityDomain.SCAN_KEY, List.of("int4", "text"), List.of(Integer.toString(b1), b2));
    assertThat(Integer.signum(Arrays.compareUnsigned(ea, eb))).isEqualTo(Integer.signum(cmp));
  }

  @Property(tries = 100)
  void nullSortsBeforeEveryValue(@ForAll long a) {
    assertThat(Arrays.compareUnsigned(enc("int8", null), enc("int8", Long.toString(a))))
        .isNegative();
  }
}
