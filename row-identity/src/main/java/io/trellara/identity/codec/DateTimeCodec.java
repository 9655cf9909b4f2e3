package io.trellara.identity.codec;

import io.trellara.identity.TypeTag;

/**
 * date, time, timestamp, timestamptz, timetz from ISO DateStyle text, computed with integer
 * calendar arithmetic (proleptic Gregorian, astronomical years for BC) so no JVM time zone or
 * locale is involved. Values are PostgreSQL's internal ones: days / microseconds since 2000-01-01,
 * timestamptz in UTC, infinities at the int32/int64 extremes.
 */
public final class DateTimeCodec implements FieldCodec {
  static final DateTimeCodec DATE = new DateTimeCodec(TypeTag.DATE);
  static final DateTimeCodec TIME = new DateTimeCodec(TypeTag.TIME);
  static final DateTimeCodec TIMESTAMP = new DateTimeCodec(TypeTag.TIMESTAMP);
  static final DateTimeCodec TIMESTAMPTZ = new DateTimeCodec(TypeTag.TIMESTAMPTZ);
  static final DateTimeCodec TIMETZ = new DateTimeCodec(TypeTag.TIMETZ);

  public static final long USECS_PER_DAY = 86_400_000_000L;

  /** Days from 1970-01-01 to PostgreSQL's epoch 2000-01-01. */
  public static final int PG_EPOCH_UNIX_DAYS = 10_957;

  private final TypeTag tag;

  private DateTimeCodec(TypeTag tag) {
    this.tag = tag;
  }

  @Override
  public TypeTag tag() {
    return tag;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    try {
      switch (tag) {
        case DATE -> out.putI32(parseDate(v, off, end));
        case TIME -> out.putU64(parseTime(v, off, end));
        case TIMESTAMP, TIMESTAMPTZ ->
            out.putI64(parseTimestamp(v, off, end, tag == TypeTag.TIMESTAMPTZ));
        default -> writeTimetz(v, off, end, out);
      }
    } catch (ArrayIndexOutOfBoundsException | ArithmeticException e) {
      throw Ascii.invalid(tag.sqlName(), v, off, end);
    }
  }

  /** Day count since 2000-01-01; infinity and -infinity at the int32 extremes. */
  public static int parseDate(byte[] v, int off, int end) {
    if (Ascii.equalsIgnoreCase(v, off, end, "infinity")) {
      return Integer.MAX_VALUE;
    }
    if (Ascii.equalsIgnoreCase(v, off, end, "-infinity")) {
      return Integer.MIN_VALUE;
    }
    boolean bc = endsWithBc(v, off, end);
    return (int) dateDays(v, off, bc ? end - 3 : end, bc);
  }

  private static boolean endsWithBc(byte[] v, int off, int end) {
    return end - off > 3 && v[end - 3] == ' ' && v[end - 2] == 'B' && v[end - 1] == 'C';
  }

