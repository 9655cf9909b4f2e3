package io.trellara.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;

class OwnershipRoutingTest {

  @Test
  void routesByUnsignedXxh3ModuloPartitions() {
    for (int i = 0; i < 2000; i++) {
      byte[] key =
          RowIdentityText.encode(
              RowIdentityDomain.SCAN_KEY, List.of("int8"), List.of(Integer.toString(i)));
      long h = LongHashFunction.xx3().hashBytes(key);
      int expected =
          new java.math.BigInteger(Long.toUnsignedString(h))
              .mod(java.math.BigInteger.valueOf(7))
              .intValueExact();
      assertThat(OwnershipRouting.partitionFor(key, 7)).isEqualTo(expected);
    }
  }

  @Test
  void spreadsKeysOverEveryPartition() {
    int[] counts = new int[16];
    for (int i = 0; i < 4000; i++) {
      byte[] key =
          RowIdentityText.encode(
              RowIdentityDomain.SCAN_KEY, List.of("int4"), List.of(Integer.toString(i)));
      counts[OwnershipRouting.partitionFor(key, 16)]++;
    }
    for (int c : counts) {
      assertThat(c).isBetween(150, 350);
    }
  }

  @Test
  void rejectsNonScanKeyIdentitiesAndBadPartitionCounts() {
    byte[] group =
        RowIdentityText.encode(RowIdentityDomain.GROUP_KEY, List.of("int4"), List.of("1"));
    assertThatThrownBy(() -> OwnershipRouting.partitionFor(group, 4))
        .isInstanceOf(RowIdentityException.class);
    byte[] scan = RowIdentityText.encode(RowIdentityDomain.SCAN_KEY, List.of("int4"), List.of("1"));
    assertThatThrownBy(() -> OwnershipRouting.partitionFor(scan, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(OwnershipRouting.partitionFor(scan, 1)).isZero();
  }
}
