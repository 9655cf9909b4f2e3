package io.trellara.source.signal;

import io.trellara.source.pgoutput.PgOutputMessage.Truncate;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A Truncate with one table taken out (the signal table's, or a table whose snapshot is pending),
 * and its pgoutput bytes: the pipeline spills a transaction's messages as bytes, so a changed
 * message must travel as the bytes it would have come as.
 */
final class Truncates {
  private Truncates() {}

  /** True when the truncate names {@code oid}. */
  static boolean names(Truncate t, long oid) {
    return Arrays.stream(t.relationOids()).anyMatch(o -> o == oid);
  }

  /** The truncate without {@code oid}. */
  static Truncate without(Truncate t, long oid) {
    return new Truncate(
        t.streamXid(),
        t.options(),
        Arrays.stream(t.relationOids()).filter(o -> o != oid).toArray());
  }

  /** pgoutput's bytes of a Truncate. */
  static ByteBuffer wire(Truncate t) {
    long[] oids = t.relationOids();
    ByteBuffer b = ByteBuffer.allocate(1 + (t.streamXid() != 0 ? 4 : 0) + 4 + 1 + 4 * oids.length);
    b.put((byte) 'T');
    if (t.streamXid() != 0) {
      b.putInt((int) t.streamXid());
    }
    b.putInt(oids.length);
    b.put((byte) t.options());
    for (long oid : oids) {
      b.putInt((int) oid);
    }
    return b.flip();
  }
}
