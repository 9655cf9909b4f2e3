package io.trellara.identity;

/** The identity format version carried as the first byte of every identity. */
public final class RowIdentityVersion {
  /** Row identity V2: canonical, ordered, prefix-free bytes (docs/row-identity-v2.md). */
  public static final int V2 = 0x02;

  private RowIdentityVersion() {}
}
