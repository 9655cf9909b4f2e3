package io.trellara.sink.target;

import java.nio.charset.StandardCharsets;
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

    /**
     * The value's UTF-8 bytes, escaped. {@code String.getBytes(UTF_8)} is an intrinsic (a plain copy for the usual
     * ASCII text), and no byte of a multi-byte UTF-8 sequence is below 0x80, so escaping can scan the bytes:
     * runs without a character to escape are copied whole. (Strings here come from protobuf, which accepts valid
     * UTF-8 only: they hold no unpaired surrogate.)
     */
    void value(String s) {
        byte[] u = s.getBytes(StandardCharsets.UTF_8);
        int n = u.length;
        ensure(2 * n);
        int from = 0;
        for (int i = 0; i < n; i++) {
            byte b = u[i];
            if (b == '\\' || b >= 0 && b < 0x20 && (b == '\t' || b == '\n' || b == '\r')) {
                System.arraycopy(u, from, buf, len, i - from);
                len += i - from;
                buf[len++] = '\\';
                buf[len++] = switch (b) {
                    case '\t' -> 't';
                    case '\n' -> 'n';
                    case '\r' -> 'r';
                    default -> '\\';
                };
                from = i + 1;
            }
        }
        System.arraycopy(u, from, buf, len, n - from);
        len += n - from;
    }

    private void ensure(int extra) {
        if (len + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
        }
    }
}
