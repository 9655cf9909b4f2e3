package io.trellara.source.pgoutput;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growing byte buffer that writes pgoutput's wire types (big-endian Int8/16/32/64, NUL-terminated
 * strings): what {@link PgOutputParser} reads. Reused across messages: {@link #reset()} starts the
 * next one in the same array.
 */
public final class WireWriter {
  private byte[] buf = new byte[256];
  private int len;

  public void reset() {
    len = 0;
  }

  /** The bytes written since {@link #reset()}: [0, {@link #length()}) of {@link #array()}. */
  public byte[] array() {
    return buf;
  }

  public int length() {
    return len;
  }

  /** A view of what was written, valid until the next write. */
  public ByteBuffer view() {
    return ByteBuffer.wrap(buf, 0, len);
  }

  public void u8(int v) {
    ensure(1);
    buf[len++] = (byte) v;
  }

  public void i16(int v) {
    ensure(2);
    buf[len++] = (byte) (v >>> 8);
    buf[len++] = (byte) v;
  }

  public void i32(long v) {
    ensure(4);
    for (int s = 24; s >= 0; s -= 8) {
      buf[len++] = (byte) (v >>> s);
    }
  }

  public void i64(long v) {
    ensure(8);
    for (int s = 56; s >= 0; s -= 8) {
      buf[len++] = (byte) (v >>> s);
    }
  }

  /**
   * Int32 {@code v} over the four bytes at {@code at} (a length known only once what follows is
   * written).
   */
  public void i32At(int at, int v) {
    buf[at] = (byte) (v >>> 24);
    buf[at + 1] = (byte) (v >>> 16);
    buf[at + 2] = (byte) (v >>> 8);
    buf[at + 3] = (byte) v;
  }

  public void cstring(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    bytes(b, 0, b.length);
    u8(0);
  }

  public void bytes(byte[] b, int off, int n) {
    ensure(n);
    System.arraycopy(b, off, buf, len, n);
    len += n;
  }

  public void bytes(ByteBuffer b) {
    int n = b.remaining();
    ensure(n);
    b.get(buf, len, n);
    len += n;
  }

  /**
   * Room for {@code more} bytes, for a caller writing them itself through {@link #array()} and
   * {@link #skip}.
   */
  public void ensure(int more) {
    if (len + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
    }
  }

  /** Counts {@code n} bytes the caller wrote into {@link #array()} at {@link #length()}. */
  public void skip(int n) {
    len += n;
  }
}
