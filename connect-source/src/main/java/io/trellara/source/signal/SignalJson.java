package io.trellara.source.signal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict, small JSON reader for signal records from Kafka (the plugin carries no JSON library):
 * objects become {@link Map}s, arrays {@link List}s, strings {@link String}s, numbers their text as
 * {@link Number}s ({@link Double}), {@code true}/{@code false} {@link Boolean}s and {@code null}
 * null. Bounded: at most {@link #MAX_DEPTH} levels of nesting (the caller bounds the length).
 */
final class SignalJson {
  static final int MAX_DEPTH = 16;

  private final String s;
  private int at;

  private SignalJson(String s) {
    this.s = s;
  }

  /** The one value {@code text} holds; anything else (or trailing text) is refused. */
  static Object parse(String text) throws MalformedSignalException {
    SignalJson p = new SignalJson(text);
    Object v = p.value(0);
    p.blanks();
    if (p.at != text.length()) {
      throw p.error("unexpected text after the JSON value");
    }
    return v;
  }

  private Object value(int depth) throws MalformedSignalException {
    if (depth > MAX_DEPTH) {
      throw error("nested deeper than " + MAX_DEPTH + " levels");
    }
    blanks();
    if (at >= s.length()) {
      throw error("a JSON value was expected");
    }
    char c = s.charAt(at);
    return switch (c) {
      case '{' -> object(depth);
      case '[' -> array(depth);
      case '"' -> string();
      case 't' -> literal("true", Boolean.TRUE);
      case 'f' -> literal("false", Boolean.FALSE);
      case 'n' -> literal("null", null);
      default -> number();
    };
  }

  private Map<String, Object> object(int depth) throws MalformedSignalException {
    Map<String, Object> m = new LinkedHashMap<>();
    at++;
    blanks();
    if (peek('}')) {
      at++;
      return m;
    }
    while (true) {
      blanks();
      if (!peek('"')) {
        throw error("a quoted member name was expected");
      }
      String name = string();
      blanks();
      expect(':');
      if (m.containsKey(name)) {
        throw error("member '" + name + "' is given twice");
      }
      m.put(name, value(depth + 1));
      blanks();
      if (peek(',')) {
        at++;
        continue;
      }
      expect('}');
      return m;
    }
  }

  private List<Object> array(int depth) throws MalformedSignalException {
    List<Object> l = new ArrayList<>();
    at++;
    blanks();
    if (peek(']')) {
      at++;
      return l;
    }
    while (true) {
      l.add(value(depth + 1));
      blanks();
      if (peek(',')) {
        at++;
        continue;
      }
      expect(']');
      return l;
    }
  }

  private String string() throws MalformedSignalException {
    StringBuilder b = new StringBuilder();
    at++;
    while (at < s.length()) {
      char c = s.charAt(at++);
      if (c == '"') {
        return b.toString();
      }
      if (c < 0x20) {
        throw error("a control character inside a string");
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      if (at >= s.length()) {
        break;
      }
      char e = s.charAt(at++);
      switch (e) {
        case '"', '\\', '/' -> b.append(e);
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'n' -> b.append('\n');
        case 'r' -> b.append('\r');
        case 't' -> b.append('\t');
        case 'u' -> {
          if (at + 4 > s.length()) {
            throw error("a short \\u escape");
          }
          try {
            b.append((char) Integer.parseInt(s.substring(at, at + 4), 16));
          } catch (NumberFormatException x) {
            throw error("a bad \\u escape");
          }
          at += 4;
        }
        default -> throw error("an unknown escape \\" + e);
      }
    }
    throw error("an unterminated string");
  }

  private Object literal(String word, Object v) throws MalformedSignalException {
    if (!s.startsWith(word, at)) {
      throw error("a JSON value was expected");
    }
    at += word.length();
    return v;
  }

  private Number number() throws MalformedSignalException {
    int start = at;
    while (at < s.length() && "+-0123456789.eE".indexOf(s.charAt(at)) >= 0) {
      at++;
    }
    String n = s.substring(start, at);
    if (n.isEmpty() || !n.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
      at = start;
      throw error("a JSON value was expected");
    }
    return Double.valueOf(n);
  }

  private void blanks() {
    while (at < s.length() && " \t\r\n".indexOf(s.charAt(at)) >= 0) {
      at++;
    }
  }

  private boolean peek(char c) {
    return at < s.length() && s.charAt(at) == c;
  }

  private void expect(char c) throws MalformedSignalException {
    if (!peek(c)) {
      throw error("'" + c + "' was expected");
    }
    at++;
  }

  private MalformedSignalException error(String what) {
    return new MalformedSignalException("the value is not JSON: " + what + " at character " + at);
  }
}
