package io.trellara.sink.postgres.apply;

import com.google.protobuf.ByteString;
import java.util.Arrays;

/**
 * Builds COPY text-format rows as UTF-8 bytes in one reusable buffer: tab between columns, newline
 * after a row, {@code \N} for NULL, and backslash, tab, newline and carriage return escaped inside
 * values.
 */
final class CopyTextEncoder {
  /**
   * Small at first: a writer (and its encoder) lives for one group, often a few rows; a large run
   * grows it.
   */
  private byte[] buf = new byte[1 << 10];

  private int len;

  void reset() {
    len = 0;
  }

  int length() {
    return len;
  }

  byte[] buffer() {
    return buf;
  }

  void nullValue() {
    ensure(2);
    buf[len++] = '\\';
    buf[len++] = 'N';
  }

  void delimiter() {
    ensure(1);
    buf[len++] = '\t';
  }

  void endRow() {
    ensure(1);
    buf[len++] = '\n';
  }

  /**
   * The value's UTF-8 bytes (as the message carries them: protobuf keeps {@code ColumnValue.text}
   * as bytes, and validation has checked they are UTF-8), escaped. No byte of a multi-byte UTF-8
   * sequence is below 0x80, so escaping scans bytes: the value is copied whole, and only one
   * holding a character to escape (rare) is rewritten from that character on.
   */
  void value(ByteString text) {
    int n = text.size();
    ensure(2 * n);
    text.copyTo(buf, len);
    int end = len + n;
    for (int i = len; i < end; i++) {
      if (escaped(buf[i])) {
        byte[] rest = Arrays.copyOfRange(buf, i, end);
        len = i;
        for (byte b : rest) {
          if (escaped(b)) {
            buf[len++] = '\\';
            buf[len++] =
                switch (b) {
                  case '\t' -> 't';
                  case '\n' -> 'n';
                  case '\r' -> 'r';
                  default -> '\\';
                };
          } else {
            buf[len++] = b;
          }
        }
        return;
      }
    }
    len = end;
  }

  private static boolean escaped(byte b) {
    return b == '\\' || b >= 0 && b < 0x20 && (b == '\t' || b == '\n' || b == '\r');
  }

  private void ensure(int extra) {
    if (len + extra > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
    }
  }
}
