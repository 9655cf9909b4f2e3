package io.trellara.identity.codec;

import io.trellara.identity.DecodedField;
import io.trellara.identity.RowIdentityDecoder;
import io.trellara.identity.RowIdentityEncoder;
import io.trellara.identity.RowIdentityException;
import io.trellara.identity.TypeTag;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads framed fields back and renders each value as readable text in a form the text encoder accepts
 * again (so decode then encode round-trips to the same bytes). Inspection only: not a hot path.
 */
public final class FieldRenderer {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final byte[] b;
    private int pos;
    private final int end;

    public FieldRenderer(byte[] b, int pos, int end) {
        this.b = b;
        this.pos = pos;
        this.end = end;
    }

    public int position() {
        return pos;
    }

    private RowIdentityException truncated() {
        return new RowIdentityException("identity truncated at byte " + pos);
    }

    private int u8() {
        if (pos >= end) {
            throw truncated();
        }
        return b[pos++] & 0xFF;
    }

    private long u64() {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | u8();
        }
        return v;
    }

    private int u32() {
        return (int) (u64n(4));
    }

    private long u64n(int n) {
        long v = 0;
        for (int i = 0; i < n; i++) {
            v = v << 8 | u8();
        }
        return v;
    }

    /** Field count u32 (at most 1024, checked before allocating), fields, tuple end FF. */
    public List<DecodedField> tuple(int depth) {
        long count = u64n(4);
        if (count > RowIdentityEncoder.MAX_FIELDS) {
            throw new RowIdentityException("field count " + count + " exceeds " + RowIdentityEncoder.MAX_FIELDS);
        }
        List<DecodedField> fields = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            try {
                fields.add(field(depth));
            } catch (RowIdentityException e) {
                throw e.inField(i, "decode");
            }
        }
        if (u8() != Structural.TUPLE_END) {
            throw new RowIdentityException("missing tuple end 0xFF at byte " + (pos - 1));
        }
        return fields;
    }

    public DecodedField field(int depth) {
        TypeTag tag = TypeTag.fromCode(u8());
        int state = u8();
        if (state == Structural.STATE_NULL) {
            return new DecodedField(tag, true, null, List.of());
        }
        if (state != Structural.STATE_VALUE) {
            throw new RowIdentityException("invalid field state 0x" + Integer.toHexString(state));
        }
        if (tag.structural()) {
            return structural(tag, depth);
        }
        return new DecodedField(tag, false, scalar(tag), List.of());
    }

    private String scalar(TypeTag tag) {
        return switch (tag) {
            case BOOL -> bool();
            case INT2 -> Integer.toString((short) (u64n(2) ^ 0x8000));
            case INT4 -> Integer.toString(u32() ^ 0x80000000);
            case INT8 -> Long.toString(u64() ^ Long.MIN_VALUE);
            case OID -> Long.toString(u64n(4));
            case FLOAT4 -> float4();
            case FLOAT8 -> float8();
            case NUMERIC -> numeric();
            case TEXT, VARCHAR, BPCHAR, ENUM -> new String(unescape(), StandardCharsets.UTF_8);
            case BYTEA -> "\\x" + hex(unescape());
            case UUID -> uuid();
            case DATE -> date(u32() ^ 0x80000000);
            case TIME -> time(u64());
            case TIMESTAMP -> timestamp(u64() ^ Long.MIN_VALUE, false);
            case TIMESTAMPTZ -> timestamp(u64() ^ Long.MIN_VALUE, true);
            case TIMETZ -> timetz();
            case INTERVAL -> interval();
            case INET, CIDR -> inet(tag);
            case MACADDR -> mac(6);
            case MACADDR8 -> mac(8);
            case BIT, VARBIT -> bits();
            default -> throw new RowIdentityException("no renderer for " + tag);
        };
    }

    private String bool() {
        int v = u8();
        if (v > 1) {
            throw new RowIdentityException("invalid bool byte " + v);
        }
        return v == 1 ? "true" : "false";
    }

    private String float4() {
        int t = u32();
        int bits = t < 0 ? t ^ 0x80000000 : ~t;
        return Float.toString(Float.intBitsToFloat(bits));
    }

    private String float8() {
        long t = u64();
        long bits = t < 0 ? t ^ Long.MIN_VALUE : ~t;
        return Double.toString(Double.longBitsToDouble(bits));
    }

    /** Escaped bytes up to the 00 00 end. */
    private byte[] unescape() {
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

    private String numeric() {
        int cls = u8();
        switch (cls) {
            case NumericCodec.NEG_INFINITY:
                return "-Infinity";
            case NumericCodec.ZERO:
                return "0";
            case NumericCodec.POS_INFINITY:
                return "Infinity";
            case NumericCodec.NAN:
                return "NaN";
            case NumericCodec.POSITIVE:
            case NumericCodec.NEGATIVE:
                break;
            default:
                throw new RowIdentityException("invalid numeric class " + cls);
        }
        boolean negative = cls == NumericCodec.NEGATIVE;
        int start = pos;
        int expEnd = start + 4;
        // find the terminator: 00 00 (positive) or FF FF (negative, complemented)
        int term = negative ? 0xFF : 0x00;
        int p = expEnd;
        while (p + 1 < end && !((b[p] & 0xFF) == term && (b[p + 1] & 0xFF) == term)) {
            p++;
        }
        if (p + 1 >= end) {
            throw truncated();
        }
        byte[] raw = Arrays.copyOfRange(b, start, p);
        pos = p + 2;
        if (negative) {
            for (int i = 0; i < raw.length; i++) {
                raw[i] = (byte) ~raw[i];
            }
        }
        int e = ((raw[0] & 0xFF) << 24 | (raw[1] & 0xFF) << 16 | (raw[2] & 0xFF) << 8 | (raw[3] & 0xFF)) ^ 0x80000000;
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

    private String uuid() {
        StringBuilder sb = new StringBuilder(36);
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) {
                sb.append('-');
            }
            appendHex(sb, u8());
        }
        return sb.toString();
    }

    private static void appendHex(StringBuilder sb, int v) {
        sb.append(HEX[v >> 4]).append(HEX[v & 15]);
    }

    private static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder(bytes.length * 2);
        for (byte x : bytes) {
            appendHex(sb, x & 0xFF);
        }
        return sb.toString();
    }

    static String date(int days) {
        if (days == Integer.MAX_VALUE) {
            return "infinity";
        }
        if (days == Integer.MIN_VALUE) {
            return "-infinity";
        }
        StringBuilder sb = new StringBuilder();
        if (appendDate(sb, days)) {
            sb.append(" BC");
        }
        return sb.toString();
    }

    private static boolean appendDate(StringBuilder sb, long pgDays) {
        long[] ymd = DateTimeCodec.civilFromDays(pgDays + DateTimeCodec.PG_EPOCH_UNIX_DAYS);
        long year = ymd[0];
        boolean bc = year <= 0;
        pad(sb, bc ? 1 - year : year, 4).append('-');
        pad(sb, ymd[1], 2).append('-');
        pad(sb, ymd[2], 2);
        return bc;
    }

    private static StringBuilder pad(StringBuilder sb, long v, int width) {
        String s = Long.toString(v);
        for (int i = s.length(); i < width; i++) {
            sb.append('0');
        }
        return sb.append(s);
    }

    private static void appendTime(StringBuilder sb, long micros) {
        long secs = micros / 1_000_000;
        long frac = micros % 1_000_000;
        pad(sb, secs / 3600, 2).append(':');
        pad(sb, secs / 60 % 60, 2).append(':');
        pad(sb, secs % 60, 2);
        if (frac != 0) {
            String f = Long.toString(1_000_000 + frac).substring(1);
            int n = f.length();
            while (f.charAt(n - 1) == '0') {
                n--;
            }
            sb.append('.').append(f, 0, n);
        }
    }

    private static String time(long micros) {
        StringBuilder sb = new StringBuilder();
        appendTime(sb, micros);
        return sb.toString();
    }

    private static String timestamp(long micros, boolean tz) {
        if (micros == Long.MAX_VALUE) {
            return "infinity";
        }
        if (micros == Long.MIN_VALUE) {
            return "-infinity";
        }
        StringBuilder sb = new StringBuilder();
        long days = Math.floorDiv(micros, DateTimeCodec.USECS_PER_DAY);
        boolean bc = appendDate(sb, days);
        sb.append(' ');
        appendTime(sb, Math.floorMod(micros, DateTimeCodec.USECS_PER_DAY));
        if (tz) {
            sb.append("+00");
        }
        if (bc) {
            sb.append(" BC");
        }
        return sb.toString();
    }

    private String timetz() {
        long gmt = u64() ^ Long.MIN_VALUE;
        int west = u32() ^ 0x80000000;
        StringBuilder sb = new StringBuilder();
        appendTime(sb, gmt - west * 1_000_000L);
        int east = -west;
        sb.append(east < 0 ? '-' : '+');
        int a = Math.abs(east);
        pad(sb, a / 3600, 2);
        if (a % 3600 != 0) {
            sb.append(':');
            pad(sb, a / 60 % 60, 2);
            if (a % 60 != 0) {
                sb.append(':');
                pad(sb, a % 60, 2);
            }
        }
        return sb.toString();
    }

    private static final BigInteger USECS_PER_DAY = BigInteger.valueOf(DateTimeCodec.USECS_PER_DAY);
    private static final BigInteger INTERVAL_INFINITY = BigInteger.valueOf(Integer.MAX_VALUE * 31L)
            .multiply(USECS_PER_DAY).add(BigInteger.valueOf(Long.MAX_VALUE));
    private static final BigInteger INTERVAL_NEG_INFINITY = BigInteger.valueOf(Integer.MIN_VALUE * 31L)
            .multiply(USECS_PER_DAY).add(BigInteger.valueOf(Long.MIN_VALUE));

    /**
     * The comparison value as "[-]M mons [-]D days [-]HH:MM:SS.ffffff": months take whole 30-day units, so
     * the rendering parses back to the same value (the original months/days split is not recoverable).
     */
    private String interval() {
        long hi = u64() ^ Long.MIN_VALUE;
        long lo = u64();
        BigInteger span = BigInteger.valueOf(hi).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(lo)));
        if (span.equals(INTERVAL_INFINITY)) {
            return "infinity";
        }
        if (span.equals(INTERVAL_NEG_INFINITY)) {
            return "-infinity";
        }
        BigInteger[] dr = span.abs().divideAndRemainder(USECS_PER_DAY);
        long totalDays = dr[0].longValueExact();
        long months = Math.min(totalDays / 30, Integer.MAX_VALUE);
        long days = totalDays - months * 30;
        long micros = dr[1].longValueExact();
        if (days > Integer.MAX_VALUE) {
            micros = Math.addExact(Math.multiplyExact(days - Integer.MAX_VALUE, DateTimeCodec.USECS_PER_DAY), micros);
            days = Integer.MAX_VALUE;
        }
        String sign = span.signum() < 0 ? "-" : "";
        StringBuilder sb = new StringBuilder();
        if (months != 0) {
            sb.append(sign).append(months).append(" mons ");
        }
        if (days != 0) {
            sb.append(sign).append(days).append(" days ");
        }
        sb.append(sign);
        appendTime(sb, micros);
        return sb.toString();
    }

    private String inet(TypeTag tag) {
        int family = u8();
        int bits = u8();
        int n = family == NetworkCodec.AF_INET ? 4 : family == NetworkCodec.AF_INET6 ? 16 : -1;
        if (n < 0 || bits > n * 8) {
            throw new RowIdentityException("invalid inet family/prefix " + family + "/" + bits);
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i += n == 4 ? 1 : 2) {
            if (n == 4) {
                sb.append(i == 0 ? "" : ".").append(u8());
            } else {
                sb.append(i == 0 ? "" : ":").append(Integer.toHexString(u8() << 8 | u8()));
            }
        }
        if (tag == TypeTag.CIDR || bits != n * 8) {
            sb.append('/').append(bits);
        }
        return sb.toString();
    }

    private String mac(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(':');
            }
            appendHex(sb, u8());
        }
        return sb.toString();
    }

    private String bits() {
        long count = u64n(4);
        byte[] packed = unescape();
        if (packed.length != (count + 7) / 8) {
            throw new RowIdentityException("bit length " + count + " does not match " + packed.length + " bytes");
        }
        StringBuilder sb = new StringBuilder((int) count);
        for (int i = 0; i < count; i++) {
            sb.append((packed[i >> 3] >> (7 - (i & 7)) & 1) == 1 ? '1' : '0');
        }
        return sb.toString();
    }

    private DecodedField structural(TypeTag tag, int depth) {
        int inner = Structural.enter(depth, tag.sqlName());
        long length = u64n(4);
        if (length > end - pos) {
            throw truncated();
        }
        int stop = pos + (int) length;
        FieldRenderer nested = new FieldRenderer(b, pos, stop);
        DecodedField f = switch (tag) {
            case ARRAY -> nested.array(inner);
            case RANGE -> nested.range(inner);
            case MULTIRANGE -> nested.multirange(inner);
            case JSONB -> new DecodedField(tag, false, nested.json(inner), List.of());
            case COMPOSITE -> nested.composite(inner);
            case IDENTITY -> childIdentity(stop);
            default -> throw new RowIdentityException("no renderer for " + tag);
        };
        if (tag != TypeTag.IDENTITY && nested.pos != stop) {
            throw new RowIdentityException(tag.sqlName() + " length does not match its content");
        }
        pos = stop;
        return f;
    }

    private DecodedField childIdentity(int stop) {
        byte[] child = Arrays.copyOfRange(b, pos, stop);
        var decoded = RowIdentityDecoder.decode(child);
        return new DecodedField(TypeTag.IDENTITY, false, "\\x" + hex(child), decoded.fields());
    }

    private DecodedField array(int depth) {
        int ndim = u8();
        int[] lower = new int[ndim];
        int[] lengths = new int[ndim];
        for (int d = 0; d < ndim; d++) {
            lower[d] = u32() ^ 0x80000000;
            lengths[d] = u32();
        }
        long count = u64n(4);
        if (count > end - pos) {
            throw truncated();
        }
        List<DecodedField> elements = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            elements.add(field(depth));
        }
        expectTupleEnd();
        StringBuilder sb = new StringBuilder();
        boolean defaultBounds = true;
        for (int d = 0; d < ndim; d++) {
            defaultBounds &= lower[d] == 1;
        }
        if (!defaultBounds) {
            for (int d = 0; d < ndim; d++) {
                sb.append('[').append(lower[d]).append(':').append(lower[d] + lengths[d] - 1L).append(']');
            }
            sb.append('=');
        }
        if (ndim == 0) {
            sb.append("{}");
        } else {
            appendLevel(sb, elements, lengths, 0, new int[] {0});
        }
        return new DecodedField(TypeTag.ARRAY, false, sb.toString(), elements);
    }

    private static void appendLevel(StringBuilder sb, List<DecodedField> els, int[] lengths, int d, int[] next) {
        sb.append('{');
        for (int i = 0; i < lengths[d]; i++) {
            if (i > 0) {
                sb.append(',');
            }
            if (d == lengths.length - 1) {
                DecodedField e = els.get(next[0]++);
                sb.append(e.isNull() ? "NULL" : quote(e.value(), "{},\"\\ ", true));
            } else {
                appendLevel(sb, els, lengths, d + 1, next);
            }
        }
        sb.append('}');
    }

    private static String quote(String v, String specials, boolean quoteNullWord) {
        boolean needs = v.isEmpty() || (quoteNullWord && v.equalsIgnoreCase("null"));
        for (int i = 0; i < v.length() && !needs; i++) {
            needs = specials.indexOf(v.charAt(i)) >= 0 || Character.isWhitespace(v.charAt(i));
        }
        if (!needs) {
            return v;
        }
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.append('"').toString();
    }

    private void expectTupleEnd() {
        if (u8() != Structural.TUPLE_END) {
            throw new RowIdentityException("missing tuple end 0xFF");
        }
    }

    private DecodedField range(int depth) {
        int flags = u8();
        List<DecodedField> bounds = new ArrayList<>(2);
        if ((flags & RangeCodec.EMPTY) != 0) {
            expectTupleEnd();
            return new DecodedField(TypeTag.RANGE, false, "empty", bounds);
        }
        String lower = "";
        String upper = "";
        if ((flags & RangeCodec.LB_INF) == 0) {
            DecodedField f = field(depth);
            bounds.add(f);
            lower = quote(f.value(), "()[],\"\\ ", false);
        }
        if ((flags & RangeCodec.UB_INF) == 0) {
            DecodedField f = field(depth);
            bounds.add(f);
            upper = quote(f.value(), "()[],\"\\ ", false);
        }
        expectTupleEnd();
        String text = ((flags & RangeCodec.LB_INC) != 0 ? "[" : "(") + lower + "," + upper
                + ((flags & RangeCodec.UB_INC) != 0 ? "]" : ")");
        return new DecodedField(TypeTag.RANGE, false, text, bounds);
    }

    private DecodedField multirange(int depth) {
        long count = u64n(4);
        if (count > end - pos) {
            throw truncated();
        }
        List<DecodedField> ranges = new ArrayList<>((int) count);
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < count; i++) {
            DecodedField r = field(depth);
            ranges.add(r);
            sb.append(i == 0 ? "" : ",").append(r.value());
        }
        expectTupleEnd();
        return new DecodedField(TypeTag.MULTIRANGE, false, sb.append('}').toString(), ranges);
    }

    private DecodedField composite(int depth) {
        List<DecodedField> fields = tuple(depth);
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < fields.size(); i++) {
            DecodedField f = fields.get(i);
            sb.append(i == 0 ? "" : ",");
            if (!f.isNull()) {
                sb.append(f.value().isEmpty() ? "\"\"" : quote(f.value(), "(),\"\\ ", false));
            }
        }
        return new DecodedField(TypeTag.COMPOSITE, false, sb.append(')').toString(), fields);
    }

    private String json(int depth) {
        StringBuilder sb = new StringBuilder();
        jsonNode(sb, depth);
        return sb.toString();
    }

    private void jsonNode(StringBuilder sb, int depth) {
        int kind = u8();
        switch (kind) {
            case JsonbCodec.NULL -> sb.append("null");
            case JsonbCodec.FALSE -> sb.append("false");
            case JsonbCodec.TRUE -> sb.append("true");
            case JsonbCodec.NUMBER -> sb.append(numeric());
            case JsonbCodec.STRING -> jsonString(sb, unescape());
            case JsonbCodec.ARRAY -> {
                int inner = Structural.enter(depth, "jsonb");
                sb.append('[');
                for (int i = 0; peek() != JsonbCodec.CONTAINER_END; i++) {
                    sb.append(i == 0 ? "" : ", ");
                    jsonNode(sb, inner);
                }
                pos++;
                sb.append(']');
            }
            case JsonbCodec.OBJECT -> {
                int inner = Structural.enter(depth, "jsonb");
                sb.append('{');
                for (int i = 0; objectMember(); i++) {
                    sb.append(i == 0 ? "" : ", ");
                    jsonString(sb, unescape());
                    sb.append(": ");
                    jsonNode(sb, inner);
                }
                sb.append('}');
            }
            default -> throw new RowIdentityException("invalid jsonb node kind " + kind);
        }
    }

    private boolean objectMember() {
        int marker = u8();
        if (marker != JsonbCodec.MEMBER && marker != JsonbCodec.CONTAINER_END) {
            throw new RowIdentityException("invalid jsonb object marker " + marker);
        }
        return marker == JsonbCodec.MEMBER;
    }

    private int peek() {
        if (pos >= end) {
            throw truncated();
        }
        return b[pos] & 0xFF;
    }

    private static void jsonString(StringBuilder sb, byte[] utf8) {
        String s = new String(utf8, StandardCharsets.UTF_8);
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 15]);
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }
}
