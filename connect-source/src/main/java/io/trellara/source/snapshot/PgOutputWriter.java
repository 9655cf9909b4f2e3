package io.trellara.source.snapshot;

import io.trellara.source.pgoutput.PgTimestamps;
import io.trellara.source.capture.CapturedTransaction;
import io.trellara.source.pgoutput.WireWriter;
import java.nio.ByteBuffer;

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
    private final WireWriter out = new WireWriter();

    ByteBuffer begin(long consistentPoint, long commitTimeMs) {
        out.reset();
        out.u8('B');
        out.i64(consistentPoint);
        out.i64(micros(commitTimeMs));
        out.i32(CapturedTransaction.SNAPSHOT_XID);
        return out.view();
    }

    ByteBuffer commit(long consistentPoint, long commitTimeMs) {
        out.reset();
        out.u8('C');
        out.u8(0);
        out.i64(consistentPoint);
        out.i64(consistentPoint);
        out.i64(micros(commitTimeMs));
        return out.view();
    }

    ByteBuffer relation(SnapshotTable t) {
        out.reset();
        out.u8('R');
        out.i32(t.oid());
        out.cstring(t.schema());
        out.cstring(t.name());
        out.u8(t.replicaIdentity());
        out.i16(t.columns().size());
        for (SnapshotTable.Column c : t.columns()) {
            out.u8(c.key() ? 1 : 0);
            out.cstring(c.name());
            out.i32(c.typeOid());
            out.i32(c.typeModifier());
        }
        return out.view();
    }

    /**
     * An Insert of one COPY text row ({@code row[0, length)}, its trailing newline included or not).
     *
     * @throws IllegalArgumentException when the row does not have {@code columns} fields
     */
    ByteBuffer insert(long relationOid, byte[] row, int length, int columns) {
        out.reset();
        out.u8('I');
        out.i32(relationOid);
        out.u8('N');
        out.i16(columns);
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
        return out.view();
    }

    /** One field: \N is NULL, anything else a text value with COPY's escapes undone (never longer than it). */
    private void field(byte[] row, int from, int to) {
        if (to - from == 2 && row[from] == '\\' && row[from + 1] == 'N') {
            out.u8('n');
            return;
        }
        out.u8('t');
        int lengthAt = out.length();
        out.i32(0);
        out.ensure(to - from);
        byte[] buf = out.array();
        int start = out.length();
        int len = start;
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
        out.skip(len - start);
        out.i32At(lengthAt, len - start);
    }

    private static long micros(long epochMs) {
        return (epochMs - PgTimestamps.POSTGRES_EPOCH_UNIX_MILLIS) * 1000L;
    }
}
