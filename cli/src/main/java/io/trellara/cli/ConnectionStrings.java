package io.trellara.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Connection strings as they may be shown: every secret replaced, everything else left for
 * diagnosis.
 */
final class ConnectionStrings {
  static final String MASK = "***";

  /** {@code scheme://user:secret@host}: the userinfo's password. */
  private static final Pattern USERINFO_PASSWORD = Pattern.compile("(://[^/?#@:]*):[^/?#@]*@");

  /**
   * {@code password=...} (also sslpassword) as a URL parameter or a libpq keyword, up to the next
   * separator.
   */
  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile(
          "(?i)(^|[?&;\\s])([a-z_]*password\\s*=\\s*)('(?:[^'\\\\]|\\\\.)*'|[^&;\\s]*)");

  private ConnectionStrings() {}

  /** {@code url} with passwords masked; null stays null. */
  static String masked(String url) {
    if (url == null) {
      return null;
    }
    String s =
        USERINFO_PASSWORD.matcher(url).replaceAll("$1:" + Matcher.quoteReplacement(MASK) + "@");
    return PASSWORD_PARAMETER.matcher(s).replaceAll("$1$2" + Matcher.quoteReplacement(MASK));
  }
}
