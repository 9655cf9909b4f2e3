package io.trellara.identity.codec;

import io.trellara.identity.RowIdentityException;
import java.util.Arrays;

/**
 * Growable scratch buffer that every encoder writes into; one per resolved encoder, reused per row.
 * The 1 MiB identity limit is enforced here, before the array grows.
 */
public final class IdentityBuffer {
  public static final int MAX_IDENTITY_BYTES = 1 << 20;

  private byte[] buf;
  private int len;

  public IdentityBuffer(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  public void reset() {
    len = 0;
  }

  public int length() {
    return len;
  }

  public byte[] array() {
    return buf;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buf, len);
  }

  public void ensure(int extra) {
    long need = (long) len + extra;
    if (need > MAX_IDENTITY_BYTES) {
      throw new RowIdentityException(
          "identity exceeds " + MAX_IDENTITY_BYTES + " bytes (would need " + need + ")");
    }
    if (need > buf.length) {
      int grown = (int) Math.min(MAX_IDENTITY_BYTES, Math.max(need, (long) buf.length * 2));
      buf = Arrays.copyOf(buf, grown);
    }
  }

  public void put(int b) {
    ensure(1);
    buf[len++] = (byte) b;
  }

  public void putU16(int v) {
    ensure(2);
    buf[len++] = (byte) (v >>> 8);
    buf[len++] = (byte) v;
  }

  public void putU32(int v) {
    ensure(4);
    buf[len++] = (byte) (v >>> 24);
    buf[len++] = (byte) (v >>> 16);
    buf[len++] = (byte) (v >>> 8);
    buf[len++] = (byte) v;
  }

  public void putU64(long v) {
    ensure(8);
    for (int shift = 56; shift >= 0; shift -= 8) {
      buf[len++] = (byte) (v >>> shift);
    }
  }

  /** Signed transform: XOR the sign bit so unsigned byte order equals signed numeric order. */
  public void putI32(int v) {
    putU32(v ^ 0x80000000);
  }

  public void putI64(long v) {
    putU64(v ^ Long.MIN_VALUE);
  }

  public void putBytes(byte[] src, int off, int n) {
    ensure(n);
    System.arraycopy(src, off, buf, len, n);
    len += n;
  }

  /** One payload byte of a variable-width value: 00 becomes 00 FF. */
  public void putEscaped(int b) {
    if ((b & 0xFF) == 0) {
      ensure(2);
      buf[len++] = 0;
      buf[len++] = (byte) 0xFF;
    } else {
      put(b);
    }
  }

  /** Escape a byte range: runs without 0x00 are copied in bulk (the common case is one copy). */
  public void putEscaped(byte[] src, int off, int n) {
    ensure(n + 2); // room for the bytes and the terminator; each 0x00 reserves one more below
    int end = off + n;
    int start = off;
    for (int i = off; i < end; i++) {
      if (src[i] == 0) {
        int run = i - start;
        System.arraycopy(src, start, buf, len, run);
        len += run;
        ensure(end - i + 3);
        buf[len++] = 0;
        buf[len++] = (byte) 0xFF;
        start = i + 1;
      }
    }
    System.arraycopy(src, start, buf, len, end - start);
    len += end - start;
  }

  /** Value end of a variable-width payload: 00 00 sorts below every escaped byte. */
  public void putEnd() {
    ensure(2);
    buf[len++] = 0;
    buf[len++] = 0;
  }

  /**
   * Reserve a u32 length slot for a nested value; returns its position for {@link #closeLength}.
   */
  public int openLength() {
    putU32(0);
    return len - 4;
  }

  public void closeLength(int slot) {
    int n = len - slot - 4;
    buf[slot] = (byte) (n >>> 24);
    buf[slot + 1] = (byte) (n >>> 16);
    buf[slot + 2] = (byte) (n >>> 8);
    buf[slot + 3] = (byte) n;
  }

  /** Invert every byte from {@code from} to the end (negative numeric magnitudes). */
  public void complementFrom(int from) {
    for (int i = from; i < len; i++) {
      buf[i] = (byte) ~buf[i];
    }
  }

  public void set(int pos, int b) {
    buf[pos] = (byte) b;
  }

  public void truncate(int newLength) {
    len = newLength;
  }
}
