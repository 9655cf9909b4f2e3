package io.trellara.sink.postgres.names;

import java.util.Objects;

/** A schema-qualified relation name (unquoted parts). */
public record QualifiedName(String schema, String table) {
  public QualifiedName {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(table, "table");
  }

  /**
   * Parses {@code schema.table}; either part may be double-quoted ({@code "my.schema"."Orders"},
   * with {@code ""} for a quote inside). Unquoted parts are taken literally (no case folding), and
   * the table may be {@code *} for allowlist wildcards.
   */
  public static QualifiedName parse(String text) {
    Objects.requireNonNull(text, "text");
    String s = text.strip();
    int[] pos = {0};
    String schema = part(s, pos, text);
    if (pos[0] >= s.length() || s.charAt(pos[0]) != '.') {
      throw new IllegalArgumentException("'" + text + "' is not of the form schema.table");
    }
    pos[0]++;
    String table = part(s, pos, text);
    if (pos[0] != s.length()) {
      throw new IllegalArgumentException(
          "'" + text + "' has trailing characters after schema.table");
    }
    return new QualifiedName(schema, table);
  }

  private static String part(String s, int[] pos, String original) {
    int i = pos[0];
    StringBuilder b = new StringBuilder();
    if (i < s.length() && s.charAt(i) == '"') {
      i++;
      while (true) {
        if (i >= s.length()) {
          throw new IllegalArgumentException(
              "unterminated quoted identifier in '" + original + "'");
        }
        char c = s.charAt(i++);
        if (c == '"') {
          if (i < s.length() && s.charAt(i) == '"') {
            b.append('"');
            i++;
          } else {
            break;
          }
        } else {
          b.append(c);
        }
      }
    } else {
      while (i < s.length() && s.charAt(i) != '.') {
        b.append(s.charAt(i++));
      }
    }
    if (b.length() == 0) {
      throw new IllegalArgumentException("empty name part in '" + original + "'");
    }
    pos[0] = i;
    return b.toString();
  }

  /** {@code "schema"."table"}, safe to embed in SQL. */
  public String quoted() {
    return Identifiers.quote(schema) + '.' + Identifiers.quote(table);
  }

  @Override
  public String toString() {
    return quoted();
  }
}
