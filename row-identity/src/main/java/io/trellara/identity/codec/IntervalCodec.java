package io.trellara.identity.codec;

import io.trellara.identity.TypeTag;
import java.math.BigInteger;

/**
 * interval: PostgreSQL's 128-bit interval_cmp_value (time + (months * 30 + days) * USECS_PER_DAY)
 * with the signed transform at 128 bits, so '1 mon' and '30 days' encode identically. Text input is
 * IntervalStyle=postgres output ("1 year 2 mons -3 days +04:05:06.5").
 */
public final class IntervalCodec implements FieldCodec {
  static final IntervalCodec INSTANCE = new IntervalCodec();

  @Override
  public TypeTag tag() {
    return TypeTag.INTERVAL;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    if (Ascii.equalsIgnoreCase(v, off, end, "infinity")) {
      write(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE, out);
      return;
    }
    if (Ascii.equalsIgnoreCase(v, off, end, "-infinity")) {
      write(Integer.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE, out);
      return;
    }
    long months = 0;
    long days = 0;
    long micros = 0;
    int i = off;
    if (i >= end) {
      throw Ascii.invalid("interval", v, off, end);
    }
    try {
      while (i < end) {
        int tokenEnd = nextSpace(v, i, end);
        if (Ascii.indexOf(v, i, tokenEnd, (byte) ':') >= 0) {
          micros = Math.addExact(micros, parseClock(v, i, tokenEnd));
          i = tokenEnd + 1;
          continue;
        }
        long n = Ascii.parseLong(v, i, tokenEnd, Long.MIN_VALUE, Long.MAX_VALUE, "interval");
        int unitStart = tokenEnd + 1;
        int unitEnd = nextSpace(v, unitStart, end);
        if (unitStart >= end) {
          throw Ascii.invalid("interval", v, off, end);
        }
        switch (unit(v, unitStart, unitEnd)) {
          case 'y' -> months = Math.addExact(months, Math.multiplyExact(n, 12));
          case 'm' -> months = Math.addExact(months, n);
          case 'w' -> days = Math.addExact(days, Math.multiplyExact(n, 7));
          case 'd' -> days = Math.addExact(days, n);
          case 'h' -> micros = Math.addExact(micros, Math.multiplyExact(n, 3_600_000_000L));
          case 'i' -> micros = Math.addExact(micros, Math.multiplyExact(n, 60_000_000L));
          case 's' -> micros = Math.addExact(micros, Math.multiplyExact(n, 1_000_000L));
          default -> throw Ascii.invalid("interval", v, off, end);
        }
        i = unitEnd + 1;
      }
    } catch (ArithmeticException e) {
      throw Ascii.invalid("interval (out of range)", v, off, end);
    }
    if (months != (int) months || days != (int) days) {
      throw Ascii.invalid("interval (out of range)", v, off, end);
    }
    write((int) months, (int) days, micros, out);
  }

  private static int nextSpace(byte[] v, int from, int end) {
    int s = Ascii.indexOf(v, from, end, (byte) ' ');
    return s < 0 ? end : s;
  }

  private static final String[][] UNITS = {
    {"y", "year", "years"}, {"m", "mon", "mons", "month", "months"}, {"w", "week", "weeks"},
    {"d", "day", "days"}, {"h", "hour", "hours"}, {"i", "min", "mins", "minute", "minutes"},
    {"s", "sec", "secs", "second", "seconds"}
  };

  private static char unit(byte[] v, int off, int end) {
    for (String[] group : UNITS) {
      for (int k = 1; k < group.length; k++) {
        if (Ascii.equalsIgnoreCase(v, off, end, group[k])) {
          return group[0].charAt(0);
        }
      }
    }
    return '?';
  }

