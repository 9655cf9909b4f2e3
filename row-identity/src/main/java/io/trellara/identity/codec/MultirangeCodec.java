package io.trellara.identity.codec;

import io.trellara.identity.DecodedField;
import io.trellara.identity.TypeTag;
import java.util.ArrayList;
import java.util.List;

/**
 * Multiranges: u32 BE byte length, range count u32, the ranges as framed range fields in the order
 * PostgreSQL prints them (canonical: sorted, merged, no empties), tuple end FF.
 */
final class MultirangeCodec implements FieldCodec {
  private final RangeCodec range;

  MultirangeCodec(RangeCodec range) {
    this.range = range;
  }

  @Override
  public TypeTag tag() {
    return TypeTag.MULTIRANGE;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    int inner = Structural.enter(depth, "multirange");
    Structural.Cursor c = new Structural.Cursor(v, off, end, "multirange");
    c.skipSpace();
    c.expect('{');
    int slot = out.openLength();
    int countAt = out.length();
    out.putU32(0);
    int count = 0;
    c.skipSpace();
    if (c.at('}')) {
      c.pos++;
    } else {
      while (true) {
        c.skipSpace();
        int start = c.pos;
        skipRange(c);
        Structural.writeField(range, v, start, c.pos, out, inner);
        count++;
        c.skipSpace();
        if (c.at(',')) {
          c.pos++;
          continue;
        }
        c.expect('}');
        break;
      }
    }
    c.skipSpace();
    if (c.pos != end) {
      throw c.invalid();
    }
    out.set(countAt, count >>> 24);
    out.set(countAt + 1, count >>> 16);
    out.set(countAt + 2, count >>> 8);
    out.set(countAt + 3, count);
    out.put(Structural.TUPLE_END);
    out.closeLength(slot);
  }

  /** Advance past one range literal: up to its closing ']' or ')' outside quotes. */
  private static void skipRange(Structural.Cursor c) {
    boolean quoted = false;
    while (c.pos < c.end) {
      byte b = c.v[c.pos++];
      if (b == '\\') {
        c.pos++;
      } else if (b == '"') {
        quoted = !quoted;
      } else if (!quoted && (b == ']' || b == ')')) {
        return;
      }
    }
    throw c.invalid();
  }

  /** Decoding: the range count, then the ranges, rendered as "{range,range}". */
  static DecodedField decode(FieldRenderer r, int depth) {
    int count = r.count();
    List<DecodedField> ranges = new ArrayList<>(count);
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < count; i++) {
      DecodedField range = r.field(depth);
      ranges.add(range);
      sb.append(i == 0 ? "" : ",").append(range.value());
    }
    r.expectTupleEnd();
    return new DecodedField(TypeTag.MULTIRANGE, false, sb.append('}').toString(), ranges);
  }
}
