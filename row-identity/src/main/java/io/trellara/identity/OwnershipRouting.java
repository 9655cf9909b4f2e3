package io.trellara.identity;

import net.openhft.hashing.LongHashFunction;

/**
 * Ownership routing for derive_from_primary_key: partition = xxh3_64(SCAN_KEY identity bytes, seed
 * 0) taken as an unsigned 64-bit integer, modulo the partition count. Part of the wire contract:
 * any consumer holding the identity bytes can recompute the route.
 */
public final class OwnershipRouting {
  private static final LongHashFunction XXH3 = LongHashFunction.xx3();

  private OwnershipRouting() {}

  public static int partitionFor(byte[] scanKey, int partitions) {
    if (partitions <= 0) {
      throw new IllegalArgumentException("partitions must be positive: " + partitions);
    }
    if (scanKey.length < 7
        || scanKey[0] != RowIdentityVersion.V2
        || scanKey[1] != RowIdentityDomain.SCAN_KEY.code()) {
      throw new RowIdentityException("ownership routing needs a V2 SCAN_KEY identity");
    }
    return (int) Long.remainderUnsigned(XXH3.hashBytes(scanKey), partitions);
  }
}