  /** [+-]H+:MM:SS[.ffffff] as signed microseconds (hours may exceed 24). */
  private static long parseClock(byte[] v, int off, int end) {
    int i = off;
    boolean negative = false;
    if (v[i] == '-' || v[i] == '+') {
      negative = v[i] == '-';
      i++;
    }
    int c1 = Ascii.indexOf(v, i, end, (byte) ':');
    if (c1 <= i || end - c1 < 6 || v[c1 + 3] != ':') {
      throw Ascii.invalid("interval time", v, off, end);
    }
    long h = Ascii.parseLong(v, i, c1, 0, Long.MAX_VALUE / 3_600_000_000L, "interval hours");
    int m = Ascii.parseDigits(v, c1 + 1, c1 + 3, "interval minutes");
    int s = Ascii.parseDigits(v, c1 + 4, c1 + 6, "interval seconds");
    long f = DateTimeCodec.fraction(v, c1 + 6, end, "interval");
    if (m > 59 || s > 59) {
      throw Ascii.invalid("interval time", v, off, end);
    }
    long total =
        Math.addExact(Math.multiplyExact(h, 3_600_000_000L), (m * 60L + s) * 1_000_000L + f);
    return negative ? -total : total;
  }

  /** interval_cmp_value as a signed 128-bit big-endian integer with the sign bit flipped. */
  public static void write(int months, int days, long time, IdentityBuffer out) {
    long dayCount = months * 30L + days;
    long lo = dayCount * DateTimeCodec.USECS_PER_DAY;
    long hi = Math.multiplyHigh(dayCount, DateTimeCodec.USECS_PER_DAY);
    long sum = lo + time;
    long carry = Long.compareUnsigned(sum, lo) < 0 ? 1 : 0;
    hi = hi + (time >> 63) + carry;
    out.putU64(hi ^ Long.MIN_VALUE);
    out.putU64(sum);
  }

  @Override
  public boolean supportsBinary() {
    return true;
  }

  /** Binary send format: time i64, days i32, months i32, big-endian. */
  @Override
  public void encodeBinary(byte[] v, int off, int end, IdentityBuffer out) {
    if (end - off != 16) {
      throw Ascii.invalid("interval binary", v, off, end);
    }
    long time = 0;
    for (int i = 0; i < 8; i++) {
      time = (time << 8) | (v[off + i] & 0xFF);
    }
    int days = readInt(v, off + 8);
    int months = readInt(v, off + 12);
    write(months, days, time, out);
  }

  private static int readInt(byte[] v, int p) {
    return (v[p] & 0xFF) << 24
        | (v[p + 1] & 0xFF) << 16
        | (v[p + 2] & 0xFF) << 8
        | (v[p + 3] & 0xFF);
  }

  private static final BigInteger DAY_MICROS = BigInteger.valueOf(DateTimeCodec.USECS_PER_DAY);
  private static final BigInteger INTERVAL_INFINITY =
      BigInteger.valueOf(Integer.MAX_VALUE * 31L)
          .multiply(DAY_MICROS)
          .add(BigInteger.valueOf(Long.MAX_VALUE));
  private static final BigInteger INTERVAL_NEG_INFINITY =
      BigInteger.valueOf(Integer.MIN_VALUE * 31L)
          .multiply(DAY_MICROS)
          .add(BigInteger.valueOf(Long.MIN_VALUE));

  /**
   * Decoding: the comparison value as "[-]M mons [-]D days [-]HH:MM:SS.ffffff": months take whole
   * 30-day units, so the rendering parses back to the same value (the original months/days split is
   * not recoverable).
   */
  static String render(IdentityReader in) {
    long hi = in.i64();
    long lo = in.u64();
    BigInteger span =
        BigInteger.valueOf(hi).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(lo)));
    if (span.equals(INTERVAL_INFINITY)) {
      return "infinity";
    }
    if (span.equals(INTERVAL_NEG_INFINITY)) {
      return "-infinity";
    }
    BigInteger[] dr = span.abs().divideAndRemainder(DAY_MICROS);
    long totalDays = dr[0].longValueExact();
    long months = Math.min(totalDays / 30, Integer.MAX_VALUE);
    long days = totalDays - months * 30;
    long micros = dr[1].longValueExact();
    if (days > Integer.MAX_VALUE) {
      micros =
          Math.addExact(
              Math.multiplyExact(days - Integer.MAX_VALUE, DateTimeCodec.USECS_PER_DAY), micros);
      days = Integer.MAX_VALUE;
    }
    String sign = span.signum() < 0 ? "-" : "";
    StringBuilder sb = new StringBuilder();
    if (months != 0) {
      sb.append(sign).append(months).append(" mons ");
    }
    if (days != 0) {
      sb.append(sign).append(days).append(" days ");
    }
    sb.append(sign);
    DateTimeCodec.appendTime(sb, micros);
    return sb.toString();
  }
}
