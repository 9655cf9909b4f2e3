package io.trellara.protocol;

/**
 * The one protocol version this code understands. Bytes of any other version are rejected, never
 * read.
 */
public final class ProtocolVersion {
  public static final int CURRENT = 1;

  private ProtocolVersion() {}
}
