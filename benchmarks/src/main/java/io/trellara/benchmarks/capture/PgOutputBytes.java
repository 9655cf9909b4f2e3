package io.trellara.benchmarks.capture;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes pgoutput messages byte by byte, as the server sends them, for benchmarks that feed the
 * real parser.
 */
public final class PgOutputBytes {
  private PgOutputBytes() {}

  /** A message's body, written to the stream. */
  public interface Body {
    void write(DataOutputStream out) throws IOException;
  }

  public static byte[] message(Body body) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      body.write(out);
    }
    return bytes.toByteArray();
  }

  /** A NUL-terminated UTF-8 string (pgoutput's String). */
  public static void cstring(DataOutputStream out, String s) throws IOException {
    out.write(s.getBytes(StandardCharsets.UTF_8));
    out.write(0);
  }

  /** A Relation message's column: flags (1 = part of the key), name, type OID, typmod -1. */
  public static void column(DataOutputStream out, boolean key, String name, int typeOid)
      throws IOException {
    out.write(key ? 1 : 0);
    cstring(out, name);
    out.writeInt(typeOid);
    out.writeInt(-1);
  }

  /** A TupleData column in text form. */
  public static void text(DataOutputStream out, String value) throws IOException {
    byte[] b = value.getBytes(StandardCharsets.UTF_8);
    out.write('t');
    out.writeInt(b.length);
    out.write(b);
  }
}
