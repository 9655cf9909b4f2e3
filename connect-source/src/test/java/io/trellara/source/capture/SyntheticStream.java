package io.trellara.source.capture;

import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.pgoutput.PgOutputParser;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Builds pgoutput messages byte by byte (the layout the parser documents) and parses them, for
 * synthetic streams. Tuple values: null is SQL NULL ('n'), {@link #TOAST} is unchanged-TOAST ('u'),
 * else text ('t').
 */
public final class SyntheticStream {

  public static final String TOAST = "\u0000unchanged-toast";
  private static final PgOutputParser PARSER = new PgOutputParser(2);

  private SyntheticStream() {}

  private interface Body {
    void write(DataOutputStream out) throws IOException;
  }

  private static PgOutputMessage message(boolean streamed, Body body) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      body.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return PARSER.parse(ByteBuffer.wrap(bytes.toByteArray()), streamed);
  }

  private static void cstring(DataOutputStream out, String s) throws IOException {
    out.write(s.getBytes(StandardCharsets.UTF_8));
    out.write(0);
  }

  private static void tuple(DataOutputStream out, String... values) throws IOException {
    out.writeShort(values.length);
    for (String v : values) {
      if (v == null) {
        out.write('n');
      } else if (v.equals(TOAST)) {
        out.write('u');
      } else {
        byte[] b = v.getBytes(StandardCharsets.UTF_8);
        out.write('t');
        out.writeInt(b.length);
        out.write(b);
      }
    }
  }

  private static void xid(DataOutputStream out, long xid) throws IOException {
    if (xid != 0) {
      out.writeInt((int) xid);
    }
  }

  /** The message's pgoutput bytes, as the replication stream would deliver them alongside it. */
  public static ByteBuffer wire(PgOutputMessage message) {
    PgOutputEncoder encoder = new PgOutputEncoder();
    int length = encoder.encode(message);
    return ByteBuffer.wrap(java.util.Arrays.copyOf(encoder.buffer(), length));
  }

  public static PgOutputMessage begin(long finalLsn, long xid) {
    return message(
        false,
        out -> {
          out.write('B');
          out.writeLong(finalLsn);
          out.writeLong(800_000_000_000_000L);
          out.writeInt((int) xid);
        });
  }

  public static PgOutputMessage commit(long commitLsn) {
    return message(
        false,
        out -> {
          out.write('C');
          out.write(0);
          out.writeLong(commitLsn);
          out.writeLong(commitLsn + 0x30);
          out.writeLong(800_000_000_000_000L);
        });
  }

  /** A relation: columns as name:typeOid[:k], e.g. "id:23:k". replicaIdentity d, n, f or i. */
  public static PgOutputMessage relation(
      long xid, long oid, String table, char replicaIdentity, String... columns) {
    return message(
        xid != 0,
        out -> {
          out.write('R');
          xid(out, xid);
          out.writeInt((int) oid);
          cstring(out, "public");
          cstring(out, table);
          out.write(replicaIdentity);
          out.writeShort(columns.length);
          for (String c : columns) {
            String[] p = c.split(":");
            out.write(p.length > 2 && p[2].equals("k") ? 1 : 0);
            cstring(out, p[0]);
            out.writeInt(Integer.parseInt(p[1]));
            out.writeInt(-1);
          }
        });
  }

  public static PgOutputMessage insert(long xid, long oid, String... values) {
    return message(
        xid != 0,
        out -> {
          out.write('I');
          xid(out, xid);
          out.writeInt((int) oid);
          out.write('N');
          tuple(out, values);
        });
  }

  /** An update; {@code oldKind} 0 (no old tuple), 'K' or 'O'. */
  public static PgOutputMessage update(
      long xid, long oid, char oldKind, String[] old, String... values) {
    return message(
        xid != 0,
        out -> {
          out.write('U');
          xid(out, xid);
          out.writeInt((int) oid);
          if (oldKind != 0) {
            out.write(oldKind);
            tuple(out, old);
          }
          out.write('N');
          tuple(out, values);
        });
  }

  public static PgOutputMessage delete(long xid, long oid, char oldKind, String... old) {
    return message(
        xid != 0,
        out -> {
          out.write('D');
          xid(out, xid);
          out.writeInt((int) oid);
          out.write(oldKind);
          tuple(out, old);
        });
  }

  /** A TRUNCATE of the given relations (no CASCADE, no RESTART IDENTITY). */
  public static PgOutputMessage truncate(long xid, long... oids) {
    return message(
        xid != 0,
        out -> {
          out.write('T');
          xid(out, xid);
          out.writeInt(oids.length);
          out.write(0);
          for (long oid : oids) {
            out.writeInt((int) oid);
          }
        });
  }

  public static PgOutputMessage ddl(long xid, String json) {
    return message(
        xid != 0,
        out -> {
          out.write('M');
          xid(out, xid);
          out.write(1);
          out.writeLong(0x1000);
          cstring(out, "trellara.ddl");
          byte[] b = json.getBytes(StandardCharsets.UTF_8);
          out.writeInt(b.length);
          out.write(b);
        });
  }

  public static PgOutputMessage streamStart(long xid, boolean first) {
    return message(
        false,
        out -> {
          out.write('S');
          out.writeInt((int) xid);
          out.write(first ? 1 : 0);
        });
  }

  public static PgOutputMessage streamStop() {
    return message(true, out -> out.write('E'));
  }

  public static PgOutputMessage streamCommit(long xid, long commitLsn) {
    return message(
        false,
        out -> {
          out.write('c');
          out.writeInt((int) xid);
          out.write(0);
          out.writeLong(commitLsn);
          out.writeLong(commitLsn + 0x30);
          out.writeLong(800_000_000_000_000L);
        });
  }

  public static PgOutputMessage streamAbort(long xid, long subXid) {
    return message(
        false,
        out -> {
          out.write('A');
          out.writeInt((int) xid);
          out.writeInt((int) subXid);
        });
  }
}
