package io.trellara.identity.codec;

import io.trellara.identity.RowIdentityException;
import io.trellara.identity.TypeTag;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * jsonb, traversed structurally: u32 BE byte length, then one node. Nodes: null 01, string 02
 * (escaped UTF-8, 00 00), number 03 (numeric payload, so 1.0 = 1.00), false 04, true 05, array 06
 * (nodes, then 00), object 07 (members 01 key-string value-node, keys in jsonb's order: shorter
 * first, then bytes; a duplicate key keeps its last value, as jsonb does; then 00). Input key order
 * never matters.
 */
public final class JsonbCodec implements FieldCodec {
  public static final JsonbCodec INSTANCE = new JsonbCodec();

  public static final int NULL = 0x01;
  public static final int STRING = 0x02;
  public static final int NUMBER = 0x03;
  public static final int FALSE = 0x04;
  public static final int TRUE = 0x05;
  public static final int ARRAY = 0x06;
  public static final int OBJECT = 0x07;
  public static final int MEMBER = 0x01;
  public static final int CONTAINER_END = 0x00;

  /** jsonb's key order: length first, then bytes. */
  public static int compareKeys(byte[] a, byte[] b) {
    return a.length != b.length
        ? Integer.compare(a.length, b.length)
        : Arrays.compareUnsigned(a, b);
  }

  @Override
  public TypeTag tag() {
    return TypeTag.JSONB;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    Parser p = new Parser(v, off, end);
    p.skipSpace();
    Object root = p.value(depth);
    p.skipSpace();
    if (p.pos != end) {
      throw p.invalid();
    }
    int slot = out.openLength();
    writeNode(root, out);
    out.closeLength(slot);
  }

  private record Num(byte[] v, int off, int end) {}

  private static void writeNode(Object node, IdentityBuffer out) {
    if (node == null) {
      out.put(NULL);
    } else if (node instanceof byte[] s) {
      out.put(STRING);
      out.putEscaped(s, 0, s.length);
      out.putEnd();
    } else if (node instanceof Num n) {
      out.put(NUMBER);
      NumericCodec.write(n.v, n.off, n.end, out, "jsonb number");
    } else if (node instanceof Boolean b) {
      out.put(b ? TRUE : FALSE);
    } else if (node instanceof List<?> list) {
      out.put(ARRAY);
      for (Object e : list) {
        writeNode(e, out);
      }
      out.put(CONTAINER_END);
    } else {
      out.put(OBJECT);
      for (var e : ((TreeMap<?, ?>) node).entrySet()) {
        byte[] key = (byte[]) e.getKey();
        out.put(MEMBER);
        out.putEscaped(key, 0, key.length);
        out.putEnd();
        writeNode(e.getValue(), out);
      }
      out.put(CONTAINER_END);
    }
  }

  /**
   * Strict RFC 8259 parser producing byte[] strings, Num, Boolean, null, List and sorted TreeMap.
   */
  private static final class Parser {
    private final byte[] v;
    private int pos;
    private final int start;
    private final int end;

    Parser(byte[] v, int off, int end) {
      this.v = v;
      this.pos = off;
      this.start = off;
      this.end = end;
    }

    RowIdentityException invalid() {
      return Ascii.invalid("jsonb", v, start, end);
    }

    void skipSpace() {
      while (pos < end && (v[pos] == ' ' || v[pos] == '\t' || v[pos] == '\n' || v[pos] == '\r')) {
        pos++;
      }
    }

    Object value(int depth) {
      if (pos >= end) {
        throw invalid();
      }
      switch (v[pos]) {
        case '{' -> {
          return object(Structural.enter(depth, "jsonb"));
        }
        case '[' -> {
          return array(Structural.enter(depth, "jsonb"));
        }
        case '"' -> {
          return string();
        }
        case 't' -> {
          return literal("true", Boolean.TRUE);
        }
        case 'f' -> {
          return literal("false", Boolean.FALSE);
        }
        case 'n' -> {
          return literal("null", null);
        }
        default -> {
          return number();
        }
      }
    }

    private Object literal(String word, Object value) {
      if (end - pos < word.length()
          || !Ascii.equalsIgnoreCase(v, pos, pos + word.length(), word)
          || v[pos] != word.charAt(0)) {
        throw invalid();
      }
      for (int i = 0; i < word.length(); i++) {
        if (v[pos + i] != word.charAt(i)) {
          throw invalid();
        }
      }
      pos += word.length();
      return value;
    }

    private Object object(int depth) {
      pos++;
      TreeMap<byte[], Object> members = new TreeMap<>(JsonbCodec::compareKeys);
      skipSpace();
      if (pos < end && v[pos] == '}') {
        pos++;
        return members;
      }
      while (true) {
        skipSpace();
        if (pos >= end || v[pos] != '"') {
          throw invalid();
        }
        byte[] key = string();
        skipSpace();
        expect(':');
        skipSpace();
        members.put(key, value(depth)); // a later duplicate replaces the earlier one
        skipSpace();
        if (pos < end && v[pos] == ',') {
          pos++;
          continue;
        }
        expect('}');
        return members;
      }
    }

