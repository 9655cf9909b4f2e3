package io.trellara.identity.codec;

import io.trellara.identity.RowIdentityException;

/**
 * Shared rules of structural encoders: the depth limit, field framing and quoted-literal reading.
 */
public final class Structural {
  public static final int MAX_DEPTH = 32;
  public static final int STATE_NULL = 0x00;
  public static final int STATE_VALUE = 0x01;
  public static final int TUPLE_END = 0xFF;

  private Structural() {}

  /**
   * Called before descending into a nested value, so the limit holds before anything is allocated.
   */
  public static int enter(int depth, String type) {
    if (depth + 1 > MAX_DEPTH) {
      throw new RowIdentityException(type + " nesting exceeds depth " + MAX_DEPTH);
    }
    return depth + 1;
  }

  /** Tag, VALUE state and payload of a text value. */
  static void writeField(
      FieldCodec codec, byte[] v, int off, int end, IdentityBuffer out, int depth) {
    out.put(codec.tag().code());
    out.put(STATE_VALUE);
    codec.encodeText(v, off, end, out, depth);
  }

  static void writeNull(FieldCodec codec, IdentityBuffer out) {
    out.put(codec.tag().code());
    out.put(STATE_NULL);
  }

  /** Cursor over PostgreSQL composite/array/range literal text. */
  static final class Cursor {
    final byte[] v;
    int pos;
    final int end;
    final int start;
    final String type;

    Cursor(byte[] v, int off, int end, String type) {
      this.v = v;
      this.pos = off;
      this.start = off;
      this.end = end;
      this.type = type;
    }

    RowIdentityException invalid() {
      return Ascii.invalid(type, v, start, end);
    }

    void skipSpace() {
      while (pos < end && (v[pos] == ' ' || v[pos] == '\t' || v[pos] == '\n' || v[pos] == '\r')) {
        pos++;
      }
    }

    boolean at(char c) {
      return pos < end && v[pos] == c;
    }

    void expect(char c) {
      if (!at(c)) {
        throw invalid();
      }
      pos++;
    }

    /**
     * Read one element up to (not including) any delimiter in {@code stops}, outside quotes. Quotes
     * and backslashes are removed; {@code ""} inside quotes is one quote (composite/range style).
     * Returns null for an unquoted element equal to {@code nullWord} (or empty, if nullWord is ""),
     * else the element bytes.
     */
    byte[] element(String stops, String nullWord, boolean doubledQuotes) { // nullWord in lower case
      int begin = pos;
      boolean quoted = false;
      boolean escaped = false;
      java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
      boolean inQuotes = false;
      while (pos < end) {
        byte c = v[pos];
        if (c == '\\') {
          if (pos + 1 >= end) {
            throw invalid();
          }
          b.write(v[pos + 1]);
          escaped = true;
          pos += 2;
        } else if (c == '"') {
          if (inQuotes && pos + 1 < end && v[pos + 1] == '"' && doubledQuotes) {
            b.write('"');
            pos += 2;
          } else {
            inQuotes = !inQuotes;
            quoted = true;
            pos++;
          }
        } else if (!inQuotes && stops.indexOf(c) >= 0) {
          break;
        } else {
          b.write(c);
          pos++;
        }
      }
      if (inQuotes) {
        throw invalid();
      }
      byte[] bytes = b.toByteArray();
      if (!quoted && !escaped) {
        int n = bytes.length;
        if (nullWord.isEmpty() ? n == 0 : Ascii.equalsIgnoreCase(bytes, 0, n, nullWord)) {
          return null;
        }
        if (!nullWord.isEmpty()) {
          return trim(bytes); // array elements: unquoted whitespace is insignificant
        }
      }
      if (pos == begin && nullWord.isEmpty()) {
        return null;
      }
      return bytes;
    }

    private static byte[] trim(byte[] b) {
      int s = 0;
      int e = b.length;
      while (s < e && b[s] == ' ') {
        s++;
      }
      while (e > s && b[e - 1] == ' ') {
        e--;
      }
      return s == 0 && e == b.length ? b : java.util.Arrays.copyOfRange(b, s, e);
    }
  }

  /**
   * The inverse of {@link Cursor#element}: {@code v} as a literal element, double-quoted (with
   * {@code "} and {@code \} backslashed) when empty, when it holds a {@code specials} character or
   * whitespace, or, for array elements, when it reads as the NULL word.
   */
  static String quote(String v, String specials, boolean quoteNullWord) {
    boolean needs = v.isEmpty() || (quoteNullWord && v.equalsIgnoreCase("null"));
    for (int i = 0; i < v.length() && !needs; i++) {
      needs = specials.indexOf(v.charAt(i)) >= 0 || Character.isWhitespace(v.charAt(i));
    }
    if (!needs) {
      return v;
    }
    StringBuilder sb = new StringBuilder("\"");
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.append('"').toString();
  }
}
