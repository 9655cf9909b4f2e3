package io.trellara.protocol;

/**
 * A PostgreSQL log sequence number. The canonical text form is PostgreSQL's own {@code %X/%X}: upper-case
 * hexadecimal without leading zeros, the high and low 32 bits separated by a slash.
 */
public final class Lsn implements Comparable<Lsn> {
    public static final Lsn ZERO = new Lsn(0);

    private final long value;

    private Lsn(long value) {
        this.value = value;
    }

    public static Lsn of(long value) {
        return value == 0 ? ZERO : new Lsn(value);
    }

    /**
     * Parses {@code X/X}: two halves of 1 to 8 ASCII hex digits (either case, leading zeros allowed), no sign, no
     * space; throws on anything else.
     */
    public static Lsn parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("LSN is null");
        }
        int slash = text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1 || slash > 8 || text.length() - slash - 1 > 8) {
            throw new IllegalArgumentException("LSN '" + text + "' is not of the form X/X (hex halves of 1 to 8 digits)");
        }
        long high = parseHex(text, 0, slash);
        long low = parseHex(text, slash + 1, text.length());
        return of((high << 32) | low);
    }

    /** True when {@link #parse} accepts {@code text}. */
    public static boolean parses(String text) {
        try {
            parse(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** True when {@code text} parses and is exactly the canonical form PostgreSQL prints. */
    public static boolean isCanonical(String text) {
        try {
            return parse(text).toString().equals(text);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static long parseHex(String text, int from, int to) {
        long v = 0;
        for (int i = from; i < to; i++) {
            char ch = text.charAt(i);
            // ASCII only: Character.digit would also take full-width and other scripts' digits
            int d = ch < 128 ? Character.digit(ch, 16) : -1;
            if (d < 0) {
                throw new IllegalArgumentException("LSN '" + text + "' has a non-hex character at " + i);
            }
            v = (v << 4) | d;
        }
        return v;
    }

    public long value() {
        return value;
    }

    public boolean isZero() {
        return value == 0;
    }

    @Override
    public int compareTo(Lsn other) {
        return Long.compareUnsigned(value, other.value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Lsn l && l.value == value;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(value);
    }

    @Override
    public String toString() {
        return format(value);
    }

    public static String format(long value) {
        return Long.toHexString(value >>> 32).toUpperCase(java.util.Locale.ROOT) + "/"
                + Long.toHexString(value & 0xFFFFFFFFL).toUpperCase(java.util.Locale.ROOT);
    }
}
