package io.trellara.identity.codec;

import io.trellara.identity.DecodedField;
import io.trellara.identity.RowIdentityException;
import io.trellara.identity.TypeTag;
import java.util.ArrayList;
import java.util.List;

/**
 * Arrays: u32 BE byte length, then NDIM u8, per dimension (lower bound as sign-flipped i32, length
 * u32), element count u32, the elements as framed fields (element tag, state, payload), tuple end
 * FF. Dimensions and lower bounds are part of identity, as in PostgreSQL array equality.
 */
final class ArrayCodec implements FieldCodec {
  private static final int MAX_DIMS = 6; // PostgreSQL's MAXDIM

  private final FieldCodec element;

  ArrayCodec(FieldCodec element) {
    this.element = element;
  }

  @Override
  public TypeTag tag() {
    return TypeTag.ARRAY;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    int inner = Structural.enter(depth, "array");
    Structural.Cursor c = new Structural.Cursor(v, off, end, element.tag().sqlName() + "[]");
    int[] lower = new int[MAX_DIMS];
    int[] declared = new int[MAX_DIMS];
    int declaredDims = readDimensions(c, lower, declared);
    int ndim = countDims(c);
    if (declaredDims > 0 && declaredDims != ndim) {
      throw c.invalid();
    }
    if (declaredDims == 0) {
      java.util.Arrays.fill(lower, 1);
    }
    int slot = out.openLength();
    out.put(ndim);
    int dimsAt = out.length();
    out.ensure(ndim * 8 + 4);
    for (int d = 0; d < ndim; d++) {
      out.putI32(lower[d]);
      out.putU32(0);
    }
    int countAt = out.length();
    out.putU32(0);
    int[] lengths = new int[MAX_DIMS];
    java.util.Arrays.fill(lengths, -1);
    int count = ndim == 0 ? emptyArray(c) : level(c, 0, ndim, lengths, out, inner);
    c.skipSpace();
    if (c.pos != end) {
      throw c.invalid();
    }
    for (int d = 0; d < ndim; d++) {
      if (declaredDims > 0 && declared[d] != lengths[d]) {
        throw c.invalid();
      }
      patchU32(out, dimsAt + d * 8 + 4, lengths[d]);
    }
    patchU32(out, countAt, count);
    out.put(Structural.TUPLE_END);
    out.closeLength(slot);
  }

  private static int emptyArray(Structural.Cursor c) {
    c.skipSpace();
    c.expect('{');
    c.skipSpace();
    c.expect('}');
    return 0;
  }

  private static void patchU32(IdentityBuffer out, int at, int value) {
    out.set(at, value >>> 24);
    out.set(at + 1, value >>> 16);
    out.set(at + 2, value >>> 8);
    out.set(at + 3, value);
  }

  /** Optional "[lo:hi][lo:hi]=" prefix, as printed for non-default lower bounds. */
  private static int readDimensions(Structural.Cursor c, int[] lower, int[] lengths) {
    c.skipSpace();
    int dims = 0;
    while (c.at('[')) {
      if (dims == MAX_DIMS) {
        throw c.invalid();
      }
      int close = Ascii.indexOf(c.v, c.pos, c.end, (byte) ']');
      int colon = Ascii.indexOf(c.v, c.pos, close, (byte) ':');
      if (close < 0 || colon < 0) {
        throw c.invalid();
      }
      long lo =
          Ascii.parseLong(
              c.v, c.pos + 1, colon, Integer.MIN_VALUE, Integer.MAX_VALUE, "array bound");
      long hi =
          Ascii.parseLong(
              c.v, colon + 1, close, Integer.MIN_VALUE, Integer.MAX_VALUE, "array bound");
      if (hi < lo - 1) {
        throw c.invalid();
      }
      lower[dims] = (int) lo;
      lengths[dims++] = (int) (hi - lo + 1);
      c.pos = close + 1;
    }
    if (dims > 0) {
      c.expect('=');
    }
    return dims;
  }

  /** Number of leading '{': the array's dimensionality ("{}" has none). */
  private static int countDims(Structural.Cursor c) {
    c.skipSpace();
    int p = c.pos;
    int n = 0;
    while (p < c.end && (c.v[p] == '{' || c.v[p] == ' ')) {
      if (c.v[p] == '{') {
        n++;
      }
      p++;
    }
    if (n == 1 && p < c.end && c.v[p] == '}') {
      return 0;
    }
    if (n == 0 || n > MAX_DIMS) {
      throw c.invalid();
    }
    return n;
  }

  private int level(
      Structural.Cursor c, int d, int ndim, int[] lengths, IdentityBuffer out, int depth) {
    c.skipSpace();
    c.expect('{');
    int items = 0;
    int elements = 0;
    while (true) {
      c.skipSpace();
      if (d == ndim - 1) {
        byte[] e = c.element(",}", "null", false);
        if (e == null) {
          Structural.writeNull(element, out);
        } else {
          Structural.writeField(element, e, 0, e.length, out, depth);
        }
        elements++;
      } else {
        elements += level(c, d + 1, ndim, lengths, out, depth);
      }
      items++;
      c.skipSpace();
      if (c.at(',')) {
        c.pos++;
        continue;
      }
      c.expect('}');
      break;
    }
    if (lengths[d] >= 0 && lengths[d] != items) {
      throw new RowIdentityException(
          "multidimensional array must have sub-arrays with matching dimensions");
    }
    lengths[d] = items;
    return elements;
  }

  /**
   * Decoding: dimensions, elements (each framed with its own tag), rendered as PostgreSQL prints
   * arrays, with the "[lo:hi]=" prefix only for non-default lower bounds.
   */
  static DecodedField decode(FieldRenderer r, int depth) {
    IdentityReader in = r.in();
    int ndim = in.u8();
    int[] lower = new int[ndim];
    int[] lengths = new int[ndim];
    for (int d = 0; d < ndim; d++) {
      lower[d] = in.i32();
      lengths[d] = in.u32();
    }
    int count = r.count();
    List<DecodedField> elements = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      elements.add(r.field(depth));
    }
    r.expectTupleEnd();
    StringBuilder sb = new StringBuilder();
    boolean defaultBounds = true;
    for (int d = 0; d < ndim; d++) {
      defaultBounds &= lower[d] == 1;
    }
    if (!defaultBounds) {
      for (int d = 0; d < ndim; d++) {
        sb.append('[').append(lower[d]).append(':').append(lower[d] + lengths[d] - 1L).append(']');
      }
      sb.append('=');
    }
    if (ndim == 0) {
      sb.append("{}");
    } else {
      appendLevel(sb, elements, lengths, 0, new int[] {0});
    }
    return new DecodedField(TypeTag.ARRAY, false, sb.toString(), elements);
  }

  private static void appendLevel(
      StringBuilder sb, List<DecodedField> els, int[] lengths, int d, int[] next) {
    sb.append('{');
    for (int i = 0; i < lengths[d]; i++) {
      if (i > 0) {
        sb.append(',');
      }
      if (d == lengths.length - 1) {
        DecodedField e = els.get(next[0]++);
        sb.append(e.isNull() ? "NULL" : Structural.quote(e.value(), "{},\"\\ ", true));
      } else {
        appendLevel(sb, els, lengths, d + 1, next);
      }
    }
    sb.append('}');
  }
}
