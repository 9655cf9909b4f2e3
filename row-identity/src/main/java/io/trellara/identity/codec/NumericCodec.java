package io.trellara.identity.codec;

import io.trellara.identity.TypeTag;

/**
 * numeric: class byte (00 -Inf, 01 negative, 02 zero, 03 positive, 04 +Inf, 05 NaN); finite non-zero
 * values as d1.d2..dn x 10^E: E as a sign-flipped i32, then the ASCII digits d1..dn escaped and ended by
 * 00 00; a negative value complements every byte after the class byte. No digit count (it would break
 * order: 0.4 must sort above 0.35). Scale is dropped, so 1.0 and 1.00 encode the same.
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
        if (Ascii.equalsIgnoreCase(v, off, end, "infinity") || Ascii.equalsIgnoreCase(v, off, end, "+infinity")
                || Ascii.equalsIgnoreCase(v, off, end, "inf")) {
            out.put(POS_INFINITY);
            return;
        }
        if (Ascii.equalsIgnoreCase(v, off, end, "-infinity") || Ascii.equalsIgnoreCase(v, off, end, "-inf")) {
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
}
