package io.trellara.source.pgoutput;

/** Which old-row image an Update or Delete carries. */
public enum OldTupleKind {
  /**
   * No old tuple (an Update on a table with REPLICA IDENTITY DEFAULT/INDEX whose key did not
   * change).
   */
  NONE((byte) 0),
  /** 'K': the old key columns only (non-key columns are sent as null). */
  KEY((byte) 'K'),
  /** 'O': the whole old row (REPLICA IDENTITY FULL). */
  OLD((byte) 'O');

  private final byte code;

  OldTupleKind(byte code) {
    this.code = code;
  }

  /** The wire byte, 0 for {@link #NONE}. */
  public byte code() {
    return code;
  }
}
