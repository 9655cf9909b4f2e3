package io.trellara.source.capture.ddl;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Text from the source database made safe for one log line: whoever can run DDL or write a logical
 * message chooses it, so a newline must not start a forged log line and a megabyte statement must
 * not flood the log. Quoted, with backslash, quote, every control character (C0, DEL, C1) and the
 * Unicode line and paragraph separators escaped as {@code \}{@code uXXXX} (or {@code \n}, {@code
 * \r}, {@code \t}), and cut after {@value #MAX_CHARS} characters with the count of the rest.
 */
public final class LogText {
  static final int MAX_CHARS = 512;

  private LogText() {}

  /** {@code text} quoted and escaped; {@code null} for null. */
  public static String quote(String text) {
    if (text == null) {
      return "null";
    }
    int shown = Math.min(text.length(), MAX_CHARS);
    StringBuilder sb = new StringBuilder(shown + 16).append('"');
    for (int i = 0; i < shown; i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
    if (text.length() > shown) {
      sb.append("... (").append(text.length() - shown).append(" more characters)");
    }
    return sb.toString();
  }

  /**
   * The start of {@code bytes} read as UTF-8 (malformed sequences become U+FFFD), quoted and
   * escaped; the rest counted in bytes, never decoded.
   */
  public static String quote(byte[] bytes) {
    int shown = Math.min(bytes.length, MAX_CHARS);
    // at most MAX_CHARS bytes decode to at most MAX_CHARS characters: never cut again
    String head = quote(new String(Arrays.copyOf(bytes, shown), StandardCharsets.UTF_8));
    return bytes.length > shown ? head + "... (" + (bytes.length - shown) + " more bytes)" : head;
  }
}
