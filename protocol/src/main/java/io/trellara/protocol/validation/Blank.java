package io.trellara.protocol.validation;

/**
 * docs/protocol.md's "blank", by code point and independent of the JDK: a string is blank when it
 * is empty or every code point of it is one of U+0009–U+000D, U+001C–U+0020, U+1680, U+2000–U+2006,
 * U+2008–U+200A, U+2028, U+2029, U+205F, U+3000. ({@link String#isBlank} follows {@link
 * Character#isWhitespace}, whose answer follows the JDK's Unicode version: U+180E was white space
 * before Unicode 6.3.) No code point outside the BMP is in the list, so a char-by-char scan is
 * exact: a surrogate is never blank.
 */
final class Blank {
  private Blank() {}

  static boolean isBlank(String s) {
    if (Misreading.any()
        && (Misreading.on(Misreading.BLANK_AS_TRIM)
            || Misreading.on(Misreading.BLANK_INCLUDES_NO_BREAK_SPACE))) {
      return misread(s);
    }
    for (int i = 0; i < s.length(); i++) {
      if (!isBlank(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean misread(String s) {
    if (Misreading.on(Misreading.BLANK_AS_TRIM)) {
      return s.trim().isEmpty();
    }
    return s.chars().allMatch(c -> Character.isSpaceChar(c) || Character.isWhitespace(c));
  }

  static boolean isBlank(char c) {
    if (c <= 0x20) {
      return c >= 0x1C || (c >= 0x09 && c <= 0x0D);
    }
    if (c < 0x1680) {
      return false;
    }
    return c == 0x1680
        || (c >= 0x2000 && c <= 0x2006)
        || (c >= 0x2008 && c <= 0x200A)
        || c == 0x2028
        || c == 0x2029
        || c == 0x205F
        || c == 0x3000;
  }
}
