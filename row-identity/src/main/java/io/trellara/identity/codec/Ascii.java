package io.trellara.identity.codec;

import io.trellara.identity.RowIdentityException;
import java.nio.charset.StandardCharsets;

/** Exact ASCII parsing over byte ranges: no String, no locale, no regex on the hot path. */
public final class Ascii {
  private Ascii() {}

  public static RowIdentityException invalid(String type, byte[] v, int off, int end) {
    int n = Math.min(end - off, 200);
    return new RowIdentityException(
        "invalid "
            + type
            + " text '"
            + new String(v, off, Math.max(n, 0), StandardCharsets.UTF_8)
            + "'");
  }

  public static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }

  /** Parse an optionally signed decimal integer in [min, max] occupying exactly [off, end). */
  public static long parseLong(byte[] v, int off, int end, long min, long max, String type) {
    int i = off;
    boolean neg = false;
    if (i < end && (v[i] == '-' || v[i] == '+')) {
      neg = v[i] == '-';
      i++;
    }
    if (i >= end || end - i > 19) {
      throw invalid(type, v, off, end);
    }
    long acc = 0; // accumulate negatively so Long.MIN_VALUE parses
    for (; i < end; i++) {
      byte b = v[i];
      if (!isDigit(b)) {
        throw invalid(type, v, off, end);
      }
      long next = acc * 10 - (b - '0');
      if (acc < Long.MIN_VALUE / 10 || next > acc) {
        throw new RowIdentityException(type + " value out of range");
      }
      acc = next;
    }
    long value;
    if (neg) {
      value = acc;
    } else {
      if (acc == Long.MIN_VALUE) {
        throw new RowIdentityException(type + " value out of range");
      }
      value = -acc;
    }
    if (value < min || value > max) {
      throw new RowIdentityException(type + " value out of range: " + value);
    }
    return value;
  }

  /** Unsigned digits only, at most {@code maxDigits}. */
  public static int parseDigits(byte[] v, int off, int end, String type) {
    if (off >= end || end - off > 9) {
      throw invalid(type, v, off, end);
    }
    int acc = 0;
    for (int i = off; i < end; i++) {
      if (!isDigit(v[i])) {
        throw invalid(type, v, off, end);
      }
      acc = acc * 10 + (v[i] - '0');
    }
    return acc;
  }

  public static int hexValue(byte b) {
    if (b >= '0' && b <= '9') {
      return b - '0';
    }
    if (b >= 'a' && b <= 'f') {
      return b - 'a' + 10;
    }
    if (b >= 'A' && b <= 'F') {
      return b - 'A' + 10;
    }
    return -1;
  }

  /** ASCII case-insensitive comparison against a lower-case literal (never the JVM locale). */
  public static boolean equalsIgnoreCase(byte[] v, int off, int end, String lowerLiteral) {
    if (end - off != lowerLiteral.length()) {
      return false;
    }
    for (int i = 0; i < lowerLiteral.length(); i++) {
      int b = v[off + i];
      if (b >= 'A' && b <= 'Z') {
        b += 32;
      }
      if (b != lowerLiteral.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  public static int indexOf(byte[] v, int off, int end, byte target) {
    for (int i = off; i < end; i++) {
      if (v[i] == target) {
        return i;
      }
    }
    return -1;
  }

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** Two lower-case hex digits of the byte value {@code v} (0-255). */
  static StringBuilder appendHex(StringBuilder sb, int v) {
    return sb.append(HEX[v >> 4]).append(HEX[v & 15]);
  }

  static String hex(byte[] bytes) {
    StringBuilder sb = new StringBuilder(bytes.length * 2);
    for (byte x : bytes) {
      appendHex(sb, x & 0xFF);
    }
    return sb.toString();
  }
}
