package io.trellara.sink.postgres.names;

import java.nio.charset.StandardCharsets;

/** SQL identifier quoting. Every name that reaches SQL text goes through {@link #quote}. */
public final class Identifiers {
  /** PostgreSQL's NAMEDATALEN - 1: longer names would be truncated silently and could collide. */
  public static final int MAX_BYTES = 63;

  private Identifiers() {}

  /**
   * {@code "name"} with embedded double quotes doubled. Refuses an empty name, a NUL character and
   * a name longer than 63 UTF-8 bytes (PostgreSQL would truncate it, possibly onto another relation
   * or column).
   */
  public static String quote(String name) {
    check(name);
    StringBuilder b = new StringBuilder(name.length() + 2).append('"');
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '"') {
        b.append('"');
      }
      b.append(c);
    }
    return b.append('"').toString();
  }

  public static void check(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("empty identifier");
    }
    if (name.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("identifier contains a NUL character");
    }
    if (name.length() > MAX_BYTES / 3 && name.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
      throw new IllegalArgumentException(
          "identifier '"
              + name
              + "' is longer than "
              + MAX_BYTES
              + " bytes and PostgreSQL would truncate it");
    }
  }
}
