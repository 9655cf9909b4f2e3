package io.trellara.sink.postgres.schema;

import io.trellara.sink.postgres.names.QualifiedName;
import java.util.Set;

/**
 * Which column retypes keep every value a column can hold (lossless, widening): the ones schema
 * evolution applies by default. Anything else may truncate, round or reinterpret the rows already
 * on the target and waits for the operator ({@code schema.evolution.lossy.tables}). The table, also
 * in docs/security.md:
 *
 * <ul>
 *   <li>any type to itself with the same modifier;
 *   <li>{@code int2} to {@code int4}, {@code int8}, {@code float4}, {@code float8}; {@code int4} to
 *       {@code int8}, {@code float8}; {@code int8} to none of the floats (53 bits of mantissa);
 *       each integer to {@code numeric} with room for its digits (5, 10, 19 before the point), or
 *       unconstrained;
 *   <li>{@code float4} to {@code float8};
 *   <li>{@code numeric(p,s)} to {@code numeric(p',s')} with {@code s' >= s} and {@code p'-s' >=
 *       p-s}, or to unconstrained {@code numeric};
 *   <li>{@code varchar(n)} to {@code varchar(m >= n)}, unconstrained {@code varchar} or {@code
 *       text}; {@code text} to unconstrained {@code varchar};
 *   <li>{@code bit(n)} and {@code varbit(n)} to {@code varbit(m >= n)} or unconstrained {@code
 *       varbit};
 *   <li>{@code timestamp}, {@code timestamptz}, {@code time}, {@code timetz} to the same type with
 *       at least the fractional-second precision.
 * </ul>
 *
 * Not lossless, so refused by default: {@code char(n)} to anything else ({@code bpchar} pads, and
 * casting it to text strips the padding); {@code timestamp} to {@code timestamptz} and back (the
 * result depends on the session's TimeZone); any narrowing; any change between unrelated types.
 */
final class Retypes {
  private static final String CATALOG = "pg_catalog";
  private static final Set<String> TIMES = Set.of("timestamp", "timestamptz", "time", "timetz");

  private Retypes() {}

  /** True when a column of type {@code from} can become {@code to} without losing a value. */
  static boolean lossless(QualifiedName from, int fromMod, QualifiedName to, int toMod) {
    if (from.equals(to) && fromMod == toMod) {
      return true;
    }
    if (!from.schema().equals(CATALOG) || !to.schema().equals(CATALOG)) {
      return false;
    }
    String f = from.table();
    String t = to.table();
    return switch (f) {
      case "int2" ->
          Set.of("int4", "int8", "float4", "float8").contains(t) || numericFits(t, toMod, 5);
      case "int4" -> Set.of("int8", "float8").contains(t) || numericFits(t, toMod, 10);
      case "int8" -> numericFits(t, toMod, 19);
      case "float4" -> t.equals("float8");
      case "numeric" ->
          t.equals("numeric")
              && (toMod < 0
                  || (fromMod >= 0
                      && scale(toMod) >= scale(fromMod)
                      && precision(toMod) - scale(toMod) >= precision(fromMod) - scale(fromMod)));
      case "varchar" -> t.equals("text") || (t.equals("varchar") && atLeast(fromMod, toMod));
      case "text" -> t.equals("varchar") && toMod < 0;
      case "bit", "varbit" -> t.equals("varbit") && atLeast(fromMod, toMod);
      default -> TIMES.contains(f) && t.equals(f) && fraction(toMod) >= fraction(fromMod);
    };
  }

  /** {@code numeric} (unconstrained, or with at least {@code digits} before the point). */
  private static boolean numericFits(String t, int toMod, int digits) {
    return t.equals("numeric") && (toMod < 0 || precision(toMod) - scale(toMod) >= digits);
  }

  /** A length modifier that allows at least what {@code fromMod} did (-1: no limit). */
  private static boolean atLeast(int fromMod, int toMod) {
    return toMod < 0 || (fromMod >= 0 && toMod >= fromMod);
  }

  // numeric's modifier: ((precision << 16) | scale) + VARHDRSZ, the scale 11 bits, signed
  private static int precision(int mod) {
    return ((mod - 4) >> 16) & 0xffff;
  }

  private static int scale(int mod) {
    return (((mod - 4) & 0x7ff) ^ 0x400) - 0x400;
  }

  /** Fractional-second digits of a time type's modifier (-1: the default, 6). */
  private static int fraction(int mod) {
    return mod < 0 ? 6 : mod;
  }
}
