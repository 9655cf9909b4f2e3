package io.trellara.sink.target;

import java.util.Arrays;

/**
 * Builds COPY text-format rows as UTF-8 bytes in one reusable buffer: tab between columns, newline after a
 * row, {@code \N} for NULL, and backslash, tab, newline and carriage return escaped inside values.
 */
final class CopyTextEncoder {
    private byte[] buf = new byte[1 << 16];
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

    void value(String s) {
        int n = s.length();
        ensure(n * 2 + 4);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                switch (c) {
                    case '\\' -> escaped('\\');
                    case '\t' -> escaped('t');
                    case '\n' -> escaped('n');
                    case '\r' -> escaped('r');
                    default -> buf[len++] = (byte) c;
                }
            } else {
                ensure((n - i) * 4 + 4);
                i = nonAscii(s, i, c);
            }
        }
    }

    private void escaped(char c) {
        buf[len++] = '\\';
        buf[len++] = (byte) c;
    }

    private int nonAscii(String s, int i, char c) {
        if (c < 0x800) {
            buf[len++] = (byte) (0xC0 | (c >> 6));
            buf[len++] = (byte) (0x80 | (c & 0x3F));
        } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
            int cp = Character.toCodePoint(c, s.charAt(++i));
            buf[len++] = (byte) (0xF0 | (cp >> 18));
            buf[len++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
            buf[len++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
            buf[len++] = (byte) (0x80 | (cp & 0x3F));
        } else if (Character.isSurrogate(c)) {
            throw new IllegalArgumentException("unpaired surrogate in a text value");
        } else {
            buf[len++] = (byte) (0xE0 | (c >> 12));
            buf[len++] = (byte) (0x80 | ((c >> 6) & 0x3F));
            buf[len++] = (byte) (0x80 | (c & 0x3F));
        }
        return i;
    }

    private void ensure(int extra) {
        if (len + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
        }
    }
}
