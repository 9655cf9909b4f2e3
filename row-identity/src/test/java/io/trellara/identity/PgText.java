package io.trellara.identity;

import java.math.BigInteger;

/**
 * Test-side formatting of values as PostgreSQL prints them (ISO DateStyle, postgres IntervalStyle),
 * using only integer arithmetic so the oracle does not share code with the encoder.
 */
final class PgText {
  static final long USECS_PER_DAY = 86_400_000_000L;

  private PgText() {}

  static String date(long pgDays) {
    java.time.LocalDate d = java.time.LocalDate.ofEpochDay(pgDays + 10_957);
    int y = d.getYear();
    String body =
        pad(y <= 0 ? 1 - y : y, 4)
            + "-"
            + pad(d.getMonthValue(), 2)
            + "-"
            + pad(d.getDayOfMonth(), 2);
    return y <= 0 ? body + " BC" : body;
  }

  static String time(long micros) {
    long secs = micros / 1_000_000;
    long frac = micros % 1_000_000;
    String s = pad(secs / 3600, 2) + ":" + pad(secs / 60 % 60, 2) + ":" + pad(secs % 60, 2);
    if (frac != 0) {
      String f = pad(frac, 6);
      s += "." + f.replaceAll("0+$", "");
    }
    return s;
  }

  static String timestamp(long pgMicros) {
    long days = Math.floorDiv(pgMicros, USECS_PER_DAY);
    String date = date(days);
    String t = time(Math.floorMod(pgMicros, USECS_PER_DAY));
    return date.endsWith(" BC")
        ? date.substring(0, date.length() - 3) + " " + t + " BC"
        : date + " " + t;
  }

  /**
   * The local time at {@code offsetSeconds} east, followed by the offset as PostgreSQL prints it.
   */
  static String timestamptz(long utcMicros, int offsetSeconds) {
    String local = timestamp(utcMicros + offsetSeconds * 1_000_000L);
    boolean bc = local.endsWith(" BC");
    String body = bc ? local.substring(0, local.length() - 3) : local;
    return body + offset(offsetSeconds) + (bc ? " BC" : "");
  }

  static String offset(int east) {
    int a = Math.abs(east);
    String s = (east < 0 ? "-" : "+") + pad(a / 3600, 2);
    if (a % 3600 != 0) {
      s += ":" + pad(a / 60 % 60, 2);
      if (a % 60 != 0) {
        s += ":" + pad(a % 60, 2);
      }
    }
    return s;
  }

  static String interval(int months, int days, long micros) {
    StringBuilder sb = new StringBuilder();
    if (months != 0) {
      sb.append(months).append(" mons ");
    }
    if (days != 0) {
      sb.append(days).append(" days ");
    }
    sb.append(micros < 0 ? "-" : "+").append(time(Math.abs(micros)));
    return sb.toString();
  }

  static BigInteger intervalCmpValue(int months, int days, long micros) {
    return BigInteger.valueOf(months * 30L + days)
        .multiply(BigInteger.valueOf(USECS_PER_DAY))
        .add(BigInteger.valueOf(micros));
  }

  private static String pad(long v, int width) {
    String s = Long.toString(v);
    return "0".repeat(Math.max(0, width - s.length())) + s;
  }
}
