package io.trellara.identity.codec;

import io.trellara.identity.RowIdentityException;
import io.trellara.identity.TypeTag;
import java.nio.charset.StandardCharsets;

/**
 * float4/float8: -0 becomes +0 and every NaN the quiet NaN, then the sortable IEEE transform
 * (negative: invert all bits; else flip the sign bit), so NaN sorts after +Infinity as in
 * PostgreSQL.
 */
final class FloatCodec implements FieldCodec {
  static final FloatCodec FLOAT4 = new FloatCodec(TypeTag.FLOAT4);
  static final FloatCodec FLOAT8 = new FloatCodec(TypeTag.FLOAT8);

  private final TypeTag tag;

  private FloatCodec(TypeTag tag) {
    this.tag = tag;
  }

  @Override
  public TypeTag tag() {
    return tag;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    double d = parse(v, off, end);
    if (tag == TypeTag.FLOAT4) {
      writeFloat4(Float.floatToRawIntBits((float) d), out);
    } else {
      writeFloat8(Double.doubleToRawLongBits(d), out);
    }
  }

  private double parse(byte[] v, int off, int end) {
    if (Ascii.equalsIgnoreCase(v, off, end, "nan")) {
      return Double.NaN;
    }
    if (Ascii.equalsIgnoreCase(v, off, end, "infinity")
        || Ascii.equalsIgnoreCase(v, off, end, "inf")
        || Ascii.equalsIgnoreCase(v, off, end, "+infinity")) {
      return Double.POSITIVE_INFINITY;
    }
    if (Ascii.equalsIgnoreCase(v, off, end, "-infinity")
        || Ascii.equalsIgnoreCase(v, off, end, "-inf")) {
      return Double.NEGATIVE_INFINITY;
    }
    checkDecimalSyntax(v, off, end);
    // Shortest round-trip output (extra_float_digits=3) parses back exactly; the JDK parser is
    // correctly rounded and locale-free. Syntax is checked first so no JDK-only form ("1d", hex)
    // passes.
    String s = new String(v, off, end - off, StandardCharsets.US_ASCII);
    if (tag == TypeTag.FLOAT4) {
      float f = Float.parseFloat(s);
      if (Float.isInfinite(f)) {
        throw new RowIdentityException("float4 value out of range: " + s);
      }
      return f;
    }
    double d = Double.parseDouble(s);
    if (Double.isInfinite(d)) {
      throw new RowIdentityException("float8 value out of range: " + s);
    }
    return d;
  }

  private void checkDecimalSyntax(byte[] v, int off, int end) {
    int i = off;
    if (i < end && (v[i] == '-' || v[i] == '+')) {
      i++;
    }
    int digits = 0;
    while (i < end && Ascii.isDigit(v[i])) {
      i++;
      digits++;
    }
    if (i < end && v[i] == '.') {
      i++;
      while (i < end && Ascii.isDigit(v[i])) {
        i++;
        digits++;
      }
    }
    if (digits == 0) {
      throw Ascii.invalid(tag.sqlName(), v, off, end);
    }
    if (i < end && (v[i] == 'e' || v[i] == 'E')) {
      i++;
      if (i < end && (v[i] == '-' || v[i] == '+')) {
        i++;
      }
      int exp = 0;
      while (i < end && Ascii.isDigit(v[i])) {
        i++;
        exp++;
      }
      if (exp == 0) {
        throw Ascii.invalid(tag.sqlName(), v, off, end);
      }
    }
    if (i != end) {
      throw Ascii.invalid(tag.sqlName(), v, off, end);
    }
  }

  static void writeFloat4(int bits, IdentityBuffer out) {
    if ((bits & 0x7F80_0000) == 0x7F80_0000 && (bits & 0x007F_FFFF) != 0) {
      bits = 0x7FC0_0000;
    } else if (bits == 0x8000_0000) {
      bits = 0;
    }
    out.putU32(bits < 0 ? ~bits : bits ^ 0x8000_0000);
  }

  static void writeFloat8(long bits, IdentityBuffer out) {
    if ((bits & 0x7FF0_0000_0000_0000L) == 0x7FF0_0000_0000_0000L
        && (bits & 0x000F_FFFF_FFFF_FFFFL) != 0) {
      bits = 0x7FF8_0000_0000_0000L;
    } else if (bits == Long.MIN_VALUE) {
      bits = 0;
    }
    out.putU64(bits < 0 ? ~bits : bits ^ Long.MIN_VALUE);
  }

  @Override
  public boolean supportsBinary() {
    return true;
  }

  @Override
  public void encodeBinary(byte[] v, int off, int end, IdentityBuffer out) {
    if (end - off != tag.fixedWidth()) {
      throw Ascii.invalid(tag.sqlName() + " binary", v, off, end);
    }
    long bits = 0;
    for (int i = off; i < end; i++) {
      bits = (bits << 8) | (v[i] & 0xFF);
    }
    if (tag == TypeTag.FLOAT4) {
      writeFloat4((int) bits, out);
    } else {
      writeFloat8(bits, out);
    }
  }

  /** Decoding: the sortable transform undone; Java's shortest repr parses back to the same bits. */
  static String render(TypeTag tag, IdentityReader in) {
    if (tag == TypeTag.FLOAT4) {
      int t = in.u32();
      return Float.toString(Float.intBitsToFloat(t < 0 ? t ^ 0x80000000 : ~t));
    }
    long t = in.u64();
    return Double.toString(Double.longBitsToDouble(t < 0 ? t ^ Long.MIN_VALUE : ~t));
  }
}
