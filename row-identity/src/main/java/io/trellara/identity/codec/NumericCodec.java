package io.trellara.identity.codec;

import io.trellara.identity.RowIdentityException;
import io.trellara.identity.TypeTag;
import java.nio.charset.StandardCharsets;

/**
 * numeric: class byte (00 -Inf, 01 negative, 02 zero, 03 positive, 04 +Inf, 05 NaN); finite
 * non-zero values as d1.d2..dn x 10^E: E as a sign-flipped i32, then the ASCII digits d1..dn
 * escaped and ended by 00 00; a negative value complements every byte after the class byte. No
 * digit count (it would break order: 0.4 must sort above 0.35). Scale is dropped, so 1.0 and 1.00
 * encode the same.
 */
public final class NumericCodec implements FieldCodec {
  public static final NumericCodec INSTANCE = new NumericCodec();

  public static final int NEG_INFINITY = 0x00;
  public static final int NEGATIVE = 0x01;
  public static final int ZERO = 0x02;
  public static final int POSITIVE = 0x03;
  public static final int POS_INFINITY = 0x04;
  public static final int NAN = 0x05;

  @Override
  public TypeTag tag() {
    return TypeTag.NUMERIC;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    write(v, off, end, out, "numeric");
  }

  /** Shared with jsonb numbers, which compare as numeric. */
  static void write(byte[] v, int off, int end, IdentityBuffer out, String type) {
    if (Ascii.equalsIgnoreCase(v, off, end, "nan")) {
      out.put(NAN);
      return;
    }
    if (Ascii.equalsIgnoreCase(v, off, end, "infinity")
        || Ascii.equalsIgnoreCase(v, off, end, "+infinity")
        || Ascii.equalsIgnoreCase(v, off, end, "inf")) {
      out.put(POS_INFINITY);
      return;
    }
    if (Ascii.equalsIgnoreCase(v, off, end, "-infinity")
        || Ascii.equalsIgnoreCase(v, off, end, "-inf")) {
      out.put(NEG_INFINITY);
      return;
    }
    int i = off;
    boolean negative = false;
    if (i < end && (v[i] == '-' || v[i] == '+')) {
      negative = v[i] == '-';
      i++;
    }
    int digitCount = 0;
    int integerDigits = -1;
    int firstNonZero = -1; // digit index
    int lastNonZero = -1;
    int firstPos = -1; // byte index of first non-zero digit
    for (; i < end; i++) {
      byte b = v[i];
      if (Ascii.isDigit(b)) {
        if (b != '0') {
          if (firstNonZero < 0) {
            firstNonZero = digitCount;
            firstPos = i;
          }
          lastNonZero = digitCount;
        }
        digitCount++;
      } else if (b == '.' && integerDigits < 0) {
        integerDigits = digitCount;
      } else {
        break;
      }
    }
    if (digitCount == 0) {
      throw Ascii.invalid(type, v, off, end);
    }
    int mantissaEnd = i;
    long exponent = 0;
    if (i < end) {
      if (v[i] != 'e' && v[i] != 'E') {
        throw Ascii.invalid(type, v, off, end);
      }
      exponent = Ascii.parseLong(v, i + 1, end, -1_000_000, 1_000_000, type + " exponent");
    }
    if (integerDigits < 0) {
      integerDigits = digitCount;
    }
    if (firstNonZero < 0) {
      out.put(ZERO); // -0, 0.000 and 0e5 are all numeric zero
      return;
    }
    long e = (long) integerDigits - 1 - firstNonZero + exponent;
    out.put(negative ? NEGATIVE : POSITIVE);
    int mark = out.length();
    out.putI32((int) e);
    out.ensure(lastNonZero - firstNonZero + 3);
    int k = firstNonZero;
    for (int p = firstPos; p < mantissaEnd && k <= lastNonZero; p++) {
      if (v[p] != '.') {
        out.put(v[p]);
        k++;
      }
    }
    out.putEnd();
    if (negative) {
      out.complementFrom(mark);
    }
  }

  /**
   * Decoding, shared with jsonb numbers: the class byte, then for finite non-zero values the
   * exponent and digits up to 00 00 (FF FF while still complemented), rendered as a plain decimal
   * (scientific beyond exponent +-1000).
   */
  static String render(IdentityReader in) {
    int cls = in.u8();
    switch (cls) {
      case NEG_INFINITY:
        return "-Infinity";
      case ZERO:
        return "0";
      case POS_INFINITY:
        return "Infinity";
      case NAN:
        return "NaN";
      case POSITIVE:
      case NEGATIVE:
        break;
      default:
        throw new RowIdentityException("invalid numeric class " + cls);
    }
    boolean negative = cls == NEGATIVE;
    byte[] raw = in.upToPair(4, negative ? 0xFF : 0x00);
    if (negative) {
      for (int i = 0; i < raw.length; i++) {
        raw[i] = (byte) ~raw[i];
      }
    }
    int e =
        ((raw[0] & 0xFF) << 24 | (raw[1] & 0xFF) << 16 | (raw[2] & 0xFF) << 8 | (raw[3] & 0xFF))
            ^ 0x80000000;
    String digits = new String(raw, 4, raw.length - 4, StandardCharsets.US_ASCII);
    if (digits.isEmpty() || !digits.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
      throw new RowIdentityException("invalid numeric digits");
    }
    return (negative ? "-" : "") + plainDecimal(digits, e);
  }

  private static String plainDecimal(String digits, int e) {
    if (e > 1000 || e < -1000) {
      return digits.charAt(0) + (digits.length() > 1 ? "." + digits.substring(1) : "") + "e" + e;
    }
    StringBuilder sb = new StringBuilder();
    if (e < 0) {
      sb.append("0.");
      sb.append("0".repeat(-e - 1)).append(digits);
    } else if (digits.length() > e + 1) {
      sb.append(digits, 0, e + 1).append('.').append(digits, e + 1, digits.length());
    } else {
      sb.append(digits).append("0".repeat(e + 1 - digits.length()));
    }
    return sb.toString();
  }
}
