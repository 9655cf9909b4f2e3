package io.trellara.protocol;

/**
 * A string from the wire (a table or column name, a source or dataset id, DDL text) made safe to
 * put in a log line or an error message: a topic writer chooses those strings, and a newline in a
 * relation name would otherwise forge a second log line. Control characters become escapes ({@code
 * \n}, {@code \r}, {@code \t}, {@code \\}, other C0/C1 controls, the line and paragraph separators
 * and the bidirectional overrides as {@code \}{@code uXXXX}); everything else is kept as it is, so
 * an ordinary name reads unchanged.
 */
public final class LogText {
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
