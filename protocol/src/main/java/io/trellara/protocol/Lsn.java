package io.trellara.protocol;

/**
 * A PostgreSQL log sequence number. The canonical text form is PostgreSQL's own {@code %X/%X}:
 * upper-case hexadecimal without leading zeros, the high and low 32 bits separated by a slash.
 */
public final class Lsn implements Comparable<Lsn> {
  public static final Lsn ZERO = new Lsn(0);

  private final long value;

  private Lsn(long value) {
    this.value = value;
  }

  public static Lsn of(long value) {
    return value == 0 ? ZERO : new Lsn(value);
  }

  /**
   * Parses {@code X/X}: two halves of 1 to 8 ASCII hex digits (either case, leading zeros allowed),
   * no sign, no space; throws on anything else.
   */
  public static Lsn parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("LSN is null");
    }
    Lsn lsn = parseOrNull(text);
    if (lsn != null) {
      return lsn;
    }
    int slash = slash(text);
    for (int i = 0; slash > 0 && i < text.length(); i++) {
      if (i != slash && hexDigit(text.charAt(i)) < 0) {
        throw new IllegalArgumentException("LSN '" + text + "' has a non-hex character at " + i);
      }
    }
    throw new IllegalArgumentException(
        "LSN '" + text + "' is not of the form X/X (hex halves of 1 to 8 digits)");
  }

  /**
   * What {@link #parse} returns, or null where it throws: validators ask often, and without an
   * exception.
   */
  public static Lsn parseOrNull(String text) {
    int slash = text == null ? -1 : slash(text);
    if (slash < 0) {
      return null;
    }
    long high = parseHex(text, 0, slash);
    long low = parseHex(text, slash + 1, text.length());
    return high < 0 || low < 0 ? null : of((high << 32) | low);
  }

  /**
   * Where the slash of {@code X/X} is, with 1 to 8 characters on either side; -1 when the text has
   * no such shape.
   */
  private static int slash(String text) {
    int slash = text.indexOf('/');
    return slash <= 0 || slash == text.length() - 1 || slash > 8 || text.length() - slash - 1 > 8
        ? -1
        : slash;
  }

  /** True when {@link #parse} accepts {@code text}. */
  public static boolean parses(String text) {
    return parseOrNull(text) != null;
  }

  /**
   * True when {@code text} parses and is exactly the canonical form PostgreSQL prints: upper-case
   * digits, no leading zero in either half.
   */
  public static boolean isCanonical(String text) {
    if (parseOrNull(text) == null) {
      return false;
    }
    int slash = slash(text);
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (ch >= 'a' && ch <= 'f') {
        return false;
      }
    }
    return (slash == 1 || text.charAt(0) != '0')
        && (text.length() - slash == 2 || text.charAt(slash + 1) != '0');
  }

  /** The value of 1 to 8 hex digits, or -1 when one is not an ASCII hex digit. */
  private static long parseHex(String text, int from, int to) {
    long v = 0;
    for (int i = from; i < to; i++) {
      int d = hexDigit(text.charAt(i));
      if (d < 0) {
        return -1;
      }
      v = (v << 4) | d;
    }
    return v;
  }

  /** ASCII only: Character.digit would also take full-width and other scripts' digits. */
  private static int hexDigit(char ch) {
    return ch < 128 ? Character.digit(ch, 16) : -1;
  }

  public long value() {
    return value;
  }

  public boolean isZero() {
    return value == 0;
  }

  @Override
  public int compareTo(Lsn other) {
    return Long.compareUnsigned(value, other.value);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Lsn l && l.value == value;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(value);
  }

  @Override
  public String toString() {
    return format(value);
  }

  public static String format(long value) {
    return Long.toHexString(value >>> 32).toUpperCase(java.util.Locale.ROOT)
        + "/"
        + Long.toHexString(value & 0xFFFFFFFFL).toUpperCase(java.util.Locale.ROOT);
  }
}
