package io.trellara.source.snapshot;

import io.trellara.source.pgoutput.PgTimestamps;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes the pgoutput messages of a snapshot transaction (Begin, Relation, Insert, Commit) in the exact
 * layout the replication stream uses, so the snapshot enters the capture pipeline through the same parser as
 * streamed changes. An Insert's tuple is written straight from a row of {@code COPY ... TO STDOUT} text
 * output, whose values are the types' text output (as pgoutput's) with COPY's backslash escapes undone.
 *
 * <p>One instance reuses one growing buffer: a returned buffer is valid until the next call (the parser
 * copies what it keeps).
 */
final class PgOutputWriter {
    /** The snapshot transaction's xid: InvalidTransactionId, which no real transaction has. */
    static final long SNAPSHOT_XID = 0;

    private byte[] buf = new byte[4096];
    private int len;

    ByteBuffer begin(long consistentPoint, long commitTimeMs) {
        len = 0;
        u8('B');
        i64(consistentPoint);
        i64(micros(commitTimeMs));
        i32(SNAPSHOT_XID);
        return view();
    }

    ByteBuffer commit(long consistentPoint, long commitTimeMs) {
        len = 0;
        u8('C');
        u8(0);
        i64(consistentPoint);
        i64(consistentPoint);
        i64(micros(commitTimeMs));
        return view();
    }

    ByteBuffer relation(SnapshotTable t) {
        len = 0;
        u8('R');
        i32(t.oid());
        string(t.schema());
        string(t.name());
        u8(t.replicaIdentity());
        i16(t.columns().size());
        for (SnapshotTable.Column c : t.columns()) {
            u8(c.key() ? 1 : 0);
            string(c.name());
            i32(c.typeOid());
            i32(c.typeModifier());
        }
        return view();
    }

    /**
     * An Insert of one COPY text row ({@code row[0, length)}, its trailing newline included or not).
     *
     * @throws IllegalArgumentException when the row does not have {@code columns} fields
     */
    ByteBuffer insert(long relationOid, byte[] row, int length, int columns) {
        len = 0;
        u8('I');
        i32(relationOid);
        u8('N');
        i16(columns);
        int end = length > 0 && row[length - 1] == '\n' ? length - 1 : length;
        int fields = 0;
        int p = 0;
        while (true) {
            int fieldEnd = p;
            while (fieldEnd < end && row[fieldEnd] != '\t') {
                fieldEnd++;
            }
            if (++fields > columns) {
                throw new IllegalArgumentException("a COPY row has more than " + columns + " fields");
            }
            field(row, p, fieldEnd);
            if (fieldEnd == end) {
                break;
            }
            p = fieldEnd + 1;
        }
        if (fields != columns) {
            throw new IllegalArgumentException("a COPY row has " + fields + " fields, the table " + columns
                    + " columns");
        }
        return view();
    }

    /** One field: \N is NULL, anything else a text value with COPY's escapes undone. */
    private void field(byte[] row, int from, int to) {
        if (to - from == 2 && row[from] == '\\' && row[from + 1] == 'N') {
            u8('n');
            return;
        }
        u8('t');
        int lengthAt = len;
        i32(0);
        ensure(to - from);
        for (int i = from; i < to; i++) {
            byte b = row[i];
            if (b != '\\' || i + 1 == to) {
                buf[len++] = b;
                continue;
            }
            byte e = row[++i];
            switch (e) {
                case 'b' -> buf[len++] = '\b';
                case 'f' -> buf[len++] = '\f';
                case 'n' -> buf[len++] = '\n';
                case 'r' -> buf[len++] = '\r';
                case 't' -> buf[len++] = '\t';
                case 'v' -> buf[len++] = 0x0B;
                case 'x' -> {
                    int v = 0;
                    int digits = 0;
                    while (digits < 2 && i + 1 < to && Character.digit(row[i + 1], 16) >= 0) {
                        v = v * 16 + Character.digit(row[++i], 16);
                        digits++;
                    }
                    buf[len++] = digits == 0 ? (byte) 'x' : (byte) v;
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        int v = e - '0';
                        for (int d = 1; d < 3 && i + 1 < to && row[i + 1] >= '0' && row[i + 1] <= '7'; d++) {
                            v = v * 8 + (row[++i] - '0');
                        }
                        buf[len++] = (byte) v;
                    } else {
                        buf[len++] = e; // \\ and any other escaped character stand for themselves
                    }
                }
            }
        }
        int n = len - lengthAt - 4;
        buf[lengthAt] = (byte) (n >>> 24);
        buf[lengthAt + 1] = (byte) (n >>> 16);
        buf[lengthAt + 2] = (byte) (n >>> 8);
        buf[lengthAt + 3] = (byte) n;
    }

    private static long micros(long epochMs) {
        return (epochMs - PgTimestamps.POSTGRES_EPOCH_UNIX_MILLIS) * 1000L;
    }

    private ByteBuffer view() {
        return ByteBuffer.wrap(buf, 0, len);
    }

    private void ensure(int more) {
        if (len + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
        }
    }

    private void u8(int v) {
        ensure(1);
        buf[len++] = (byte) v;
    }

    private void i16(int v) {
        ensure(2);
        buf[len++] = (byte) (v >>> 8);
        buf[len++] = (byte) v;
    }

    private void i32(long v) {
        ensure(4);
        buf[len++] = (byte) (v >>> 24);
        buf[len++] = (byte) (v >>> 16);
        buf[len++] = (byte) (v >>> 8);
        buf[len++] = (byte) v;
    }

    private void i64(long v) {
        i32(v >>> 32);
        i32(v);
    }

    private void string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        ensure(b.length + 1);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
        buf[len++] = 0;
    }
}
