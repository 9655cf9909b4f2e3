package io.trellara.source.capture.ddl;

import io.trellara.protocol.LogText;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.source.capture.CaptureException;
import java.nio.charset.StandardCharsets;

/**
 * Parses the content of a {@code trellara.ddl} logical message (see {@code
 * trellara-ddl-capture.sql}): one flat JSON object whose values are JSON strings or null,
 *
 * <pre>
 * {"command_tag": "...", "object_type": "...", "object_identity": "...", "schema_name": "...",
 *  "statement": "...", "search_path": "...", "relations": "...", "temporary": "true"|"false",
 *  "role": "...", "session_user": "...", "schemas": "..."}
 * </pre>
 *
 * {@code relations} (see {@link RelationList}), {@code temporary}, {@code role}, {@code
 * session_user} and {@code schemas} (see {@link RelationShape}) go to a {@link DdlTargets}, not to
 * the DdlEvent; a message without {@code relations} (a trigger older than that field) leaves the
 * targets undescribed. A small hand-written parser (no library): whitespace, string escapes
 * including {@code \}{@code uXXXX} with surrogate pairs, and null are understood; unknown keys are
 * ignored (forward compatibility of the trigger); nested values, numbers, booleans, duplicate keys
 * and trailing garbage are refused. A missing or blank {@code command_tag} is refused: a DDL event
 * without it would be rejected by the protocol validator.
 */
public final class DdlMessageParser {

  private final String text;
  private final long lsn;
  private final DdlTargets targets;
  private int pos;

  private DdlMessageParser(String text, long lsn, DdlTargets targets) {
    this.text = text;
    this.lsn = lsn;
    this.targets = targets;
  }

  /**
   * Parses {@code content} and sets command_tag ... search_path on {@code into} (null JSON values
   * leave the field empty).
   *
   * @throws CaptureException when the content is not such an object
   */
  public static DdlEvent.Builder parseInto(byte[] content, long lsn, DdlEvent.Builder into) {
    return parseInto(content, lsn, into, new DdlTargets());
  }

  /**
   * As {@link #parseInto(byte[], long, DdlEvent.Builder)}, and sets {@code targets} (cleared
   * first).
   */
  public static DdlEvent.Builder parseInto(
      byte[] content, long lsn, DdlEvent.Builder into, DdlTargets targets) {
    new DdlMessageParser(new String(content, StandardCharsets.UTF_8), lsn, targets.clear())
        .object(into);
    if (into.getCommandTag().isBlank()) {
      throw new CaptureException(
          "ddl_message_invalid",
          "the DDL message at LSN "
              + Lsn.format(lsn)
              + " has no command_tag; is the event trigger from trellara-ddl-capture.sql installed in its current"
              + " version?");
    }
    return into;
  }

  private void object(DdlEvent.Builder into) {
    skipWhitespace();
    expect('{');
    skipWhitespace();
    int seen = 0;
    if (peek() == '}') {
      pos++;
    } else {
      while (true) {
        skipWhitespace();
        String key = string();
        skipWhitespace();
        expect(':');
        skipWhitespace();
        String value = peek() == 'n' ? nullLiteral() : string();
        seen = set(into, key, value, seen);
        skipWhitespace();
        char c = next();
        if (c == '}') {
          break;
        }
        if (c != ',') {
          throw invalid("expected ',' or '}' at offset " + (pos - 1));
        }
      }
    }
    skipWhitespace();
    if (pos != text.length()) {
      throw invalid("trailing characters at offset " + pos);
    }
  }

  private int set(DdlEvent.Builder into, String key, String value, int seen) {
    int bit =
        switch (key) {
          case "command_tag" -> 1;
          case "object_type" -> 2;
          case "object_identity" -> 4;
          case "schema_name" -> 8;
          case "statement" -> 16;
          case "search_path" -> 32;
          case "relations" -> 64;
          case "temporary" -> 128;
          case "role" -> 256;
          case "session_user" -> 512;
          case "schemas" -> 1024;
          default -> 0;
        };
    if ((seen & bit) != 0) {
      throw invalid("duplicate key " + LogText.quote(key));
    }
    if (value != null) {
      switch (bit) {
        case 1 -> into.setCommandTag(value);
        case 2 -> into.setObjectType(value);
        case 4 -> into.setObjectIdentity(value);
        case 8 -> into.setSchemaName(value);
        case 16 -> into.setStatement(value);
        case 32 -> into.setSearchPath(value);
        case 64 -> {
          RelationList.decodeInto(value, lsn, targets.relations);
          targets.described = true;
        }
        case 128 -> targets.temporary = temporary(value);
        case 256 -> targets.role = value;
        case 512 -> targets.sessionUser = value;
        case 1024 -> RelationShape.decodeInto(value, lsn, targets.shapes);
        default -> {} // unknown key: ignored
      }
    }
    return seen | bit;
  }

  private boolean temporary(String value) {
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw invalid(
              "temporary is " + LogText.quote(value) + ", expected \"true\" or \"false\"");
    };
  }

  private String nullLiteral() {
    if (text.startsWith("null", pos)) {
      pos += 4;
      return null;
    }
    throw invalid("expected a string or null at offset " + pos);
  }

  private String string() {
    expect('"');
    StringBuilder sb = null;
    int start = pos;
    while (true) {
      if (pos >= text.length()) {
        throw invalid("unterminated string");
      }
      char c = text.charAt(pos++);
      if (c == '"') {
        return sb == null ? text.substring(start, pos - 1) : sb.toString();
      }
      if (c < 0x20) {
        throw invalid("unescaped control character at offset " + (pos - 1));
      }
      if (c != '\\') {
        if (sb != null) {
          sb.append(c);
        }
        continue;
      }
      if (sb == null) {
        sb = new StringBuilder(text.length() - start).append(text, start, pos - 1);
      }
      char e = next();
      switch (e) {
        case '"', '\\', '/' -> sb.append(e);
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'u' -> sb.append(hex4());
        default ->
            throw invalid("invalid escape " + LogText.quote("\\" + e) + " at offset " + (pos - 2));
      }
    }
  }

  private char hex4() {
    if (pos + 4 > text.length()) {
      throw invalid("truncated \\u escape");
    }
    int v = 0;
    for (int i = 0; i < 4; i++) {
      int d = Character.digit(text.charAt(pos++), 16);
      if (d < 0) {
        throw invalid("invalid \\u escape at offset " + (pos - 1));
      }
      v = (v << 4) | d;
    }
    return (char) v; // surrogate pairs arrive as two escapes and combine in the StringBuilder
  }

  private void skipWhitespace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private char peek() {
    if (pos >= text.length()) {
      throw invalid("unexpected end");
    }
    return text.charAt(pos);
  }

  private char next() {
    char c = peek();
    pos++;
    return c;
  }

  private void expect(char c) {
    if (next() != c) {
      throw invalid("expected '" + c + "' at offset " + (pos - 1));
    }
  }

  private CaptureException invalid(String what) {
    return new CaptureException(
        "ddl_message_invalid",
        "the DDL message at LSN "
            + Lsn.format(lsn)
            + " is not the flat JSON object the event trigger emits: "
            + what);
  }
}
