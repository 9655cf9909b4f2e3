package io.trellara.source.pgoutput;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One row image of a pgoutput TupleData submessage: per column its kind and, for text and binary
 * columns, the value bytes.
 *
 * <p>Allocation is fixed per tuple, not per column: the value bytes of all columns live in one
 * array (a copy of the whole message the tuple came in, shared by the old and new tuple of an
 * Update), with one array of kinds and one array of offset/length pairs. Keeping the whole message
 * costs a few header bytes and lets {@link #message()} hand back its wire bytes, so a buffered
 * change that has to be spilled is written as it arrived instead of being encoded back into
 * pgoutput. Values stay bytes: text values are the server's UTF-8 text output, decoded once by
 * later code (or by {@link #textValue(int)} for diagnostics and tests). Instances are immutable.
 */
public final class TupleData {

  /** The kind of one column in a TupleData submessage. */
  public enum ColumnKind {
    /** 'n': the value is SQL NULL. */
    NULL((byte) 'n'),
    /** 'u': an unchanged TOASTed value; the actual value is not sent. It is not null. */
    UNCHANGED_TOAST((byte) 'u'),
    /** 't': the value in text format. */
    TEXT((byte) 't'),
    /** 'b': the value in binary format (only with the {@code binary} option). */
    BINARY((byte) 'b');

    private final byte code;

    ColumnKind(byte code) {
      this.code = code;
    }

    public byte code() {
      return code;
    }

    static ColumnKind fromCode(byte code) {
      switch (code) {
        case 'n':
          return NULL;
        case 'u':
          return UNCHANGED_TOAST;
        case 't':
          return TEXT;
        case 'b':
          return BINARY;
        default:
          return null;
      }
    }
  }

  private final byte[] bytes;
  private final byte[] kinds;

  /** offset of column i at [2i], length at [2i+1]; both 0 for n and u columns. */
  private final int[] bounds;

  TupleData(byte[] bytes, byte[] kinds, int[] bounds) {
    this.bytes = bytes;
    this.kinds = kinds;
    this.bounds = bounds;
  }

  /**
   * The whole pgoutput message this tuple was parsed from, exactly as received (type byte, the
   * stream xid when sent in a stream block, relation OID, every tuple): a read-only view, no copy.
   */
  public ByteBuffer message() {
    return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
  }

  /** Number of columns sent (pgoutput sends every live, non-generated column of the relation). */
  public int columnCount() {
    return kinds.length;
  }

  public ColumnKind kind(int column) {
    return ColumnKind.fromCode(kinds[column]);
  }

  /** The raw kind byte of a column: n, u, t or b. */
  public byte kindCode(int column) {
    return kinds[column];
  }

  public boolean isNull(int column) {
    return kinds[column] == 'n';
  }

  public boolean isUnchangedToast(int column) {
    return kinds[column] == 'u';
  }

  /** True for text ('t') and binary ('b') columns, the ones that carry value bytes. */
  public boolean hasValue(int column) {
    byte k = kinds[column];
    return k == 't' || k == 'b';
  }

  /** Length in bytes of the column's value; 0 for null and unchanged-TOAST columns. */
  public int valueLength(int column) {
    checkIndex(column);
    return bounds[2 * column + 1];
  }

  /**
   * A read-only view of the value bytes (no copy), or null for null and unchanged-TOAST columns.
   */
  public ByteBuffer value(int column) {
    if (!hasValue(column)) {
      return null;
    }
    return ByteBuffer.wrap(bytes, bounds[2 * column], bounds[2 * column + 1])
        .slice()
        .asReadOnlyBuffer();
  }

  /** A copy of the value bytes, or null for null and unchanged-TOAST columns. */
  public byte[] valueBytes(int column) {
    if (!hasValue(column)) {
      return null;
    }
    int off = bounds[2 * column];
    return Arrays.copyOfRange(bytes, off, off + bounds[2 * column + 1]);
  }

  /**
   * The value decoded as UTF-8, or null for null and unchanged-TOAST columns. Allocates a String:
   * meant for diagnostics and tests, not for the capture hot path.
   */
  public String textValue(int column) {
    if (!hasValue(column)) {
      return null;
    }
    return new String(bytes, bounds[2 * column], bounds[2 * column + 1], StandardCharsets.UTF_8);
  }

  /** True when the value bytes of {@code column} equal {@code expected}, without allocating. */
  public boolean valueEquals(int column, byte[] expected) {
    if (!hasValue(column)) {
      return false;
    }
    int off = bounds[2 * column];
    return Arrays.equals(bytes, off, off + bounds[2 * column + 1], expected, 0, expected.length);
  }

  private void checkIndex(int column) {
    if (column < 0 || column >= kinds.length) {
      throw new IndexOutOfBoundsException("column " + column + " of " + kinds.length);
    }
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof TupleData other)
        || other.kinds.length != kinds.length
        || !Arrays.equals(kinds, other.kinds)) {
      return false;
    }
    for (int i = 0; i < kinds.length; i++) {
      int a = bounds[2 * i];
      int b = other.bounds[2 * i];
      if (!Arrays.equals(
          bytes, a, a + bounds[2 * i + 1], other.bytes, b, b + other.bounds[2 * i + 1])) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int h = Arrays.hashCode(kinds);
    for (int i = 0; i < kinds.length; i++) {
      int off = bounds[2 * i];
      for (int j = off, end = off + bounds[2 * i + 1]; j < end; j++) {
        h = 31 * h + bytes[j];
      }
    }
    return h;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("TupleData[");
    for (int i = 0; i < kinds.length; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append((char) kinds[i]);
      if (hasValue(i)) {
        sb.append(':');
        if (kinds[i] == 't' && valueLength(i) <= 64) {
          sb.append(textValue(i));
        } else {
          sb.append(valueLength(i)).append(" bytes");
        }
      }
    }
    return sb.append(']').toString();
  }
}
