package io.trellara.source.signal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a signal from the three text columns of a signal-table row: {@code id} (any non-blank text,
 * the sender's name for it), {@code type} (the action: {@code snapshot}, {@code stop-snapshot},
 * {@code pause-snapshot}, {@code resume-snapshot}) and {@code data}: one table per line, {@code
 * schema.table} (a bare name means {@code public}; quote a name with double quotes as in SQL), for
 * {@code snapshot} optionally followed by {@code WHERE <row filter>}. Anything else is refused with
 * the rule it breaks ({@link MalformedSignalException}).
 *
 * <p>A row filter runs on the source inside the snapshot's {@code READ ONLY} transaction, as part
 * of {@code SELECT ... WHERE (<publication's filter>) AND (<filter>)}: it may not hold a statement
 * separator or a comment, which could end the expression early.
 */
public final class SignalParser {
  static final int MAX_ID_CHARS = 200;
  static final int MAX_FILTER_CHARS = 4_000;
  static final int MAX_TABLES = 100;

  private static final Pattern WHERE = Pattern.compile("\\s+(?i:where)\\s+");
  private static final Pattern UNQUOTED = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*");

  private SignalParser() {}

  public static Signal parse(String id, String type, String data) throws MalformedSignalException {
    if (id == null || id.isBlank()) {
      throw new MalformedSignalException("the signal has no id (column id is empty)");
    }
    if (id.length() > MAX_ID_CHARS) {
      throw new MalformedSignalException("the id is longer than " + MAX_ID_CHARS + " characters");
    }
    if (type == null || type.isBlank()) {
      throw new MalformedSignalException("the signal has no type (column type is empty)");
    }
    Signal.Action action = Signal.Action.named(type);
    if (action == null) {
      throw new MalformedSignalException(
          "unknown type '"
              + type
              + "' (known: snapshot, stop-snapshot, pause-snapshot, resume-snapshot)");
    }
    List<Signal.TableRequest> tables = tables(data, action == Signal.Action.SNAPSHOT);
    if (action == Signal.Action.SNAPSHOT && tables.isEmpty()) {
      throw new MalformedSignalException(
          "a snapshot signal names no table (column data: one schema.table per line)");
    }
    return new Signal(id, action, tables);
  }

  /** A table name as {@code signal.table} takes it: {@code schema.table}, SQL quoting allowed. */
  public static Signal.TableRequest tableName(String name) throws MalformedSignalException {
    if (name == null || name.isBlank()) {
      throw new MalformedSignalException("no table name");
    }
    return table(name.strip(), false);
  }

  private static List<Signal.TableRequest> tables(String data, boolean filters)
      throws MalformedSignalException {
    List<Signal.TableRequest> out = new ArrayList<>();
    if (data == null) {
      return out;
    }
    Set<String> seen = new HashSet<>();
    for (String raw : data.split("\n", -1)) {
      String line = raw.strip();
      if (line.isEmpty()) {
        continue;
      }
      Signal.TableRequest t = table(line, filters);
      if (!seen.add(t.display())) {
        throw new MalformedSignalException("table " + t.display() + " is named twice");
      }
      out.add(t);
      if (out.size() > MAX_TABLES) {
        throw new MalformedSignalException("more than " + MAX_TABLES + " tables in one signal");
      }
    }
    return out;
  }

  private static Signal.TableRequest table(String line, boolean filters)
      throws MalformedSignalException {
    Names names = new Names(line);
    String first = names.identifier();
    String schema = "public";
    String table = first;
    if (names.peek('.')) {
      names.skip();
      schema = first;
      table = names.identifier();
    }
    String rest = line.substring(names.at);
    if (rest.isBlank()) {
      return new Signal.TableRequest(schema, table, null);
    }
    Matcher m = WHERE.matcher(rest);
    if (!m.lookingAt()) {
      throw new MalformedSignalException(
          "unexpected text after table " + schema + "." + table + ": '" + rest.strip() + "'");
    }
    if (!filters) {
      throw new MalformedSignalException("only a snapshot signal takes a row filter (WHERE)");
    }
    String filter = rest.substring(m.end()).strip();
    return new Signal.TableRequest(schema, table, filter(filter, schema + "." + table));
  }

  private static String filter(String f, String table) throws MalformedSignalException {
    if (f.isEmpty()) {
      throw new MalformedSignalException("the row filter of " + table + " is empty");
    }
    if (f.length() > MAX_FILTER_CHARS) {
      throw new MalformedSignalException(
          "the row filter of " + table + " is longer than " + MAX_FILTER_CHARS + " characters");
    }
    if (f.contains(";") || f.contains("--") || f.contains("/*")) {
      throw new MalformedSignalException(
          "the row filter of " + table + " holds ';', '--' or '/*' (not allowed in a filter)");
    }
    int depth = 0;
    for (int i = 0; i < f.length(); i++) {
      char c = f.charAt(i);
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      if (depth < 0) {
        break;
      }
    }
    if (depth != 0) {
      throw new MalformedSignalException(
          "the row filter of " + table + " has unbalanced parentheses");
    }
    return f;
  }

  /** A cursor over SQL identifiers: unquoted (folded to lower case) or double-quoted. */
  private static final class Names {
    private final String s;
    private int at;

    Names(String s) {
      this.s = s;
    }

    boolean peek(char c) {
      return at < s.length() && s.charAt(at) == c;
    }

    void skip() {
      at++;
    }

    String identifier() throws MalformedSignalException {
      if (peek('"')) {
        StringBuilder b = new StringBuilder();
        int i = at + 1;
        while (i < s.length()) {
          char c = s.charAt(i);
          if (c == '"') {
            if (i + 1 < s.length() && s.charAt(i + 1) == '"') {
              b.append('"');
              i += 2;
              continue;
            }
            at = i + 1;
            if (b.isEmpty()) {
              throw new MalformedSignalException("an empty quoted name in '" + s + "'");
            }
            return b.toString();
          }
          b.append(c);
          i++;
        }
        throw new MalformedSignalException("an unterminated quoted name in '" + s + "'");
      }
      Matcher m = UNQUOTED.matcher(s).region(at, s.length());
      if (!m.lookingAt()) {
        throw new MalformedSignalException(
            "expected a table name (schema.table) at '" + s.substring(at) + "'");
      }
      at = m.end();
      return m.group().toLowerCase(Locale.ROOT);
    }
  }
}
