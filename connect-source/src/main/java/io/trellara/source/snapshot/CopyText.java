package io.trellara.source.snapshot;

import java.nio.charset.StandardCharsets;

/**
 * COPY's text format, as {@code COPY ... TO STDOUT} writes a row: fields separated by tabs, {@code
 * \N} for NULL, anything else the value with COPY's backslash escapes. One decoder for the
 * snapshot's rows and its key ranges.
 */
final class CopyText {
  private CopyText() {}

  /**
   * Undoes COPY's escapes of {@code row[from, to)} into {@code into} (at least {@code to - from}
   * long: the value is never longer than its escaped form); returns the value's length.
   */
  static int unescape(byte[] row, int from, int to, byte[] into) {
    int len = 0;
    for (int i = from; i < to; i++) {
      byte b = row[i];
      if (b != '\\' || i + 1 == to) {
        into[len++] = b;
        continue;
      }
      byte e = row[++i];
      switch (e) {
        case 'b' -> into[len++] = '\b';
        case 'f' -> into[len++] = '\f';
        case 'n' -> into[len++] = '\n';
        case 'r' -> into[len++] = '\r';
        case 't' -> into[len++] = '\t';
        case 'v' -> into[len++] = 0x0B;
        case 'x' -> {
          int v = 0;
          int digits = 0;
          while (digits < 2 && i + 1 < to && Character.digit(row[i + 1], 16) >= 0) {
            v = v * 16 + Character.digit(row[++i], 16);
            digits++;
          }
          into[len++] = digits == 0 ? (byte) 'x' : (byte) v;
        }
        default -> {
          if (e >= '0' && e <= '7') {
            int v = e - '0';
            for (int d = 1; d < 3 && i + 1 < to && row[i + 1] >= '0' && row[i + 1] <= '7'; d++) {
              v = v * 8 + (row[++i] - '0');
            }
            into[len++] = (byte) v;
          } else {
            into[len++] = e; // \\ and any other escaped character stand for themselves
          }
        }
      }
    }
    return len;
  }

  /**
   * Field {@code index} (0-based) of {@code row} (its trailing newline included or not) as text;
   * null for {@code \N}.
   *
   * @throws IllegalArgumentException when the row has no such field
   */
  static String field(byte[] row, int index) {
    int end = row.length > 0 && row[row.length - 1] == '\n' ? row.length - 1 : row.length;
    int from = 0;
    for (int f = 0; f < index; f++) {
      while (from < end && row[from] != '\t') {
        from++;
      }
      if (from == end) {
        throw new IllegalArgumentException("a COPY row has no field " + (index + 1));
      }
      from++;
    }
    int to = from;
    while (to < end && row[to] != '\t') {
      to++;
    }
    if (to - from == 2 && row[from] == '\\' && row[from + 1] == 'N') {
      return null;
    }
    byte[] value = new byte[to - from];
    return new String(value, 0, unescape(row, from, to, value), StandardCharsets.UTF_8);
  }
}