  private static long dateDays(byte[] v, int off, int end, boolean bc) {
    int dash1 = Ascii.indexOf(v, off + 1, end, (byte) '-');
    if (dash1 < off + 4 || end - dash1 != 6 || v[dash1 + 3] != '-') {
      throw Ascii.invalid("date", v, off, end);
    }
    long year = Ascii.parseLong(v, off, dash1, 1, 5_874_897, "date year");
    int month = Ascii.parseDigits(v, dash1 + 1, dash1 + 3, "date month");
    int day = Ascii.parseDigits(v, dash1 + 4, end, "date day");
    if (bc) {
      year = 1 - year;
    }
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
      throw Ascii.invalid("date", v, off, end);
    }
    return daysFromCivil(year, month, day) - PG_EPOCH_UNIX_DAYS;
  }

  static int daysInMonth(long year, int month) {
    if (month == 2) {
      boolean leap =
          Math.floorMod(year, 4) == 0
              && (Math.floorMod(year, 100) != 0 || Math.floorMod(year, 400) == 0);
      return leap ? 29 : 28;
    }
    return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
  }

  /** Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's algorithm). */
  public static long daysFromCivil(long year, int month, int day) {
    long y = month <= 2 ? year - 1 : year;
    long era = Math.floorDiv(y, 400);
    long yoe = y - era * 400;
    long doy = (153L * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146_097 + doe - 719_468;
  }

  /** Inverse of {@link #daysFromCivil}: {year, month, day}. */
  public static long[] civilFromDays(long unixDays) {
    long z = unixDays + 719_468;
    long era = Math.floorDiv(z, 146_097);
    long doe = z - era * 146_097;
    long yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long mp = (5 * doy + 2) / 153;
    long d = doy - (153 * mp + 2) / 5 + 1;
    long m = mp < 10 ? mp + 3 : mp - 9;
    return new long[] {yoe + era * 400 + (m <= 2 ? 1 : 0), m, d};
  }

  /** Microseconds since midnight of HH:MM:SS[.ffffff] (24:00:00 allowed, as in PostgreSQL). */
  public static long parseTime(byte[] v, int off, int end) {
    if (end - off < 8 || v[off + 2] != ':' || v[off + 5] != ':') {
      throw Ascii.invalid("time", v, off, end);
    }
    int h = Ascii.parseDigits(v, off, off + 2, "time");
    int m = Ascii.parseDigits(v, off + 3, off + 5, "time");
    int s = Ascii.parseDigits(v, off + 6, off + 8, "time");
    long micros = fraction(v, off + 8, end, "time");
    long total = ((h * 60L + m) * 60 + s) * 1_000_000 + micros;
    if (m > 59 || s > 60 || total > USECS_PER_DAY) {
      throw Ascii.invalid("time", v, off, end);
    }
    return total;
  }

  /** ".f" to ".ffffff" as microseconds; empty range is zero. */
  static long fraction(byte[] v, int off, int end, String type) {
    if (off == end) {
      return 0;
    }
    if (v[off] != '.' || end - off < 2 || end - off > 7) {
      throw Ascii.invalid(type, v, off, end);
    }
    long f = Ascii.parseDigits(v, off + 1, end, type);
    for (int i = end - off - 1; i < 6; i++) {
      f *= 10;
    }
    return f;
  }

  /** Microseconds since 2000-01-01 00:00:00 (UTC for timestamptz, after removing the offset). */
  public static long parseTimestamp(byte[] v, int off, int end, boolean withZone) {
    if (Ascii.equalsIgnoreCase(v, off, end, "infinity")) {
      return Long.MAX_VALUE;
    }
    if (Ascii.equalsIgnoreCase(v, off, end, "-infinity")) {
      return Long.MIN_VALUE;
    }
    boolean bc = endsWithBc(v, off, end);
    int stop = bc ? end - 3 : end;
    int space = Ascii.indexOf(v, off, stop, (byte) ' ');
    if (space < 0) {
      throw Ascii.invalid(withZone ? "timestamptz" : "timestamp", v, off, end);
    }
    long days = dateDays(v, off, space, bc);
    int timeEnd = stop;
    long offsetSeconds = 0;
    if (withZone) {
      timeEnd = zoneStart(v, space + 1, stop);
      offsetSeconds = parseOffsetEast(v, timeEnd, stop);
    }
    long time = parseTime(v, space + 1, timeEnd);
    return Math.addExact(Math.multiplyExact(days, USECS_PER_DAY), time) - offsetSeconds * 1_000_000;
  }

  private static int zoneStart(byte[] v, int off, int end) {
    for (int i = off; i < end; i++) {
      if (v[i] == '+' || v[i] == '-') {
        return i;
      }
    }
    throw Ascii.invalid("time zone offset", v, off, end);
  }

  /** [+-]HH[:MM[:SS]] as seconds east of UTC. */
  static long parseOffsetEast(byte[] v, int off, int end) {
    int n = end - off;
    if (n != 3 && n != 6 && n != 9) {
      throw Ascii.invalid("time zone offset", v, off, end);
    }
    long secs = Ascii.parseDigits(v, off + 1, off + 3, "time zone offset") * 3600L;
    if (n >= 6) {
      if (v[off + 3] != ':') {
        throw Ascii.invalid("time zone offset", v, off, end);
      }
      secs += Ascii.parseDigits(v, off + 4, off + 6, "time zone offset") * 60L;
    }
    if (n == 9) {
      if (v[off + 6] != ':') {
        throw Ascii.invalid("time zone offset", v, off, end);
      }
      secs += Ascii.parseDigits(v, off + 7, off + 9, "time zone offset");
    }
    if (secs > 15 * 3600 + 59 * 60 + 59) {
      throw Ascii.invalid("time zone offset", v, off, end);
    }
    return v[off] == '-' ? -secs : secs;
  }

  /** timetz: GMT-equivalent microseconds (time + zone), then the zone in seconds west of UTC. */
  private static void writeTimetz(byte[] v, int off, int end, IdentityBuffer out) {
    int zone = zoneStart(v, off, end);
    long time = parseTime(v, off, zone);
    long west = -parseOffsetEast(v, zone, end);
    out.putI64(time + west * 1_000_000);
    out.putI32((int) west);
  }

  @Override
  public boolean supportsBinary() {
    return true;
  }

  /**
   * Send formats: date i32, time/timestamp/timestamptz i64, timetz i64 time + i32 zone (seconds
   * west).
   */
  @Override
  public void encodeBinary(byte[] v, int off, int end, IdentityBuffer out) {
    int width = tag.fixedWidth();
    if (end - off != width) {
      throw Ascii.invalid(tag.sqlName() + " binary", v, off, end);
    }
    if (tag == TypeTag.TIMETZ) {
      long time = 0;
      for (int i = 0; i < 8; i++) {
        time = time << 8 | (v[off + i] & 0xFF);
      }
      int west =
          (v[off + 8] & 0xFF) << 24
              | (v[off + 9] & 0xFF) << 16
              | (v[off + 10] & 0xFF) << 8
              | (v[off + 11] & 0xFF);
      out.putI64(time + west * 1_000_000L);
      out.putI32(west);
      return;
    }
    if (tag == TypeTag.TIME) {
      out.putBytes(v, off, width); // unsigned microseconds, already big-endian
      return;
    }
    out.put(v[off] ^ 0x80);
    out.putBytes(v, off + 1, width - 1);
  }

  /** Decoding: ISO text the encoder parses back; timestamptz in UTC ({@code +00}). */
  static String render(TypeTag tag, IdentityReader in) {
    return switch (tag) {
      case DATE -> renderDate(in.i32());
      case TIME -> renderTime(in.u64());
      case TIMESTAMP, TIMESTAMPTZ -> renderTimestamp(in.i64(), tag == TypeTag.TIMESTAMPTZ);
      default -> renderTimetz(in);
    };
  }

  static String renderDate(int days) {
    if (days == Integer.MAX_VALUE) {
      return "infinity";
    }
    if (days == Integer.MIN_VALUE) {
      return "-infinity";
    }
    StringBuilder sb = new StringBuilder();
    if (appendDate(sb, days)) {
      sb.append(" BC");
    }
    return sb.toString();
  }

  /**
   * YYYY-MM-DD of a day count since 2000-01-01; true if the year is BC (the caller appends " BC").
   */
  private static boolean appendDate(StringBuilder sb, long pgDays) {
    long[] ymd = civilFromDays(pgDays + PG_EPOCH_UNIX_DAYS);
    long year = ymd[0];
    boolean bc = year <= 0;
    pad(sb, bc ? 1 - year : year, 4).append('-');
    pad(sb, ymd[1], 2).append('-');
    pad(sb, ymd[2], 2);
    return bc;
  }

  private static StringBuilder pad(StringBuilder sb, long v, int width) {
    String s = Long.toString(v);
    for (int i = s.length(); i < width; i++) {
      sb.append('0');
    }
    return sb.append(s);
  }

  /** HH:MM:SS with the fraction's trailing zeros dropped; shared with interval. */
  static void appendTime(StringBuilder sb, long micros) {
    long secs = micros / 1_000_000;
    long frac = micros % 1_000_000;
    pad(sb, secs / 3600, 2).append(':');
    pad(sb, secs / 60 % 60, 2).append(':');
    pad(sb, secs % 60, 2);
    if (frac != 0) {
      String f = Long.toString(1_000_000 + frac).substring(1);
      int n = f.length();
      while (f.charAt(n - 1) == '0') {
        n--;
      }
      sb.append('.').append(f, 0, n);
    }
  }

  private static String renderTime(long micros) {
    StringBuilder sb = new StringBuilder();
    appendTime(sb, micros);
    return sb.toString();
  }

  private static String renderTimestamp(long micros, boolean tz) {
    if (micros == Long.MAX_VALUE) {
      return "infinity";
    }
    if (micros == Long.MIN_VALUE) {
      return "-infinity";
    }
    StringBuilder sb = new StringBuilder();
    long days = Math.floorDiv(micros, USECS_PER_DAY);
    boolean bc = appendDate(sb, days);
    sb.append(' ');
    appendTime(sb, Math.floorMod(micros, USECS_PER_DAY));
    if (tz) {
      sb.append("+00");
    }
    if (bc) {
      sb.append(" BC");
    }
    return sb.toString();
  }

  /** The local time (GMT-equivalent minus the zone) and the zone as +HH[:MM[:SS]] east of UTC. */
  private static String renderTimetz(IdentityReader in) {
    long gmt = in.i64();
    int west = in.i32();
    StringBuilder sb = new StringBuilder();
    appendTime(sb, gmt - west * 1_000_000L);
    int east = -west;
    sb.append(east < 0 ? '-' : '+');
    int a = Math.abs(east);
    pad(sb, a / 3600, 2);
    if (a % 3600 != 0) {
      sb.append(':');
      pad(sb, a / 60 % 60, 2);
      if (a % 60 != 0) {
        sb.append(':');
        pad(sb, a % 60, 2);
      }
    }
    return sb.toString();
  }
}
