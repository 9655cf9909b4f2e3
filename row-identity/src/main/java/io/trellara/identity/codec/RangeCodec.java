package io.trellara.identity.codec;

import io.trellara.identity.DecodedField;
import io.trellara.identity.RowIdentityException;
import io.trellara.identity.TypeTag;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Ranges: u32 BE byte length, then PostgreSQL's range flags (EMPTY 01, LB_INC 02, UB_INC 04, LB_INF
 * 08, UB_INF 10), the finite bounds as framed fields (lower first), tuple end FF. Bounds are
 * canonical: discrete subtypes (int4, int8, date) in [lower, upper) form, an empty range has only
 * the flag, and an infinite bound is never inclusive.
 */
final class RangeCodec implements FieldCodec {
  static final int EMPTY = 0x01;
  static final int LB_INC = 0x02;
  static final int UB_INC = 0x04;
  static final int LB_INF = 0x08;
  static final int UB_INF = 0x10;

  private final FieldCodec subtype;

  RangeCodec(FieldCodec subtype) {
    this.subtype = subtype;
  }

  @Override
  public TypeTag tag() {
    return TypeTag.RANGE;
  }

  private boolean discrete() {
    TypeTag t = subtype.tag();
    return t == TypeTag.INT4 || t == TypeTag.INT8 || t == TypeTag.DATE;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    int inner = Structural.enter(depth, "range");
    Structural.Cursor c = new Structural.Cursor(v, off, end, subtype.tag().sqlName() + " range");
    c.skipSpace();
    int slot = out.openLength();
    if (Ascii.equalsIgnoreCase(v, c.pos, trimEnd(v, c.pos, end), "empty")) {
      writeEmpty(out, slot);
      return;
    }
    boolean lowerInclusive = c.at('[');
    if (!lowerInclusive && !c.at('(')) {
      throw c.invalid();
    }
    c.pos++;
    byte[] lower = c.element(",", "", true);
    c.expect(',');
    byte[] upper = c.element(")]", "", true);
    boolean upperInclusive = c.at(']');
    if (!upperInclusive && !c.at(')')) {
      throw c.invalid();
    }
    c.pos++;
    c.skipSpace();
    if (c.pos != end) {
      throw c.invalid();
    }
    writeRange(lower, lowerInclusive, upper, upperInclusive, out, slot, inner);
  }

  private static int trimEnd(byte[] v, int off, int end) {
    while (end > off && v[end - 1] == ' ') {
      end--;
    }
    return end;
  }

  private static void writeEmpty(IdentityBuffer out, int slot) {
    out.truncate(slot + 4);
    out.put(EMPTY);
    out.put(Structural.TUPLE_END);
    out.closeLength(slot);
  }

  private void writeRange(
      byte[] lower,
      boolean lowerInc,
      byte[] upper,
      boolean upperInc,
      IdentityBuffer out,
      int slot,
      int depth) {
    int flagsAt = out.length();
    out.put(0);
    int lowerAt = out.length();
    if (lower != null) {
      Structural.writeField(subtype, lower, 0, lower.length, out, depth);
      if (discrete() && !lowerInc) {
        increment(out, lowerAt + 2);
        lowerInc = true;
      }
    }
    int upperAt = out.length();
    if (upper != null) {
      Structural.writeField(subtype, upper, 0, upper.length, out, depth);
      if (discrete() && upperInc) {
        increment(out, upperAt + 2);
        upperInc = false;
      }
    }
    if (lower != null && upper != null) {
      int cmp =
          Arrays.compareUnsigned(out.array(), lowerAt, upperAt, out.array(), upperAt, out.length());
      if (cmp > 0) {
        throw new RowIdentityException(
            "range lower bound must be less than or equal to range upper bound");
      }
      if (cmp == 0 && !(lowerInc && upperInc)) {
        writeEmpty(out, slot);
        return;
      }
    }
    int flags =
        (lower == null ? LB_INF : lowerInc ? LB_INC : 0)
            | (upper == null ? UB_INF : upperInc ? UB_INC : 0);
    out.set(flagsAt, flags);
    out.put(Structural.TUPLE_END);
    out.closeLength(slot);
  }

  /**
   * Add one to an encoded discrete bound in place (its transformed big-endian integer), leaving
   * date infinities alone as PostgreSQL's daterange_canonical does.
   */
  private void increment(IdentityBuffer out, int payloadAt) {
    int width = subtype.tag().fixedWidth();
    byte[] a = out.array();
    if (subtype.tag() == TypeTag.DATE
        && (isExtreme(a, payloadAt, width, 0xFF) || isExtreme(a, payloadAt, width, 0x00))) {
      return;
    }
    if (isExtreme(a, payloadAt, width, 0xFF)) {
      throw new RowIdentityException(subtype.tag().sqlName() + " out of range");
    }
    for (int i = payloadAt + width - 1; i >= payloadAt; i--) {
      a[i]++;
      if (a[i] != 0) {
        break;
      }
    }
  }

  private static boolean isExtreme(byte[] a, int at, int width, int fill) {
    for (int i = 0; i < width; i++) {
      if ((a[at + i] & 0xFF) != fill) {
        return false;
      }
    }
    return true;
  }

  /** Decoding: the flags, then the finite bounds; "empty" for the empty range. */
  static DecodedField decode(FieldRenderer r, int depth) {
    int flags = r.in().u8();
    List<DecodedField> bounds = new ArrayList<>(2);
    if ((flags & EMPTY) != 0) {
      r.expectTupleEnd();
      return new DecodedField(TypeTag.RANGE, false, "empty", bounds);
    }
    String lower = "";
    String upper = "";
    if ((flags & LB_INF) == 0) {
      DecodedField f = bound(r, depth, "lower");
      bounds.add(f);
      lower = Structural.quote(f.value(), "()[],\"\\ ", false);
    }
    if ((flags & UB_INF) == 0) {
      DecodedField f = bound(r, depth, "upper");
      bounds.add(f);
      upper = Structural.quote(f.value(), "()[],\"\\ ", false);
    }
    r.expectTupleEnd();
    String text =
        ((flags & LB_INC) != 0 ? "[" : "(")
            + lower
            + ","
            + upper
            + ((flags & UB_INC) != 0 ? "]" : ")");
    return new DecodedField(TypeTag.RANGE, false, text, bounds);
  }

  /**
   * A finite bound is a value: a NULL there is malformed (the encoder writes an infinite bound as a
   * flag).
   */
  private static DecodedField bound(FieldRenderer r, int depth, String which) {
    int at = r.in().position();
    DecodedField f = r.field(depth);
    if (f.isNull()) {
      throw new io.trellara.identity.RowIdentityException(
          "range "
              + which
              + " bound at byte "
              + at
              + " is NULL; a finite bound must carry a value");
    }
    return f;
  }
}