    private Object array(int depth) {
      pos++;
      List<Object> items = new ArrayList<>();
      skipSpace();
      if (pos < end && v[pos] == ']') {
        pos++;
        return items;
      }
      while (true) {
        skipSpace();
        items.add(value(depth));
        skipSpace();
        if (pos < end && v[pos] == ',') {
          pos++;
          continue;
        }
        expect(']');
        return items;
      }
    }

    private void expect(char c) {
      if (pos >= end || v[pos] != c) {
        throw invalid();
      }
      pos++;
    }

    private byte[] string() {
      pos++;
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      while (true) {
        if (pos >= end) {
          throw invalid();
        }
        byte c = v[pos++];
        if (c == '"') {
          return b.toByteArray();
        }
        if ((c & 0xFF) < 0x20) {
          throw invalid();
        }
        if (c != '\\') {
          b.write(c);
          continue;
        }
        if (pos >= end) {
          throw invalid();
        }
        byte e = v[pos++];
        switch (e) {
          case '"', '\\', '/' -> b.write(e);
          case 'b' -> b.write('\b');
          case 'f' -> b.write('\f');
          case 'n' -> b.write('\n');
          case 'r' -> b.write('\r');
          case 't' -> b.write('\t');
          case 'u' -> writeCodePoint(b);
          default -> throw invalid();
        }
      }
    }

    private int hex4() {
      if (end - pos < 4) {
        throw invalid();
      }
      int cp = 0;
      for (int i = 0; i < 4; i++) {
        int h = Ascii.hexValue(v[pos++]);
        if (h < 0) {
          throw invalid();
        }
        cp = cp << 4 | h;
      }
      return cp;
    }

    private void writeCodePoint(ByteArrayOutputStream b) {
      int cp = hex4();
      if (cp == 0) {
        throw new RowIdentityException("jsonb cannot contain \\u0000");
      }
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (end - pos < 6 || v[pos] != '\\' || v[pos + 1] != 'u') {
          throw invalid();
        }
        pos += 2;
        int low = hex4();
        if (low < 0xDC00 || low > 0xDFFF) {
          throw invalid();
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        throw invalid();
      }
      byte[] utf8 =
          new String(Character.toChars(cp)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      b.write(utf8, 0, utf8.length);
    }

    private Object number() {
      int s = pos;
      if (pos < end && v[pos] == '-') {
        pos++;
      }
      int intStart = pos;
      while (pos < end && Ascii.isDigit(v[pos])) {
        pos++;
      }
      if (pos == intStart || (v[intStart] == '0' && pos - intStart > 1)) {
        throw invalid();
      }
      if (pos < end && v[pos] == '.') {
        pos++;
        int f = pos;
        while (pos < end && Ascii.isDigit(v[pos])) {
          pos++;
        }
        if (pos == f) {
          throw invalid();
        }
      }
      if (pos < end && (v[pos] == 'e' || v[pos] == 'E')) {
        pos++;
        if (pos < end && (v[pos] == '+' || v[pos] == '-')) {
          pos++;
        }
        int x = pos;
        while (pos < end && Ascii.isDigit(v[pos])) {
          pos++;
        }
        if (pos == x) {
          throw invalid();
        }
      }
      return new Num(v, s, pos);
    }
  }

  /**
   * Decoding: the node tree as jsonb prints it ({@code ", "} and {@code ": "} separators, keys in
   * order).
   */
  static String render(IdentityReader in, int depth) {
    StringBuilder sb = new StringBuilder();
    renderNode(in, sb, depth);
    return sb.toString();
  }

  private static void renderNode(IdentityReader in, StringBuilder sb, int depth) {
    int kind = in.u8();
    switch (kind) {
      case NULL -> sb.append("null");
      case FALSE -> sb.append("false");
      case TRUE -> sb.append("true");
      case NUMBER -> sb.append(NumericCodec.render(in));
      case STRING -> renderString(sb, in.unescaped());
      case ARRAY -> {
        int inner = Structural.enter(depth, "jsonb");
        sb.append('[');
        for (int i = 0; in.peek() != CONTAINER_END; i++) {
          sb.append(i == 0 ? "" : ", ");
          renderNode(in, sb, inner);
        }
        in.u8();
        sb.append(']');
      }
      case OBJECT -> {
        int inner = Structural.enter(depth, "jsonb");
        sb.append('{');
        for (int i = 0; objectMember(in); i++) {
          sb.append(i == 0 ? "" : ", ");
          renderString(sb, in.unescaped());
          sb.append(": ");
          renderNode(in, sb, inner);
        }
        sb.append('}');
      }
      default -> throw new RowIdentityException("invalid jsonb node kind " + kind);
    }
  }

  /** True at a member marker, false at the object's end; anything else is malformed. */
  private static boolean objectMember(IdentityReader in) {
    int marker = in.u8();
    if (marker != MEMBER && marker != CONTAINER_END) {
      throw new RowIdentityException("invalid jsonb object marker " + marker);
    }
    return marker == MEMBER;
  }

  private static void renderString(StringBuilder sb, byte[] utf8) {
    String s = new String(utf8, StandardCharsets.UTF_8);
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20) {
        Ascii.appendHex(sb.append("\\u00"), c);
      } else {
        sb.append(c);
      }
    }
    sb.append('"');
  }
}
