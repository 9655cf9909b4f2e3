package io.trellara.source.pgoutput;

/**
 * A relation's REPLICA IDENTITY setting, as sent in the Relation message ({@code
 * pg_class.relreplident}).
 */
public enum ReplicaIdentity {
  /** 'd': the primary key (old tuples are key-only, kind K). */
  DEFAULT((byte) 'd'),
  /** 'n': nothing (updates and deletes carry no old tuple). */
  NOTHING((byte) 'n'),
  /** 'f': all columns (old tuples are full rows, kind O). */
  FULL((byte) 'f'),
  /** 'i': a chosen unique index (old tuples are key-only, kind K). */
  INDEX((byte) 'i');

  private final byte code;

  ReplicaIdentity(byte code) {
    this.code = code;
  }

  public byte code() {
    return code;
  }

  /** Returns the setting for a wire byte, or null when the byte is not one of d, n, f, i. */
  public static ReplicaIdentity fromCode(byte code) {
    switch (code) {
      case 'd':
        return DEFAULT;
      case 'n':
        return NOTHING;
      case 'f':
        return FULL;
      case 'i':
        return INDEX;
      default:
        return null;
    }
  }
}
