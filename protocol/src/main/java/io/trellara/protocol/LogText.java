package io.trellara.protocol;

import java.nio.charset.StandardCharsets;

/**
 * A string from the wire (a table or column name, a source or dataset id, DDL text) made safe to
 * put in a log line or an error message: a topic writer chooses those strings, and a newline in a
 * relation name would otherwise forge a second log line. Control characters become escapes ({@code
 * \n}, {@code \r}, {@code \t}, {@code \\}, other C0/C1 controls, the line and paragraph separators
 * and the bidirectional overrides as {@code \}{@code uXXXX}); everything else is kept as it is, so
 * an ordinary name reads unchanged.
 */
public final class LogText {
  /** How much of a quoted text a log line shows: a megabyte statement must not flood the log. */
  public static final int MAX_CHARS = 512;

  private LogText() {}

  /** {@code s} with every character a log reader could misread escaped; "null" for null. */
  public static String escape(String s) {
    if (s == null) {
      return "null";
    }
    int i = 0;
    while (i < s.length() && !needsEscape(s.charAt(i))) {
      i++;
    }
    if (i == s.length()) {
      return s; // the usual case: nothing to copy
    }
    StringBuilder b = new StringBuilder(s.length() + 16).append(s, 0, i);
    for (; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '\\' -> b.append("\\\\");
        default -> {
          if (needsEscape(c)) {
            b.append("\\u").append(String.format("%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.toString();
  }

  /**
   * {@code text} escaped as {@link #escape}, in double quotes (a quote inside escaped too), cut
   * after {@value #MAX_CHARS} characters with the count of the rest: for text that may be long,
   * such as a DDL statement or a logical message; "null" for null.
   */
  public static String quote(String text) {
    if (text == null) {
      return "null";
    }
    int shown = Math.min(text.length(), MAX_CHARS);
    String head = escape(text.substring(0, shown)).replace("\"", "\\\"");
    String quoted = '"' + head + '"';
    return text.length() > shown
        ? quoted + "... (" + (text.length() - shown) + " more characters)"
        : quoted;
  }

  /**
   * The start of {@code bytes} read as UTF-8 (malformed sequences become U+FFFD), quoted as {@link
   * #quote(String)}; the rest counted in bytes, never decoded.
   */
  public static String quote(byte[] bytes) {
    int shown = Math.min(bytes.length, MAX_CHARS);
    // at most MAX_CHARS bytes decode to at most MAX_CHARS characters: never cut again
    String head = quote(new String(bytes, 0, shown, StandardCharsets.UTF_8));
    return bytes.length > shown ? head + "... (" + (bytes.length - shown) + " more bytes)" : head;
  }

  private static boolean needsEscape(char c) {
    return c < 0x20
        || c == '\\'
        || (c >= 0x7f && c <= 0x9f)
        || c == '\u2028'
        || c == '\u2029'
        || (c >= '\u202a' && c <= '\u202e')
        || (c >= '\u2066' && c <= '\u2069');
  }
}
