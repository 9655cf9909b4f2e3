package io.trellara.identity.codec;

import io.trellara.identity.RowIdentityException;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * The reading side of {@link IdentityBuffer}: a cursor over {@code b[pos, end)} that fails with the
 * absolute byte position when the identity ends early. Positions stay absolute in nested readers,
 * so an error names the byte in the whole identity.
 */
final class IdentityReader {
  private final byte[] b;
  private int pos;
  private final int end;

  IdentityReader(byte[] b, int pos, int end) {
    this.b = b;
    this.pos = pos;
    this.end = end;
  }

  int position() {
    return pos;
  }

  int remaining() {
    return end - pos;
  }

  RowIdentityException truncated() {
    return new RowIdentityException("identity truncated at byte " + pos);
  }

  int u8() {
    if (pos >= end) {
      throw truncated();
    }
    return b[pos++] & 0xFF;
  }

  /** The next byte, not consumed. */
  int peek() {
    if (pos >= end) {
      throw truncated();
    }
    return b[pos] & 0xFF;
  }

  /** {@code n} bytes big-endian, unsigned, {@code n} at most 8. */
  long un(int n) {
    long v = 0;
    for (int i = 0; i < n; i++) {
      v = v << 8 | u8();
    }
    return v;
  }

  int u32() {
    return (int) un(4);
  }

  long u64() {
    return un(8);
  }

  /** Inverse of {@link IdentityBuffer#putI32}. */
  int i32() {
    return u32() ^ 0x80000000;
  }

  /** Inverse of {@link IdentityBuffer#putI64}. */
  long i64() {
    return u64() ^ Long.MIN_VALUE;
  }

  /**
   * Inverse of {@link IdentityBuffer#putEscaped} then {@link IdentityBuffer#putEnd}: bytes up to 00
   * 00.
   */
  byte[] unescaped() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while (true) {
      int c = u8();
      if (c != 0) {
        out.write(c);
        continue;
      }
      int next = u8();
      if (next == 0) {
        return out.toByteArray();
      }
      if (next != 0xFF) {
        throw new RowIdentityException("invalid escape 00 " + Integer.toHexString(next));
      }
      out.write(0);
    }
  }

  /**
   * The bytes from here up to the first pair {@code term term} that starts at least {@code skip}
   * bytes ahead, consuming the pair too (numeric magnitudes, whose end is 00 00, or FF FF when
   * complemented).
   */
  byte[] upToPair(int skip, int term) {
    int p = pos + skip;
    while (p + 1 < end && !((b[p] & 0xFF) == term && (b[p + 1] & 0xFF) == term)) {
      p++;
    }
    if (p + 1 >= end) {
      throw truncated();
    }
    byte[] raw = Arrays.copyOfRange(b, pos, p);
    pos = p + 2;
    return raw;
  }

  /** Everything left, consumed. */
  byte[] rest() {
    byte[] rest = Arrays.copyOfRange(b, pos, end);
    pos = end;
    return rest;
  }

  /** A reader over the next {@code length} bytes, which this reader skips. */
  IdentityReader nested(long length) {
    if (length > end - pos) {
      throw truncated();
    }
    int stop = pos + (int) length;
    IdentityReader nested = new IdentityReader(b, pos, stop);
    pos = stop;
    return nested;
  }
}
